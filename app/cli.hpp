// The command line (DESIGN.md §3):
//   cyclocc INPUT.yaml [--json FILE] [--checkpoint FILE] [--restart] [-v]
//   cyclocc --version | --help
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cyclocc::app {

struct CliOptions {
  std::string input;                      // the input file, as given
  std::optional<std::string> json;        // overrides output.json
  std::optional<std::string> checkpoint;  // overrides checkpoint.file
  bool restart = false;
  bool verbose = false;
};

enum class CliAction { Run, Help, Version };

struct CommandLine {
  CliAction action = CliAction::Run;
  CliOptions options;
};

// A malformed command line (unknown flag, missing value, no input); exit 2.
class CliError : public std::runtime_error {
 public:
  explicit CliError(const std::string& message) : std::runtime_error(message) {}
};

// Parses the arguments after the program name. Flags take their value as the
// next argument or after '=' (--json=out.json). Throws CliError.
CommandLine parse_command_line(const std::vector<std::string>& args);

// The files a command line that does not parse still names, read without
// judging it: --json and --checkpoint (a value that is missing or starts
// with '-' names none), and every other argument that is not a flag, any of
// which may be the input (an unknown flag's value too). Where the failure's
// results file may go.
struct NamedFiles {
  std::optional<std::string> json, checkpoint;
  std::vector<std::string> words;
};
NamedFiles files_named(const std::vector<std::string>& args);

// The --help text.
std::string usage_text();

}  // namespace cyclocc::app
