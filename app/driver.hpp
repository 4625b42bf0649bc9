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

// A command line that does not parse (exit 2) still gets a results file with
// its error where --json names one (`named`: files_named), as an input file
// that cannot be read does; never over any file the line names, nor over
// the checkpoint or a file read by any input it names. Rank 0 writes it, as
// far as it can; nothing collective.
void report_command_line_failure(const par::Comm& comm, const NamedFiles& named, const std::string& type,
                                 const std::string& message);

}  // namespace cyclocc::app
