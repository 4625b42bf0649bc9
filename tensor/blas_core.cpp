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

// Set in the environment of the program started again: "pid:chosen:set",
// its process, the kernels OpenBLAS had chosen and the OPENBLAS_CORETYPE set
// (for the log).
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

bool is_core_name(const std::string& s) {
  return !s.empty() && s.size() <= 32 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) != 0; });
}

// The kernels OpenBLAS chose when it was told nothing, if this process is
// the program started again with openblas_settings ("" otherwise):
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

std::string fitting_openblas_core() {
  // Set, by the user or by the restart: left as it is (so there is no second restart).
  if (std::getenv("OPENBLAS_CORETYPE")) return "";
  return better_openblas_core(openblas_core(), cpu_has_avx2_fma(), cpu_has_avx512());
}

par::EnvSettings openblas_settings(const std::string& core_type) {
  return {{"OPENBLAS_CORETYPE", core_type},
          {kWasVariable, std::to_string(getpid()) + ":" + openblas_core() + ":" + core_type}};
}

void start_in_fitting_environment(char** argv, const std::function<void()>& before_restart) {
  par::EnvSettings settings = par::huge_page_settings();
  if (const std::string core = fitting_openblas_core(); !core.empty()) {
    const par::EnvSettings blas = openblas_settings(core);
    settings.insert(settings.end(), blas.begin(), blas.end());
  }
  par::start_again_with(argv, settings, before_restart);
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
