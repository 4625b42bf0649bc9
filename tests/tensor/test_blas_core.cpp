// OpenBLAS's kernels: the choice of a better OPENBLAS_CORETYPE, and the
// program started again with it (blas_core_probe, a child process).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tensor/blas_core.hpp"

using cyclocc::tensor::better_openblas_core;

namespace {

struct Probe {
  std::string core, note;
};

// Runs the probe with `env` (shell assignments) in front; the guard variable
// of a restarted program is cleared first.
Probe run_probe(const std::string& env) {
  const std::string cmd = "env -u OPENBLAS_CORETYPE -u CYCLOCC_OPENBLAS_CHOSE " + env + " " BLAS_CORE_PROBE;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {};
  char line[1024];
  Probe out;
  if (std::fgets(line, sizeof line, p)) out.core = line;
  if (std::fgets(line, sizeof line, p)) out.note = line;
  EXPECT_EQ(pclose(p), 0);
  auto chomp = [](std::string& s) {
    while (!s.empty() && s.back() == '\n') s.pop_back();
  };
  chomp(out.core);
  chomp(out.note);
  return out;
}

}  // namespace

TEST(BlasCore, GenericKernelsGetTheWidestThatTheProcessorRuns) {
  EXPECT_EQ(better_openblas_core("Prescott", true, true), "SkylakeX");
  EXPECT_EQ(better_openblas_core("Prescott", true, false), "Haswell");
  EXPECT_EQ(better_openblas_core("Nehalem", true, false), "Haswell");
  EXPECT_EQ(better_openblas_core("Sandybridge", true, true), "SkylakeX");
}

TEST(BlasCore, KernelsThatUseAvx2AreKept) {
  for (const char* core : {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids", "EXCAVATOR"})
    EXPECT_EQ(better_openblas_core(core, true, true), "") << core;
}

TEST(BlasCore, NothingBetterWithoutAvx2OrWithoutOpenBlas) {
  EXPECT_EQ(better_openblas_core("Prescott", false, false), "");
  EXPECT_EQ(better_openblas_core("", true, true), "");
}

TEST(BlasCore, TheProgramRunsKernelsThatFitTheProcessor) {
  const Probe p = run_probe("");
  ASSERT_NE(p.core, "");
  // Whatever OpenBLAS chose on its own, the program ends with kernels that
  // nothing beats on this processor (on a processor newer than the library,
  // after starting again; the note says so then).
  EXPECT_EQ(better_openblas_core(p.core, cyclocc::tensor::cpu_has_avx2_fma(), cyclocc::tensor::cpu_has_avx512()), "")
      << p.core;
  if (!p.note.empty()) EXPECT_NE(p.note.find("OPENBLAS_CORETYPE=" + p.core), std::string::npos) << p.note;
}

TEST(BlasCore, AUsersChoiceIsLeftAlone) {
  const Probe p = run_probe("OPENBLAS_CORETYPE=Prescott");
  EXPECT_EQ(p.core, "Prescott");
  EXPECT_EQ(p.note, "");
}
