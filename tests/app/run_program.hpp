// Runs the built cyclocc binary the way a user does, for tests/app.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cyclocc::app_test {

struct ProgramRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Single-quotes a word for /bin/sh.
inline std::string shell_quote(const std::string& word) {
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `args` in folder `dir`, directly (ranks == 0) or under
// `mpirun -q -np ranks` (-q: mpirun's own notices about non-zero exit codes
// would otherwise follow the program's one error line on stderr).
inline ProgramRun run_program(const std::vector<std::string>& args, const std::filesystem::path& dir,
                              int ranks = 0) {
  std::string cmd = "cd " + shell_quote(dir.string()) + " && ";
  if (ranks > 0)
    cmd += shell_quote(CYCLOCC_MPIEXEC) + " -q --oversubscribe -np " + std::to_string(ranks) + " ";
  for (const auto& a : args) cmd += shell_quote(a) + " ";
  const auto out = dir / ".stdout", err = dir / ".stderr";
  cmd += "> " + shell_quote(out.string()) + " 2> " + shell_quote(err.string());
  const int status = std::system(cmd.c_str());
  ProgramRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out);
  r.err = read_text(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// Non-empty lines of a text.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream s(text);
  std::string line;
  while (std::getline(s, line))
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace cyclocc::app_test
