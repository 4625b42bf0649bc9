// GoogleTest main for MPI tests: every rank runs every test; only rank 0
// prints the progress, other ranks print their failures; the exit code is
// non-zero if any rank failed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "parallel/comm.hpp"
#include "tests/mpi_world.hpp"

namespace {

// Test-harness state: the one Environment of this process, for world().
cyclocc::par::Environment* environment = nullptr;

// Prints failed assertions of non-root ranks, prefixed with the rank.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_, r.file_name() ? r.file_name() : "?", r.line_number(),
                   r.summary());
  }

 private:
  int rank_;
};

}  // namespace

namespace cyclocc::test {
par::Comm& world() { return environment->world(); }
}  // namespace cyclocc::test

int main(int argc, char** argv) {
  // Tensors the tensor layer leaves unset start as NaN (tensor/context.hpp),
  // so a read before the write fails the tests' comparisons.
  ::setenv("CYCLOCC_POISON_UNSET", "1", 1);
  cyclocc::par::Environment env(&argc, &argv);
  environment = &env;
  ::testing::InitGoogleTest(&argc, argv);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (env.world().rank() != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(env.world().rank()));
  }
  const int rc = RUN_ALL_TESTS();
  const bool failed = env.world().any(rc != 0);
  return failed ? 1 : 0;
}
