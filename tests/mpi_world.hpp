// The world communicator of an MPI test binary (tests/mpi_main.cpp).
#pragma once

#include "parallel/comm.hpp"

namespace cyclocc::test {
par::Comm& world();
}  // namespace cyclocc::test
