#include "app/cli.hpp"

namespace cyclocc::app {

namespace {

// Splits "--flag=value" into flag and value; value is empty without '='.
std::pair<std::string, std::optional<std::string>> split_flag(const std::string& arg) {
  auto eq = arg.find('=');
  if (arg.rfind("--", 0) != 0 || eq == std::string::npos) return {arg, std::nullopt};
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

std::string take_value(const std::string& flag, const std::optional<std::string>& inline_value,
                       const std::vector<std::string>& args, std::size_t& i) {
  if (inline_value) {
    if (inline_value->empty()) throw CliError(flag + " needs a file name");
    return *inline_value;
  }
  if (i + 1 >= args.size() || args[i + 1].empty())
    throw CliError(flag + " needs a file name");
  // "--json --restart" would write the results to a file named --restart
  // (and not restart); a file whose name starts with '-' is written ./-name.
  const std::string& next = args[i + 1];
  if (next[0] == '-' && next != "-")
    throw CliError(flag + " needs a file name, not the option '" + next + "' (a file named so: ./" + next + ")");
  return args[++i];
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& args) {
  CommandLine cl;
  bool have_input = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto [flag, inline_value] = split_flag(args[i]);
    if (flag == "--help" || flag == "-h") {
      cl.action = CliAction::Help;
    } else if (flag == "--version") {
      if (cl.action != CliAction::Help) cl.action = CliAction::Version;
    } else if (flag == "--json") {
      cl.options.json = take_value(flag, inline_value, args, i);
    } else if (flag == "--checkpoint") {
      cl.options.checkpoint = take_value(flag, inline_value, args, i);
    } else if (flag == "--restart" && !inline_value) {
      cl.options.restart = true;
    } else if ((flag == "-v" || flag == "--verbose") && !inline_value) {
      cl.options.verbose = true;
    } else if (!flag.empty() && flag[0] == '-' && flag != "-") {
      throw CliError("unknown option '" + args[i] + "' (see cyclocc --help)");
    } else if (have_input) {
      throw CliError("more than one input file ('" + cl.options.input + "' and '" + args[i] +
                     "'; see cyclocc --help)");
    } else {
      cl.options.input = args[i];
      have_input = true;
    }
  }
  if (cl.action == CliAction::Run && !have_input)
    throw CliError("no input file given (usage: cyclocc INPUT.yaml [options]; see cyclocc --help)");
  return cl;
}

NamedFiles files_named(const std::vector<std::string>& args) {
  NamedFiles named;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto [flag, value] = split_flag(args[i]);
    if (flag == "--json" || flag == "--checkpoint") {
      if (!value && i + 1 < args.size() && args[i + 1].rfind('-', 0) != 0) value = args[++i];
      if (value && !value->empty() && value->front() != '-')
        (flag == "--json" ? named.json : named.checkpoint) = *value;
    } else if (!flag.empty() && flag[0] != '-') {
      named.words.push_back(args[i]);
    }
  }
  return named;
}

std::string usage_text() {
  return R"(usage: cyclocc INPUT.yaml [--json FILE] [--checkpoint FILE] [--restart] [-v]
       cyclocc --version | --help

Runs the calculation described by INPUT.yaml (SCF, then the cc.method it asks
for). Run it directly or under mpirun: mpirun -np 4 cyclocc water.yaml

options:
  --json FILE        write the QCSchema results file here (overrides output.json;
                     default: the input's name with .json)
  --checkpoint FILE  HDF5 checkpoint file (overrides checkpoint.file;
                     default: the input's name with .h5)
  --restart          reuse the checkpoint if it matches the input; start fresh
                     with a warning if there is none
  -v, --verbose      more detail in the log
  --version          print the version and exit
  -h, --help         print this text and exit

exit codes: 0 success, 2 input error, 3 no convergence, 4 checkpoint error,
5 stopped by a signal after a checkpoint was written, 1 anything else.
Paths given on the command line are relative to the current folder; paths in
the input file are relative to the input file's folder.
)";
}

}  // namespace cyclocc::app
