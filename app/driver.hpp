// The driver: runs the stages of one calculation and reports the outcome
// (log on stdout, one error line on stderr, the results file, exit code).
#pragma once

#include "app/cli.hpp"
#include "app/signals.hpp"
#include "parallel/comm.hpp"

namespace cyclocc::app {

// Runs the calculation of `options` on `comm`. Returns the exit code of
// DESIGN.md §3, the same on every rank. Never throws.
int run(const par::Comm& comm, const CliOptions& options, StopRequest& stop);

}  // namespace cyclocc::app
