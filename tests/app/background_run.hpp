// A cyclocc run in the background, for the tests that signal or kill a run
// while it iterates (program_restart_test.cpp). The run gets a session of its
// own (setsid), so "the whole run" is well defined: mpirun and every rank it
// started (Open MPI puts each rank in its own process group, but they stay in
// mpirun's session). Only processes of that session are ever signalled.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tests/app/run_program.hpp"

namespace cyclocc::app_test {

class BackgroundRun {
 public:
  // Runs `args` in `dir` (under `mpirun -q --oversubscribe -np ranks`, or
  // directly if ranks is 0), stdout and stderr to dir/.bg_stdout, .bg_stderr.
  BackgroundRun(std::vector<std::string> args, const std::filesystem::path& dir, int ranks)
      : out_(dir / ".bg_stdout"), err_(dir / ".bg_stderr") {
    if (ranks > 0)
      args.insert(args.begin(), {CYCLOCC_MPIEXEC, "-q", "--oversubscribe", "-np", std::to_string(ranks)});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // Emptied here, not in the child: the caller may look at out() at once.
    write_text(out_, "");
    write_text(err_, "");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setsid();
      if (::chdir(dir.c_str()) != 0) ::_exit(127);
      const int out = ::open(out_.c_str(), O_WRONLY | O_APPEND);
      const int err = ::open(err_.c_str(), O_WRONLY | O_APPEND);
      ::dup2(out, 1);
      ::dup2(err, 2);
      ::execvp(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~BackgroundRun() {
    if (!finished_) {
      kill_all(SIGKILL);
      wait();
    }
  }
  BackgroundRun(const BackgroundRun&) = delete;
  BackgroundRun& operator=(const BackgroundRun&) = delete;

  std::string out() const { return read_text(out_); }
  std::string err() const { return read_text(err_); }

  // Polls `done` every millisecond until it holds (true) or the run ends or
  // `seconds` pass (false).
  bool wait_for(const std::function<bool()>& done, double seconds = 300) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      if (done()) return true;
      if (exited()) return done();
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return false;
  }

  // Every process of the run's session: mpirun and all ranks (kill -9 of
  // the whole run), or the singleton.
  void kill_all(int sig) {
    for (pid_t p : session()) ::kill(p, sig);
  }
  // The run's processes now, and a signal to a list of them: for a kill at
  // a moment that lasts a millisecond or so, when looking them up again
  // (a walk over /proc) would take about as long.
  std::vector<pid_t> processes() const { return session(); }
  static void signal(const std::vector<pid_t>& pids, int sig) {
    for (pid_t p : pids) ::kill(p, sig);
  }
  // mpirun (or the singleton) only, as a batch system or Ctrl-C does.
  void signal_launcher(int sig) { ::kill(pid_, sig); }
  // The ranks only (every process of the session but mpirun).
  void signal_ranks(int sig) {
    for (pid_t p : session())
      if (p != pid_) ::kill(p, sig);
  }

  // Waits for the launcher and then for every process of the session to be
  // gone (a rank left running would be a hang). Returns the exit code, or
  // 128 + the signal that ended the launcher; -1 if ranks were left behind
  // after 20 s.
  int wait() {
    if (!finished_) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
      code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      finished_ = true;
    }
    for (int i = 0; i < 2000; ++i) {
      if (session().empty()) return code_;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

 private:
  bool exited() {
    if (finished_) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
    code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    finished_ = true;
    return true;
  }

  // The live processes whose session is the run's (field 6 of /proc/PID/stat).
  std::vector<pid_t> session() const {
    std::vector<pid_t> found;
    DIR* proc = ::opendir("/proc");
    if (!proc) return found;
    while (const dirent* e = ::readdir(proc)) {
      const pid_t p = static_cast<pid_t>(std::atoi(e->d_name));
      if (p <= 0) continue;
      const std::string stat = read_text("/proc/" + std::string(e->d_name) + "/stat");
      const auto close = stat.rfind(')');
      if (close == std::string::npos) continue;
      char state = 0;
      int ppid = 0, pgrp = 0, sid = 0;
      if (std::sscanf(stat.c_str() + close + 1, " %c %d %d %d", &state, &ppid, &pgrp, &sid) != 4) continue;
      if (sid == pid_ && state != 'Z' && state != 'X') found.push_back(p);
    }
    ::closedir(proc);
    return found;
  }

  std::filesystem::path out_, err_;
  pid_t pid_ = -1;
  bool finished_ = false;
  int code_ = -1;
};

// A row of a CC iteration table in a cyclocc log: the iteration number,
// the seconds of the checkpoint write (-1 if none was written in that row),
// and the correlation energy, dE and |dT| as printed.
struct CcRow {
  int iteration = 0;
  double checkpoint_seconds = -1;
  double energy = 0, delta_e = 0, delta_t = 0;
};

// The rows of every CC iteration table of a log (the lines that follow a
// "correlation energy ... |dT| ... checkpoint" header; the memory line after
// the third row, "CCSD: peak memory after ...", and a warning after it, are
// inside the table). CCSDT's tables have a |dT3| column before the seconds.
inline std::vector<CcRow> cc_rows(const std::string& log) {
  std::vector<CcRow> rows;
  bool in_table = false, t3 = false;
  for (const std::string& line : lines_of(log)) {
    if (line.find("correlation energy") != std::string::npos && line.find("|dT|") != std::string::npos) {
      in_table = true;
      t3 = line.find("|dT3|") != std::string::npos;
      continue;
    }
    CcRow row;
    double x[3] = {};  // (|dT3|,) seconds, checkpoint seconds
    const int n = std::sscanf(line.c_str(), "%d %lf %lf %lf %lf %lf %lf", &row.iteration, &row.energy,
                              &row.delta_e, &row.delta_t, &x[0], &x[1], &x[2]);
    if (in_table && n < 2 && (line.find(": peak memory after ") != std::string::npos || line.rfind("warning: ", 0) == 0))
      continue;
    in_table = in_table && n >= 2;
    const int with_checkpoint = t3 ? 7 : 6;
    row.checkpoint_seconds = n == with_checkpoint ? x[with_checkpoint - 5] : -1;
    if (in_table) rows.push_back(row);
  }
  return rows;
}

// The highest CC iteration number in a log, 0 if none.
inline int last_cc_iteration(const std::string& log) {
  int last = 0;
  for (const CcRow& row : cc_rows(log)) last = std::max(last, row.iteration);
  return last;
}

}  // namespace cyclocc::app_test
