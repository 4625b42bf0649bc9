// The files a run writes (results, checkpoint, Molden): that none of them is
// the input file or another of them, and that their folders exist, before
// any work is done; and where the results of an input that does not validate
// go (docs/results.md).
#pragma once

#include <string>

#include "app/cli.hpp"
#include "input/input.hpp"

namespace cyclocc::app {

// Whether two paths name one file (the same path, or links to one file).
bool same_file(const std::string& a, const std::string& b);

// Throws InputError (exit 2) naming the keys or flags if the results file,
// the checkpoint or the Molden file is the input file or another of them, or
// lies in a folder that does not exist.
void check_output_files(const input::Input& in, const CliOptions& options);

// The results file of this run if it is safe to write: not the input file,
// the checkpoint or the Molden file (else empty, and check_output_files says why).
std::string safe_results_path(const input::Input& in, const CliOptions& options);

// The same before the input validates: --json, else the input's output.json
// if it can be read from it, else INPUT stem + .json; empty if the input file
// cannot be read or that file would be the input or its checkpoint.
std::string results_path_before_input(const CliOptions& options);

}  // namespace cyclocc::app
