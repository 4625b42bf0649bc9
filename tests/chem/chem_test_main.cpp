// GoogleTest main of the chem tests. Like tests/mpi_main.cpp (every rank runs
// every test; only rank 0 prints unless a rank fails; non-zero exit if any
// rank failed), plus the one libint2 session of the process and world() for
// the tests, which cyclocc_mpi_gtest_main does not provide.
#include <gtest/gtest.h>

#include "chem/libint_session.hpp"
#include "parallel/comm.hpp"
#include "tests/chem/chem_test.hpp"

namespace cyclocc::chem_test {
namespace {
const par::Comm* the_world = nullptr;  // set once in main() before any test runs
}  // namespace
const par::Comm& world() { return *the_world; }
}  // namespace cyclocc::chem_test

int main(int argc, char** argv) {
  cyclocc::par::Environment env(&argc, &argv);
  const cyclocc::chem::LibintSession libint;
  cyclocc::chem_test::the_world = &env.world();
  ::testing::InitGoogleTest(&argc, argv);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (env.world().rank() != 0) delete listeners.Release(listeners.default_result_printer());
  const int rc = RUN_ALL_TESTS();
  return env.world().any(rc != 0) ? 1 : 0;
}
