#include "tensor/blas_core.hpp"

#include <cblas.h>  // OpenBLAS's, which declares openblas_get_corename
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

namespace cyclocc::tensor {

namespace {

// Set in the environment of the program started again: the kernels OpenBLAS
// had chosen (and a guard against starting it a third time).
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

void use_fitting_openblas_kernels(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") || std::getenv(kWasVariable)) return;
  const std::string core = openblas_core();
  const std::string better = better_openblas_core(core, cpu_has_avx2_fma(), cpu_has_avx512());
  if (better.empty()) return;
  if (setenv("OPENBLAS_CORETYPE", better.c_str(), 1) != 0 || setenv(kWasVariable, core.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not started again (no /proc?): go on with the kernels chosen, and say nothing.
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(kWasVariable);
}

std::string openblas_kernels_note() {
  const char* was = std::getenv(kWasVariable);
  const char* now = std::getenv("OPENBLAS_CORETYPE");
  if (!was || !now) return "";
  return std::string("BLAS: OpenBLAS chose its generic ") + was +
         " kernels for this processor; running with OPENBLAS_CORETYPE=" + now + " (its " + openblas_core() +
         " kernels) instead. Set OPENBLAS_CORETYPE to choose otherwise.";
}

}  // namespace cyclocc::tensor
