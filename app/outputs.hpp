// The files a run writes (results, checkpoint, Molden): that none of them is
// the input file, a file the input reads or another of them, that none
// replaces a file of another kind or one it cannot read (the results file
// replaces only a JSON file, the checkpoint only a cyclocc checkpoint, the
// Molden file only a Molden file), and that they can be written where they
// are (not a folder, a folder that exists and can be written, no loop of
// links, a checkpoint that is a regular file), before any work is done; and
// where the results of an input that does not validate go (docs/results.md).
#pragma once

#include <string>

#include "app/cli.hpp"
#include "input/input.hpp"

namespace cyclocc::app {

// Whether two paths name one file (the same path, or links to one file).
bool same_file(const std::string& a, const std::string& b);

// Throws InputError (exit 2) naming the keys or flags if the results file,
// the checkpoint or the Molden file is the input file, a file it reads or
// another of them, would replace a file of another kind, or cannot be
// written where it is (above).
void check_output_files(const input::Input& in, const CliOptions& options);

// The results file of this run if it is safe to write: not the input file,
// a file it reads, the checkpoint, the Molden file or a file that is not
// JSON (else empty, and check_output_files says why).
std::string safe_results_path(const input::Input& in, const CliOptions& options);

// The same before the input validates: --json, else the input's output.json
// if it can be read from it, else INPUT stem + .json; empty if the input file
// cannot be read or that file would be the input, its checkpoint, a file
// it reads or a file that is not JSON.
std::string results_path_before_input(const CliOptions& options);

}  // namespace cyclocc::app
