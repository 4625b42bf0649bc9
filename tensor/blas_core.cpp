#include "tensor/blas_core.hpp"

#include <cblas.h>  // OpenBLAS's, which declares openblas_get_corename
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

// The program's own file, or "" when it cannot be known or this process is
// the dynamic loader running it (ld.so PROGRAM: /proc/self/exe is ld.so, and
// argv would lose the program's name).
std::string own_executable() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return "";
  path[n] = '\0';
  const std::string p(path);
  const std::string base = p.substr(p.find_last_of('/') + 1);
  if (base.rfind("ld-", 0) == 0 || base.rfind("ld.so", 0) == 0 || base.rfind("ld64.so", 0) == 0) return "";
  return p;
}

// The kernels OpenBLAS chose when it was told nothing, if this process is
// the program started again by use_fitting_openblas_kernels ("" otherwise):
// kWasVariable holds "chosen:set", and set must still be OPENBLAS_CORETYPE.
std::string chosen_before_restart() {
  const char* was = std::getenv(kWasVariable);
  const char* now = std::getenv("OPENBLAS_CORETYPE");
  if (!was || !now) return "";
  const std::string w(was);
  const std::size_t colon = w.find(':');
  if (colon == std::string::npos || colon == 0 || w.substr(colon + 1) != now) return "";
  return w.substr(0, colon);
}

}  // namespace

void use_fitting_openblas_kernels(char** argv, const std::function<void()>& before_restart) {
  // Set, by the user or by the restart: left as it is (so there is no second restart).
  if (std::getenv("OPENBLAS_CORETYPE")) return;
  const std::string core = openblas_core();
  const std::string better = better_openblas_core(core, cpu_has_avx2_fma(), cpu_has_avx512());
  if (better.empty()) return;
  const std::string self = own_executable();
  if (self.empty()) return;
  if (setenv("OPENBLAS_CORETYPE", better.c_str(), 1) != 0 || setenv(kWasVariable, (core + ":" + better).c_str(), 1) != 0)
    return;
  if (before_restart) before_restart();
  // The file's own path, not /proc/self/exe: the process keeps its name (ps, pkill).
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
  if (set) line += std::string(" (OPENBLAS_CORETYPE=") + set + ")";
  const std::string better = better_openblas_core(core, cpu_has_avx2_fma(), cpu_has_avx512());
  if (!better.empty())
    line += std::string("; this processor runs OpenBLAS's ") + better + " kernels faster (OPENBLAS_CORETYPE=" + better +
            (set ? ")" : "; cyclocc could not start itself again with it)");
  return line;
}

}  // namespace cyclocc::tensor
