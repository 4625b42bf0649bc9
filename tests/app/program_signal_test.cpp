// Stopping the CC iterations with a signal through the cyclocc binary
// (DESIGN.md §8 Signals): the checkpoint is written at the next safe point
// (at most one iteration away), the log says so, every rank exits with code 5
// and the results file says "interrupted"; no rank is left running; then
// --restart finishes the calculation.
#include <csignal>

#include "tests/app/restart_fixture.hpp"

using namespace cyclocc::app_test;

namespace {

// Water CCSD (the geometry of h2o_ccpvdz_rhf) in cc-pVTZ, whose iterations
// (about 20 ms) are slow enough that the log does not fill the terminal
// mpirun gives each rank while mpirun delays a signal without reading it:
// cc-pVDZ iterations take 3 ms, and a rank blocked writing its log cannot
// reach its next safe point before mpirun's SIGKILL.
void water_ccpvtz(YAML::Node& in) { in["basis"] = "cc-pvtz"; }

// That CCSD never converging (a threshold below rounding), so a run is still
// iterating when a signal arrives, even one mpirun delays.
void endless_ccsd(YAML::Node& in) {
  water_ccpvtz(in);
  in["cc"]["convergence"] = 1.0e-30;
  in["cc"]["diis"] = 0;
  in["cc"]["max_iterations"] = 1000000;
}

// It converged with a threshold it can reach.
void finite_ccsd(YAML::Node& in) {
  water_ccpvtz(in);
  in["cc"]["convergence"] = 1e-10;
}

}  // namespace

class SignalTest : public RestartTest {
 protected:
  // Starts the run, waits for CCSD iteration 1, sends `sig` (to mpirun, or
  // to the ranks only), and checks what a stopped run leaves. Returns the
  // exit code of the launcher and the iteration the run stopped after.
  std::pair<int, int> stop_run(const fs::path& input, int ranks, int sig, bool to_ranks, const char* name) {
    BackgroundRun run({CYCLOCC_EXE, input.string()}, dir_, ranks);
    EXPECT_TRUE(run.wait_for([&] { return last_cc_iteration(run.out()) >= 1; })) << run.out() << run.err();
    const int signalled_at = last_cc_iteration(run.out());
    if (to_ranks)
      run.signal_ranks(sig);
    else
      run.signal_launcher(sig);
    const int code = run.wait();
    EXPECT_NE(code, -1) << "ranks left running";
    const std::string out = run.out(), err = run.err();
    const int stopped = last_cc_iteration(out);
    EXPECT_GE(stopped, signalled_at);
    // A signal straight to the program stops it at most an iteration later
    // (plus one for the log lagging behind).
    if (ranks == 0) {
      EXPECT_LE(stopped, signalled_at + 2) << out;
    }
    EXPECT_EQ(out.find("CCSD converged"), std::string::npos) << "not stopped:\n" << out;
    // Reported on stdout, the checkpoint written at that iteration.
    EXPECT_NE(out.find(std::string(name) + " received: the checkpoint " + path("w.h5").string() +
                       " holds the CCSD amplitudes of iteration " + std::to_string(stopped) + "; stopping"),
              std::string::npos)
        << out;
    EXPECT_EQ(stored_ccsd_iteration(path("w.h5")), stopped);
    EXPECT_FALSE(fs::exists(path("w.h5.tmp")));
    // One line of ours on stderr; the results file says interrupted. mpirun's
    // event library may add a "[warn] Epoll ..." line of its own while it
    // tears down a signalled job; that one is not cyclocc's to control.
    std::vector<std::string> ours;
    for (const std::string& line : lines_of(err))
      if (line.rfind("[warn] Epoll", 0) != 0) ours.push_back(line);
    EXPECT_EQ(ours.size(), 1u) << err;
    const YAML::Node j = results("w.json");
    EXPECT_FALSE(j["success"].as<bool>());
    EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "interrupted");
    const auto message = j["error"]["error_message"].as<std::string>();
    EXPECT_NE(message.find(std::string("stopped by ") + name + " after CCSD iteration " + std::to_string(stopped)),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("--restart"), std::string::npos) << message;
    EXPECT_EQ(j["properties"]["ccsd_iterations"].as<int>(), stopped);
    return {code, stopped};
  }
};

// mpirun answers SIGTERM with SIGTERM to the ranks a second later (SIGKILL
// a second after that) and then exits 1 itself, whatever the ranks said:
// the ranks stop cleanly in time, and the results file tells.
TEST_F(SignalTest, SigtermToMpirunWritesTheCheckpointAndRestartFinishes) {
  const auto input = case_input("w", "h2o_ccpvdz_rhf", endless_ccsd);
  const auto [code, stopped] = stop_run(input, 2, SIGTERM, false, "SIGTERM");
  EXPECT_NE(code, 0);
  EXPECT_NE(code, 128 + SIGKILL);

  // The same calculation with a threshold it can reach: it continues from
  // the stored amplitudes (which may already be converged by it), and ends
  // where a run that was never stopped ends.
  const auto finite = case_input("w", "h2o_ccpvdz_rhf", finite_ccsd);
  const auto r = cyclocc({finite.string(), "--restart"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CcsdRun done = ccsd_run("w.json");
  const std::string from = done.this_run > 0 ? "CCSD: continuing from iteration " + std::to_string(stopped)
                                             : "CCSD: converged amplitudes in checkpoint " + path("w.h5").string() +
                                                   " (iteration " + std::to_string(stopped) + ")";
  EXPECT_NE(r.out.find(from), std::string::npos) << r.out;
  EXPECT_EQ(done.iterations, stopped + done.this_run);
  const auto unstopped = case_input("u", "h2o_ccpvdz_rhf", finite_ccsd);
  ASSERT_EQ(cyclocc({unstopped.string()}).exit_code, 0);
  EXPECT_NEAR(done.energy, ccsd_run("u.json").energy, 1e-9);
}

// Exit code 5 where the program's own code reaches the caller: SIGUSR1 to
// mpirun (forwarded at once, Slurm's --signal=B:USR1), SIGTERM to the ranks
// (as a batch system that signals every task does), SIGTERM and SIGINT to a
// run without mpirun.
TEST_F(SignalTest, EveryStopSignalEndsTheRunWithExitCode5) {
  const auto input = case_input("w", "h2o_ccpvdz_rhf", endless_ccsd);
  struct Case {
    int ranks;
    int sig;
    bool to_ranks;
    const char* name;
  };
  for (const Case& c : {Case{2, SIGUSR1, false, "SIGUSR1"}, Case{2, SIGTERM, true, "SIGTERM"},
                        Case{0, SIGTERM, false, "SIGTERM"}, Case{0, SIGINT, false, "SIGINT"}}) {
    SCOPED_TRACE(std::string(c.name) + " at " + std::to_string(c.ranks) + " ranks");
    fs::remove(path("w.h5"));
    EXPECT_EQ(stop_run(input, c.ranks, c.sig, c.to_ranks, c.name).first, 5);
  }
}
