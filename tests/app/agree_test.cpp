// Failures seen by some ranks only end the step on every rank, with the
// lowest failing rank's exit code and message (no hang, one report).
#include <gtest/gtest.h>

#include "app/agree.hpp"
#include "app/signals.hpp"
#include "chem/checkpoint.hpp"
#include "input/input.hpp"
#include "tests/app/world.hpp"

using namespace cyclocc;

TEST(Agree, SuccessOnEveryRankReturnsEachRanksResult) {
  const par::Comm& comm = app_test::world();
  EXPECT_EQ(app::agreed(comm, [&] { return comm.rank() * 10; }), comm.rank() * 10);
  EXPECT_NO_THROW(app::agreed(comm, [] {}));
}

TEST(Agree, AFailureOnTheLastRankOnlyReachesEveryRank) {
  const par::Comm& comm = app_test::world();
  const int last = comm.size() - 1;
  try {
    app::agreed(comm, [&] {
      if (comm.rank() == last) throw chem::CheckpointError("checkpoint x.h5: seen by the last rank");
      return 1;
    });
    ADD_FAILURE() << "no failure on rank " << comm.rank();
  } catch (const app::AgreedFailure& f) {
    EXPECT_EQ(f.failure.code, app::exit_code::kCheckpointError);
    EXPECT_EQ(f.failure.type, "checkpoint_error");
    EXPECT_EQ(f.failure.message, "checkpoint x.h5: seen by the last rank");
  }
}

TEST(Agree, TheLowestFailingRankWins) {
  const par::Comm& comm = app_test::world();
  try {
    app::agreed(comm, [&] {
      if (comm.rank() == comm.size() - 1) throw std::runtime_error("line one\nline two");
      if (comm.rank() == 0 && comm.size() > 1) throw input::InputError("w.yaml:3: basis: unknown");
    });
    ADD_FAILURE() << "no failure on rank " << comm.rank();
  } catch (const app::AgreedFailure& f) {
    if (comm.size() == 1) {
      EXPECT_EQ(f.failure.code, app::exit_code::kFailure);
      EXPECT_EQ(f.failure.message, "line one line two");  // always one line
    } else {
      EXPECT_EQ(f.failure.code, app::exit_code::kInputError);
      EXPECT_EQ(f.failure.type, "input_error");
      EXPECT_EQ(f.failure.message, "w.yaml:3: basis: unknown");
    }
  }
}

TEST(Agree, EveryErrorKindHasItsExitCode) {
  const par::Comm& comm = app_test::world();
  auto code_of = [&](auto thrower) {
    try {
      app::agreed(comm, thrower);
    } catch (const app::AgreedFailure& f) {
      return f.failure.code;
    }
    return 0;
  };
  EXPECT_EQ(code_of([] { throw input::InputError("x"); }), 2);
  EXPECT_EQ(code_of([] { throw app::ConvergenceError("x"); }), 3);
  EXPECT_EQ(code_of([] { throw chem::CheckpointError("x"); }), 4);
  EXPECT_EQ(code_of([] { throw app::Interrupted("x"); }), 5);
  EXPECT_EQ(code_of([] { throw app::NotImplemented("x"); }), 1);
  EXPECT_EQ(code_of([] { throw std::bad_alloc(); }), 1);
  EXPECT_EQ(code_of([] { throw 42; }), 1);
}
