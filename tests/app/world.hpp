// The world communicator for the in-process app tests (set by app_test_main.cpp,
// which owns the MPI Environment and the libint2 session for the whole run).
#pragma once

#include "parallel/comm.hpp"

namespace cyclocc::app_test {

const par::Comm& world();

}  // namespace cyclocc::app_test
