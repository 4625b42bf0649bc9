// par::Comm's exchanges on 1 to 4 ranks: each rank sends rank r a block of
// values that name sender, receiver and position, so a value delivered to
// the wrong place, or counted wrongly, shows.
#include <gtest/gtest.h>

#include <vector>

#include "parallel/log.hpp"
#include "tests/mpi_world.hpp"

using cyclocc::test::world;

namespace {

// What rank `from` sends rank `to`: 2 from + to + 1 values (some ranks send
// none), so that a rank receives from another a count other than it sends it.
std::int64_t count(int from, int to) { return (from + 2 * to) % 3 == 0 ? 0 : 2 * from + to + 1; }
double value(int from, int to, std::int64_t k) { return 1000.0 * from + 100.0 * to + static_cast<double>(k); }

std::vector<double> send_block(int me, int p, std::vector<std::int64_t>& counts) {
  std::vector<double> send;
  counts.assign(p, 0);
  for (int to = 0; to < p; ++to) {
    counts[to] = count(me, to);
    for (std::int64_t k = 0; k < counts[to]; ++k) send.push_back(value(me, to, k));
  }
  return send;
}

void expect_received(const std::vector<double>& got, int me, int p) {
  std::vector<double> want;
  for (int from = 0; from < p; ++from)
    for (std::int64_t k = 0; k < count(from, me); ++k) want.push_back(value(from, me, k));
  EXPECT_EQ(got, want);
}

}  // namespace

TEST(Log, CountsAreSingularForOne) {
  EXPECT_EQ(cyclocc::par::count_of(0, "iteration"), "0 iterations");
  EXPECT_EQ(cyclocc::par::count_of(1, "iteration"), "1 iteration");
  EXPECT_EQ(cyclocc::par::count_of(12, "atom"), "12 atoms");
}

TEST(Comm, AlltoallvDeliversEveryBlockInRankOrder) {
  const auto& comm = world();
  std::vector<std::int64_t> send_counts, recv_counts;
  const auto send = send_block(comm.rank(), comm.size(), send_counts);
  const auto recv = comm.alltoallv(send, send_counts, recv_counts);
  expect_received(std::vector<double>(recv.begin(), recv.end()), comm.rank(), comm.size());
  for (int from = 0; from < comm.size(); ++from) EXPECT_EQ(recv_counts[from], count(from, comm.rank()));
}

TEST(Comm, AlltoallvWithKnownCountsMatchesTheCountedExchange) {
  const auto& comm = world();
  std::vector<std::int64_t> send_counts, recv_counts(comm.size());
  const auto send = send_block(comm.rank(), comm.size(), send_counts);
  for (int from = 0; from < comm.size(); ++from) recv_counts[from] = count(from, comm.rank());
  const std::int64_t sent0 = comm.words_sent(), received0 = comm.words_received();
  const auto recv = comm.alltoallv_known(send, send_counts, recv_counts);
  expect_received(std::vector<double>(recv.begin(), recv.end()), comm.rank(), comm.size());
  // Words to and from this rank itself are not counted as moved.
  std::int64_t out = 0, in = 0;
  for (int r = 0; r < comm.size(); ++r)
    if (r != comm.rank()) out += count(comm.rank(), r), in += count(r, comm.rank());
  EXPECT_EQ(comm.words_sent() - sent0, out);
  EXPECT_EQ(comm.words_received() - received0, in);
}

// The tests run on one machine: every rank shares this node.
TEST(Comm, AllRanksOfOneMachineShareItsNode) {
  const auto& comm = world();
  EXPECT_EQ(comm.ranks_on_this_node(), comm.size());
}
