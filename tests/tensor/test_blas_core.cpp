// OpenBLAS's kernels: the choice of a better OPENBLAS_CORETYPE, and the
// program started again with it (blas_core_probe, a child process).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "parallel/process_start.hpp"
#include "tensor/blas_core.hpp"

using cyclocc::par::huge_page_tunables;
using cyclocc::tensor::better_openblas_core;

namespace {

struct Probe {
  std::string core, note, name, tunables;
  long huge_kb = -1;
  std::string pages;  // the log's memory line
};

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Linux gives transparent huge pages only to memory that asks (its default).
bool huge_pages_on_request() {
  std::string mode;
  std::getline(std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"), mode);
  return has(mode, "[madvise]");
}

// The kernels this processor runs best, if OpenBLAS chose others (core).
std::string better_here(const std::string& core) {
  return better_openblas_core(core, cyclocc::tensor::cpu_has_avx2_fma(), cyclocc::tensor::cpu_has_avx512());
}

// Runs `command` (a shell line) with the variables of a restarted program
// cleared first, and reads the probe's lines.
Probe run(const std::string& command) {
  const std::string cmd =
      "env -u OPENBLAS_CORETYPE -u CYCLOCC_OPENBLAS_CHOSE -u GLIBC_TUNABLES -u CYCLOCC_STARTED_AGAIN " + command;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {};
  char line[1024];
  Probe out;
  if (std::fgets(line, sizeof line, p)) out.core = line;
  if (std::fgets(line, sizeof line, p)) out.note = line;
  if (std::fgets(line, sizeof line, p)) out.name = line;
  if (std::fgets(line, sizeof line, p)) out.tunables = line;
  if (std::fgets(line, sizeof line, p)) out.huge_kb = std::atol(line);
  if (std::fgets(line, sizeof line, p)) out.pages = line;
  EXPECT_EQ(pclose(p), 0) << command;
  auto chomp = [](std::string& s) {
    while (!s.empty() && s.back() == '\n') s.pop_back();
  };
  chomp(out.core);
  chomp(out.note);
  chomp(out.name);
  chomp(out.tunables);
  chomp(out.pages);
  return out;
}

// Runs the probe with `env` (shell assignments) in front, and `launcher`
// (e.g. the dynamic loader) before it.
Probe run_probe(const std::string& env, const std::string& launcher = "") {
  return run(env + " " + launcher + " " BLAS_CORE_PROBE);
}

// A link to the probe under another name, in a directory of its own.
struct ProbeLink {
  std::string dir, name = "cc-link-name";
  ProbeLink() {
    char tmpl[] = "/tmp/blas_core_link_XXXXXX";
    if (mkdtemp(tmpl)) dir = tmpl;
    if (dir.empty() || symlink(BLAS_CORE_PROBE, (dir + "/" + name).c_str()) != 0) dir.clear();
  }
  ~ProbeLink() {
    if (dir.empty()) return;
    unlink((dir + "/" + name).c_str());
    rmdir(dir.c_str());
  }
};

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
  // after starting again; the line says so then), under its own name.
  EXPECT_EQ(better_here(p.core), "") << p.core;
  EXPECT_TRUE(has(p.note, "BLAS: OpenBLAS")) << p.note;
  if (has(p.note, "chose its generic")) {
    EXPECT_TRUE(has(p.note, "OPENBLAS_CORETYPE=" + p.core)) << p.note;
  }
  EXPECT_EQ(p.name, "blas_core_probe");
}

TEST(BlasCore, AUsersChoiceIsLeftAloneAndNamed) {
  const Probe p = run_probe("OPENBLAS_CORETYPE=Prescott");
  EXPECT_EQ(p.core, "Prescott");
  EXPECT_TRUE(has(p.note, "(OPENBLAS_CORETYPE=Prescott)")) << p.note;
  EXPECT_FALSE(has(p.note, "chose its generic")) << p.note;
  // It also names the kernels this processor would run faster.
  const std::string better = better_here("Prescott");
  if (!better.empty()) {
    EXPECT_TRUE(has(p.note, "runs OpenBLAS's " + better + " kernels faster")) << p.note;
  }
}

TEST(BlasCore, TheLineIsNotFooledByTheEnvironment) {
  // A stray variable of a restarted program does not stop the restart...
  const Probe stray = run_probe("CYCLOCC_OPENBLAS_CHOSE=Prescott");
  EXPECT_EQ(better_here(stray.core), "") << stray.core;
  // ...and does not make the user's own setting look like the program's.
  const Probe user = run_probe("CYCLOCC_OPENBLAS_CHOSE=Prescott:Haswell OPENBLAS_CORETYPE=Prescott");
  EXPECT_EQ(user.core, "Prescott");
  EXPECT_FALSE(has(user.note, "chose its generic")) << user.note;
}

TEST(BlasCore, ThroughTheDynamicLoaderTheProgramRunsWithoutStartingAgain) {
  const std::string loader = "/lib64/ld-linux-x86-64.so.2";
  if (!std::ifstream(loader)) GTEST_SKIP() << "no " << loader;
  ProbeLink dir;  // for a copy of the loader under another name
  ASSERT_FALSE(dir.dir.empty());
  const std::string renamed = dir.dir + "/myloader";
  ASSERT_EQ(std::system(("cp " + loader + " " + renamed).c_str()), 0);
  for (const std::string& l : {loader, renamed}) {
    const Probe p = run_probe("", l);
    ASSERT_NE(p.core, "") << l;  // it ran, with its arguments
    EXPECT_EQ(p.tunables, "-") << l;
    EXPECT_FALSE(has(p.note, "chose its generic")) << p.note;
    if (!better_here(p.core).empty()) {
      EXPECT_TRUE(has(p.note, "could not start itself again")) << p.note;
    }
  }
  unlink(renamed.c_str());
}

TEST(BlasCore, TheProgramStartedAgainKeepsTheNameItWasStartedBy) {
  if (!cyclocc::tensor::cpu_has_avx2_fma()) GTEST_SKIP() << "no AVX2: OpenBLAS would not take Haswell";
  ProbeLink link;
  ASSERT_FALSE(link.dir.empty());
  const std::string again = " --start-again-with Haswell";
  const Probe direct = run(BLAS_CORE_PROBE + again);
  const Probe by_link = run(link.dir + "/" + link.name + again);
  const Probe on_path = run("env PATH=" + link.dir + ":/usr/bin:/bin " + link.name + again);
  // A trailing empty PATH entry is the current folder.
  const Probe in_folder = run("sh -c 'cd " + link.dir + " && PATH=/usr/bin:/bin: exec " + link.name + again + "'");
  for (const Probe& p : {direct, by_link, on_path, in_folder}) {
    EXPECT_EQ(p.core, "Haswell");
    EXPECT_TRUE(has(p.note, "running with OPENBLAS_CORETYPE=Haswell (its Haswell kernels)")) << p.note;
  }
  EXPECT_EQ(direct.name, "blas_core_probe");
  EXPECT_EQ(by_link.name, link.name);
  EXPECT_EQ(on_path.name, link.name);
  EXPECT_EQ(in_folder.name, link.name);
  // Run through a descriptor's path (as fexecve does): the restart runs the
  // file, so the process is not named after the descriptor ("3").
  const Probe by_fd = run("sh -c 'exec 3<" BLAS_CORE_PROBE "; exec /dev/fd/3" + again + "'");
  EXPECT_EQ(by_fd.core, "Haswell");
  EXPECT_EQ(by_fd.name, "blas_core_probe");
}

TEST(BlasCore, OnlyTheProcessThatStartedAgainSaysSo) {
  // The same process (exec keeps the shell's pid): believed, as after a restart.
  const std::string set = "export CYCLOCC_OPENBLAS_CHOSE=$$:Prescott:Haswell OPENBLAS_CORETYPE=Haswell; ";
  const Probe same = run("sh -c '" + set + "exec " BLAS_CORE_PROBE "'");
  EXPECT_TRUE(has(same.note, "chose its generic Prescott kernels")) << same.note;
  // A child that inherited the variable (another pid): not believed.
  const Probe child = run("sh -c '" + set + BLAS_CORE_PROBE "; true'");
  EXPECT_FALSE(has(child.note, "chose its")) << child.note;
  // Text that is no kernels' name is not printed as one.
  const Probe junk = run("sh -c 'export CYCLOCC_OPENBLAS_CHOSE=\"$$:see the manual:Haswell\" OPENBLAS_CORETYPE=Haswell; exec " BLAS_CORE_PROBE "'");
  EXPECT_FALSE(has(junk.note, "chose its")) << junk.note;
  EXPECT_FALSE(has(junk.note, "manual")) << junk.note;
}

TEST(BlasCore, AChoiceOpenBlasDidNotTakeIsSaid) {
  const Probe p = run_probe("OPENBLAS_CORETYPE=NoSuchCore");
  EXPECT_NE(p.core, "");
  EXPECT_TRUE(has(p.note, "(OPENBLAS_CORETYPE=NoSuchCore, which it did not take")) << p.note;
}

TEST(HugePages, MallocAsksForThemWhereTheKernelGivesThemOnRequest) {
  const std::string madvise = "always [madvise] never";
  EXPECT_EQ(huge_page_tunables(nullptr, madvise), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables("", madvise), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(huge_page_tunables("glibc.malloc.check=3", madvise), "glibc.malloc.check=3:glibc.malloc.hugetlb=1");
}

TEST(HugePages, TheSettingIsTheLastEntryOfItsExactName) {
  using cyclocc::par::hugetlb_setting;
  EXPECT_FALSE(hugetlb_setting(nullptr));
  EXPECT_FALSE(hugetlb_setting("xglibc.malloc.hugetlb=1:glibc.malloc.hugetlbx=1"));
  EXPECT_EQ(hugetlb_setting("glibc.malloc.hugetlb=10"), "10");
  EXPECT_EQ(hugetlb_setting("glibc.malloc.hugetlb=1:a=b:glibc.malloc.hugetlb=0"), "0");
  EXPECT_EQ(huge_page_tunables("xglibc.malloc.hugetlb=1", "always [madvise] never"),
            "xglibc.malloc.hugetlb=1:glibc.malloc.hugetlb=1");
}

TEST(HugePages, NotAskedForWhereTheyAreAlwaysOrNeverGivenOrAChoiceIsSet) {
  EXPECT_EQ(huge_page_tunables(nullptr, "[always] madvise never"), "");
  EXPECT_EQ(huge_page_tunables(nullptr, "always madvise [never]"), "");
  EXPECT_EQ(huge_page_tunables(nullptr, ""), "");  // no such file
  EXPECT_EQ(huge_page_tunables("glibc.malloc.hugetlb=0", "always [madvise] never"), "");
  EXPECT_EQ(huge_page_tunables("glibc.malloc.hugetlb=1", "always [madvise] never"), "");
}

TEST(HugePages, TheProgramStartsAgainWithThemAndUsesThem) {
  const Probe p = run_probe("");
  ASSERT_NE(p.core, "");
  EXPECT_EQ(p.name, "blas_core_probe");
  if (!huge_pages_on_request()) {
    EXPECT_EQ(p.tunables, "-");
    GTEST_SKIP() << "transparent huge pages are not in madvise mode here";
  }
  EXPECT_EQ(p.tunables, "glibc.malloc.hugetlb=1");
  // 64 MiB written: most of it on 2 MiB pages (the kernel may not find them all).
  EXPECT_GE(p.huge_kb, 32 * 1024) << "kB of huge pages";
  // A user's own tunables are kept, and a choice about huge pages is theirs.
  EXPECT_EQ(run_probe("GLIBC_TUNABLES=glibc.malloc.check=0").tunables, "glibc.malloc.check=0:glibc.malloc.hugetlb=1");
  EXPECT_TRUE(has(p.pages, "memory: malloc on transparent huge pages")) << p.pages;
  // Turned off, also by a later entry: no huge pages, and the log says none.
  for (const std::string off_value : {"glibc.malloc.hugetlb=0", "glibc.malloc.hugetlb=1:glibc.malloc.hugetlb=0"}) {
    const Probe off = run_probe("GLIBC_TUNABLES=" + off_value);
    EXPECT_EQ(off.tunables, off_value);
    EXPECT_LT(off.huge_kb, 2048) << "kB of huge pages without asking";
    EXPECT_EQ(off.pages, "-");
  }
}

TEST(HugePages, TheProgramStartedAgainNeverStartsAgain) {
  // As if the first start had set CYCLOCC_STARTED_AGAIN and a loader had
  // dropped what else it set: the same process runs on.
  const Probe p = run("sh -c 'export CYCLOCC_STARTED_AGAIN=$$; exec " BLAS_CORE_PROBE "'");
  ASSERT_NE(p.core, "");
  EXPECT_EQ(p.tunables, "-");
  // Inherited by another process, it does not stop that one's start.
  const Probe child = run("sh -c 'export CYCLOCC_STARTED_AGAIN=$$; " BLAS_CORE_PROBE "; true'");
  if (huge_pages_on_request()) {
    EXPECT_EQ(child.tunables, "glibc.malloc.hugetlb=1");
  }
}

TEST(HugePages, UnderValgrindTheProgramRunsOnWithoutStartingAgain) {
  if (!std::ifstream("/usr/bin/valgrind")) GTEST_SKIP() << "no valgrind";
  const Probe p = run_probe("", "/usr/bin/valgrind -q");
  ASSERT_NE(p.core, "");        // it ran to the end...
  EXPECT_EQ(p.tunables, "-");   // ...without an exec, which would have left valgrind
  EXPECT_NE(p.name, "blas_core_probe");
}
