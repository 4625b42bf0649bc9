// GoogleTest main of the in-process app tests (like tests/mpi_main.cpp, plus
// the libint2 session the driver needs and world() for the tests). Every
// rank runs every test; only rank 0 prints unless a rank fails.
#include <gtest/gtest.h>

#include "chem/libint_session.hpp"
#include "parallel/comm.hpp"
#include "tests/app/world.hpp"

namespace cyclocc::app_test {
namespace {
// Set once in main() before any test runs, never changed after.
const par::Comm* the_world = nullptr;
}  // namespace
const par::Comm& world() { return *the_world; }
}  // namespace cyclocc::app_test

int main(int argc, char** argv) {
  cyclocc::par::Environment env(&argc, &argv);
  const cyclocc::chem::LibintSession libint;
  cyclocc::app_test::the_world = &env.world();
  ::testing::InitGoogleTest(&argc, argv);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (env.world().rank() != 0) delete listeners.Release(listeners.default_result_printer());
  const int rc = RUN_ALL_TESTS();
  return env.world().any(rc != 0) ? 1 : 0;
}
