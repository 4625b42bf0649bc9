// available_bytes() on fake /proc and /sys/fs/cgroup trees: MemAvailable,
// and the room under cgroup v2 and v1 limits, a parent's limit included;
// the memory warnings' wording.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <string>
#include <vector>

#include "app/memory.hpp"
#include "app/run_memory.hpp"
#include "tests/app/world.hpp"

using cyclocc::app::available_bytes;
namespace fs = std::filesystem;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

class Memory : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cyclocc_memory_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "proc" / "self");
    write("proc/meminfo", "MemTotal:       25165824 kB\nMemAvailable:    8388608 kB\nBuffers:  1 kB\n");  // 8 GiB
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& file, const std::string& text) {
    fs::create_directories((root_ / file).parent_path());
    std::ofstream(root_ / file) << text;
  }
  double available() const { return available_bytes((root_ / "proc").string(), (root_ / "cgroup").string()); }

  fs::path root_;
};

}  // namespace

TEST_F(Memory, WithoutCgroupLimitsTheNodesMemAvailable) {
  write("proc/self/cgroup", "0::/user.slice/job\n");
  write("cgroup/user.slice/job/memory.max", "max\n");
  write("cgroup/user.slice/job/memory.current", "1000\n");
  EXPECT_DOUBLE_EQ(available(), 8 * kGiB);
}

TEST_F(Memory, NoFilesAtAllIsUnknown) {
  fs::remove(root_ / "proc" / "meminfo");
  EXPECT_TRUE(std::isinf(available()));
}

// Slurm and systemd put the limit on a parent group.
TEST_F(Memory, CgroupV2LimitOfAParent) {
  write("proc/self/cgroup", "0::/job_7/step_0/\n");
  write("cgroup/job_7/memory.max", std::to_string(3 * kGiB) + "\n");
  write("cgroup/job_7/memory.current", std::to_string(1 * kGiB) + "\n");
  write("cgroup/job_7/step_0/memory.max", "max\n");
  write("cgroup/job_7/step_0/memory.current", "4096\n");
  EXPECT_DOUBLE_EQ(available(), 2 * kGiB);
}

TEST_F(Memory, CgroupV1MemoryController) {
  write("proc/self/cgroup", "12:cpu,cpuacct:/job\n5:memory:/job/task\n0::/\n");
  write("cgroup/memory/job/memory.limit_in_bytes", std::to_string(4 * kGiB) + "\n");
  write("cgroup/memory/job/memory.usage_in_bytes", std::to_string(1.5 * kGiB) + "\n");
  write("cgroup/memory/job/task/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "no limit"
  write("cgroup/memory/job/task/memory.usage_in_bytes", "4096\n");
  EXPECT_DOUBLE_EQ(available(), 2.5 * kGiB);
}

TEST(MemoryShare, TheLeastOfAvailableAndPhysicalSplitOverTheNodesRanks) {
  using cyclocc::app::share_per_rank;
  EXPECT_EQ(share_per_rank(8 * kGiB, 24 * kGiB, 2), 4 * kGiB);     // a job's limit below the node's memory
  EXPECT_EQ(share_per_rank(INFINITY, 24 * kGiB, 4), 6 * kGiB);    // nothing readable: the node's memory
  EXPECT_EQ(share_per_rank(32 * kGiB, 24 * kGiB, 1), 24 * kGiB);  // never more than the node has
  EXPECT_EQ(share_per_rank(8 * kGiB, 24 * kGiB, 0), 8 * kGiB);    // no count of ranks: this one alone
}

// The kernel reclaims inactive file cache (a checkpoint just written) before
// the limit is hit: it is room, not use.
TEST_F(Memory, InactiveFileCacheIsRoom) {
  write("proc/self/cgroup", "0::/job_8\n");
  write("cgroup/job_8/memory.max", std::to_string(4 * kGiB) + "\n");
  write("cgroup/job_8/memory.current", std::to_string(3 * kGiB) + "\n");
  write("cgroup/job_8/memory.stat", "anon 1073741824\nfile 2147483648\ninactive_file " +
                                        std::to_string(static_cast<long long>(1.5 * kGiB)) + "\nactive_file 5\n");
  EXPECT_DOUBLE_EQ(available(), 2.5 * kGiB);
}

TEST_F(Memory, CgroupV1HierarchicalInactiveFileCache) {
  write("proc/self/cgroup", "5:memory:/job\n");
  write("cgroup/memory/job/memory.limit_in_bytes", std::to_string(4 * kGiB) + "\n");
  write("cgroup/memory/job/memory.usage_in_bytes", std::to_string(3 * kGiB) + "\n");
  write("cgroup/memory/job/memory.stat", "cache 5\ninactive_file 1024\ntotal_inactive_file " +
                                             std::to_string(static_cast<long long>(1 * kGiB)) + "\n");
  EXPECT_DOUBLE_EQ(available(), 2 * kGiB);
}

// The memory warnings' one sentence (app/run_memory.hpp), printed and kept
// for the results file's extras.warnings where the log prints (rank 0).
TEST(MemoryWarning, OneLineKeptForTheResults) {
  cyclocc::app::StopRequest stop;
  const auto& comm = cyclocc::app_test::world();
  cyclocc::app::RunContext ctx{comm, cyclocc::par::Log(comm.root(), false), stop,
                               cyclocc::app::Results("test", comm.size()), false, {}, {}};
  cyclocc::app::warn_short_of_memory(ctx, "the MO transform needs about", 1234.4, "per rank", 567.6,
                                     " (the need per rank falls as 1/P with more nodes)");
  cyclocc::app::warn_short_of_memory(ctx, "(T) needs about", 10, "more per rank", 5);
  const std::vector<std::string> want{
      "the MO transform needs about 1234 MB per rank, but a node has only 568 MB available for each of its ranks: "
      "the run may be killed for lack of memory (the need per rank falls as 1/P with more nodes)",
      "(T) needs about 10 MB more per rank, but a node has only 5 MB available for each of its ranks: the run may "
      "be killed for lack of memory"};
  EXPECT_EQ(ctx.log.warnings(), comm.root() ? want : std::vector<std::string>{});
}
