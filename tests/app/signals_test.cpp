// StopRequest: one rank's signal stops every rank at the same safe point.
#include <gtest/gtest.h>

#include <csignal>

#include "app/signals.hpp"
#include "parallel/comm.hpp"
#include "tests/app/world.hpp"

using namespace cyclocc;

TEST(StopRequest, NoSignalNoStop) {
  const par::Comm& comm = app_test::world();
  app::StopRequest stop;
  stop.clear();
  EXPECT_FALSE(stop.requested(comm));
  EXPECT_EQ(stop.signal(), 0);
}

TEST(StopRequest, ASignalOnRankZeroStopsEveryRank) {
  const par::Comm& comm = app_test::world();
  app::install_signal_handlers();
  app::StopRequest stop;
  stop.clear();
  comm.barrier();
  if (comm.root()) std::raise(SIGUSR1);  // the real handler sets the flag
  EXPECT_EQ(app::pending_signal(), comm.root() ? SIGUSR1 : 0);
  EXPECT_TRUE(stop.requested(comm));
  EXPECT_EQ(stop.signal(), SIGUSR1);
  EXPECT_EQ(stop.signal_name(), "SIGUSR1");
  stop.clear();
  EXPECT_FALSE(stop.requested(comm));
}

TEST(StopRequest, ASignalOnTheLastRankStopsEveryRank) {
  const par::Comm& comm = app_test::world();
  app::install_signal_handlers();
  app::StopRequest stop;
  stop.clear();
  if (comm.rank() == comm.size() - 1) std::raise(SIGTERM);
  EXPECT_TRUE(stop.requested(comm));
  EXPECT_EQ(stop.signal_name(), "SIGTERM");
  stop.clear();
}

// A signal that arrives while the program starts itself again (main() holds
// them across the exec) waits, and reaches the handler once it is installed.
TEST(StopRequest, AHeldSignalReachesTheHandlerOnceItIsInstalled) {
  const par::Comm& comm = app_test::world();
  app::install_signal_handlers();
  app::StopRequest stop;
  stop.clear();
  app::hold_stop_signals();
  std::raise(SIGUSR1);
  EXPECT_EQ(app::pending_signal(), 0);  // held: the handler has not run
  sigset_t pending;
  sigpending(&pending);
  EXPECT_TRUE(sigismember(&pending, SIGUSR1));
  app::install_signal_handlers();  // lets it through
  EXPECT_EQ(app::pending_signal(), SIGUSR1);
  EXPECT_TRUE(stop.requested(comm));
  EXPECT_EQ(stop.signal(), SIGUSR1);
  stop.clear();
  comm.barrier();
}
