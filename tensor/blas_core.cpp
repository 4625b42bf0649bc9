#include "tensor/blas_core.hpp"

#include <cblas.h>  // OpenBLAS's, which declares openblas_get_corename
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <functional>

namespace cyclocc::tensor {

namespace {

// Set in the environment of the program started again: "chosen:set", the
// kernels OpenBLAS had chosen and the OPENBLAS_CORETYPE set (for the log).
constexpr const char* kWasVariable = "CYCLOCC_OPENBLAS_CHOSE";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

bool cpu_has_avx2_fma() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

bool cpu_has_avx512() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

std::string openblas_core() {
  const char* name = openblas_get_corename();
  return name ? name : "";
}

std::string better_openblas_core(const std::string& core, bool avx2_fma, bool avx512) {
  // OpenBLAS 0.3.21's kernels that use AVX2 (its corename list, driver/others/dynamic.c).
  constexpr std::array<const char*, 6> kAvx2Cores{"haswell", "excavator", "zen", "skylakex", "cooperlake",
                                                  "sapphirerapids"};
  if (core.empty() || !avx2_fma) return "";
  if (std::find(kAvx2Cores.begin(), kAvx2Cores.end(), lower(core)) != kAvx2Cores.end()) return "";
  return avx512 ? "SkylakeX" : "Haswell";
}

namespace {

bool is_loader(const std::string& path) {
  const std::string base = path.substr(path.find_last_of('/') + 1);
  return base.rfind("ld-", 0) == 0 || base.rfind("ld.so", 0) == 0 || base.rfind("ld64.so", 0) == 0;
}

bool same_file(const std::string& path, const struct stat& file) {
  struct stat s {};
  return stat(path.c_str(), &s) == 0 && s.st_dev == file.st_dev && s.st_ino == file.st_ino;
}

// The path that starts the program's file again, or "" when it cannot be
// known or this process is the dynamic loader running it (ld.so PROGRAM:
// /proc/self/exe is ld.so, and argv would lose the program's name). It is
// the path the program was started by when that names the same file (the
// process keeps its name, a link's name included: ps, pkill -x), found on
// PATH when argv[0] has no '/'; else the file /proc/self/exe links to.
std::string path_to_self(const char* argv0) {
  char target[4096];
  const ssize_t n = readlink("/proc/self/exe", target, sizeof target - 1);
  if (n <= 0) return "";
  target[n] = '\0';
  struct stat self {};
  if (is_loader(target) || stat(target, &self) != 0) return "";
  const std::string name = argv0 ? argv0 : "";
  if (name.find('/') != std::string::npos) return same_file(name, self) ? name : target;
  const char* path = name.empty() ? nullptr : std::getenv("PATH");
  for (std::string dirs = path ? path : ""; !dirs.empty();) {
    const std::size_t colon = std::min(dirs.find(':'), dirs.size());
    const std::string dir = colon == 0 ? "." : dirs.substr(0, colon);
    dirs.erase(0, colon + 1);
    if (same_file(dir + "/" + name, self)) return dir + "/" + name;
  }
  return target;
}

bool is_core_name(const std::string& s) {
  return !s.empty() && s.size() <= 32 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) != 0; });
}

// The kernels OpenBLAS chose when it was told nothing, if this process is
// the program started again by start_again_with_openblas_core ("" otherwise):
// kWasVariable holds "pid:chosen:set", pid is this process's (an exec keeps
// it; a child that inherits the variable has another), chosen is a core's
// name and set is still OPENBLAS_CORETYPE.
std::string chosen_before_restart() {
  const char* was = std::getenv(kWasVariable);
  const char* now = std::getenv("OPENBLAS_CORETYPE");
  if (!was || !now) return "";
  const std::string w(was);
  const std::string pid = std::to_string(getpid()) + ":";
  if (w.rfind(pid, 0) != 0) return "";
  const std::string rest = w.substr(pid.size());
  const std::size_t colon = rest.find(':');
  if (colon == std::string::npos || rest.substr(colon + 1) != now) return "";
  const std::string chosen = rest.substr(0, colon);
  return is_core_name(chosen) ? chosen : "";
}

}  // namespace

void use_fitting_openblas_kernels(char** argv, const std::function<void()>& before_restart) {
  // Set, by the user or by the restart: left as it is (so there is no second restart).
  if (std::getenv("OPENBLAS_CORETYPE")) return;
  const std::string core = openblas_core();
  const std::string better = better_openblas_core(core, cpu_has_avx2_fma(), cpu_has_avx512());
  if (!better.empty()) start_again_with_openblas_core(argv, better, before_restart);
}

void start_again_with_openblas_core(char** argv, const std::string& core_type,
                                    const std::function<void()>& before_restart) {
  const std::string self = path_to_self(argv[0]);
  if (self.empty()) return;
  const std::string was = std::to_string(getpid()) + ":" + openblas_core() + ":" + core_type;
  if (setenv("OPENBLAS_CORETYPE", core_type.c_str(), 1) != 0 || setenv(kWasVariable, was.c_str(), 1) != 0) return;
  if (before_restart) before_restart();
  execv(self.c_str(), argv);
  // Not started again: go on with the kernels chosen (the log's line says so).
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(kWasVariable);
}

std::string openblas_kernels_note() {
  const std::string core = openblas_core();
  if (const std::string was = chosen_before_restart(); !was.empty())
    return "BLAS: OpenBLAS chose its generic " + was + " kernels for this processor; running with OPENBLAS_CORETYPE=" +
           std::getenv("OPENBLAS_CORETYPE") + " (its " + core + " kernels) instead. Set OPENBLAS_CORETYPE to choose "
           "otherwise.";
  std::string line = "BLAS: OpenBLAS, its " + core + " kernels";
  const char* set = std::getenv("OPENBLAS_CORETYPE");
  if (set) {
    line += std::string(" (OPENBLAS_CORETYPE=") + set;
    line += lower(set) == lower(core) ? ")" : ", which it did not take: not a name of its kernels, or not for this processor)";
  }
  const std::string better = better_openblas_core(core, cpu_has_avx2_fma(), cpu_has_avx512());
  if (!better.empty())
    line += std::string("; this processor runs OpenBLAS's ") + better + " kernels faster (OPENBLAS_CORETYPE=" + better +
            (set ? ")" : "; cyclocc could not start itself again with it)");
  return line;
}

}  // namespace cyclocc::tensor
