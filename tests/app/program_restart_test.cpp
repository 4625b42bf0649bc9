// Restart of the CC iterations through the cyclocc binary (DESIGN.md §3, §8
// Checkpoints): kill -9 of the whole run during the CCSD iterations and
// during a checkpoint write, then --restart at another rank count; the final
// energy equals the uninterrupted run's to 1e-9 Eh with fewer iterations than
// a fresh run. Also: an unconverged run continues where it stopped, a
// converged method is not iterated again, and another frozen core reuses the
// SCF but starts the amplitudes fresh.
#include "tests/app/restart_fixture.hpp"

using namespace cyclocc::app_test;

namespace {

// Water cc-pVDZ CCSD, converged tightly enough that two runs agree far below 1e-9 Eh.
void tight(YAML::Node& in) { in["cc"]["convergence"] = 1.0e-10; }

}  // namespace

// Kills the whole run (mpirun and every rank) with SIGKILL once the log shows
// CCSD iteration `after`; returns the iteration stored in the checkpoint.
class KillTest : public RestartTest {
 protected:
  // w.yaml: water cc-pVDZ CCSD that iterates until it is stopped.
  fs::path endless_input() const {
    return case_input("w", "h2o_ccpvdz_rhf", [](YAML::Node& in) {
      in["cc"]["convergence"] = 1e-30;
      in["cc"]["max_iterations"] = 2000;
    });
  }

  int kill_after(const fs::path& input, int ranks, int after) {
    BackgroundRun run({CYCLOCC_EXE, input.string()}, dir_, ranks);
    EXPECT_TRUE(run.wait_for([&] { return last_cc_iteration(run.out()) >= after; })) << run.out() << run.err();
    run.kill_all(SIGKILL);
    EXPECT_EQ(run.wait(), 128 + SIGKILL) << "the run ended before the kill:\n" << run.out();
    const int stored = stored_ccsd_iteration(path(input.stem().string() + ".h5"));
    EXPECT_GE(stored, 1);
    // The log may lag one iteration behind the checkpoint (mpirun forwards it).
    EXPECT_LE(stored, last_cc_iteration(run.out()) + 1);
    return stored;
  }

  // Kills the whole run with SIGKILL while it writes the checkpoint (NAME.h5.tmp
  // exists) after CCSD iteration `after`, retrying if the rename wins the race.
  // Returns the iteration in NAME.h5, which must have survived.
  int kill_during_write(const fs::path& input, int ranks, bool restart, int after) {
    const fs::path h5 = path(input.stem().string() + ".h5"), tmp = path(input.stem().string() + ".h5.tmp");
    std::vector<std::string> args{CYCLOCC_EXE, input.string()};
    if (restart) args.push_back("--restart");
    for (int attempt = 0; attempt < 5; ++attempt) {
      BackgroundRun run(args, dir_, ranks);
      EXPECT_TRUE(run.wait_for([&] { return last_cc_iteration(run.out()) >= after; })) << run.out() << run.err();
      const auto pids = run.processes();  // looked up before: a write takes a few milliseconds
      EXPECT_TRUE(run.wait_for([&] { return fs::exists(tmp); }, 60));
      BackgroundRun::signal(pids, SIGKILL);
      run.kill_all(SIGKILL);
      EXPECT_EQ(run.wait(), 128 + SIGKILL) << run.out();
      if (fs::exists(tmp)) {  // else the rename won the race: try again
        const int stored = stored_ccsd_iteration(h5);
        EXPECT_GE(stored, 1);
        return stored;
      }
    }
    ADD_FAILURE() << "never killed during a checkpoint write";
    return -1;
  }

  // --restart at `ranks`: continues from `stored`; returns what it computed.
  CcsdRun restart(const fs::path& input, int ranks, int stored) {
    const auto r = cyclocc({input.string(), "--restart"}, ranks);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("CCSD: continuing from iteration " + std::to_string(stored) + " of checkpoint"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find(" iter                 energy"), std::string::npos) << "the SCF ran again";
    const CcsdRun run = ccsd_run(input.stem().string() + ".json");
    EXPECT_EQ(run.iterations, stored + run.this_run);  // the count goes on
    EXPECT_EQ(last_cc_iteration(r.out), run.iterations);
    return run;
  }
};

TEST_F(KillTest, KillNineDuringCcsdAndDuringAWriteThenRestartAtAnotherRankCount) {
  const auto input = case_input("w", "h2o_ccpvdz_rhf", tight);
  auto r = cyclocc({input.string(), "--checkpoint", "reference.h5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CcsdRun reference = ccsd_run("w.json");
  ASSERT_GT(reference.iterations, 8);
  EXPECT_EQ(reference.this_run, reference.iterations);

  // Killed after iteration 5 at 2 ranks, finished at 1 rank.
  int stored = kill_after(input, 2, 5);
  CcsdRun restarted = restart(input, 0, stored);
  EXPECT_NEAR(restarted.energy, reference.energy, 1e-9);
  EXPECT_LT(restarted.this_run, reference.iterations);

  // Killed while the checkpoint is being written (w.h5.tmp exists), at 1
  // rank; w.h5 still holds the previous iteration and restarts at 2 ranks.
  stored = kill_during_write(input, 0, false, 2);
  ASSERT_GE(stored, 1);
  restarted = restart(input, 2, stored);
  EXPECT_NEAR(restarted.energy, reference.energy, 1e-9);
  EXPECT_LT(restarted.this_run, reference.iterations);
  EXPECT_FALSE(fs::exists(path("w.h5.tmp")));
}

// The scenario the checkpoint's lock is for: a kill -9 of mpirun can leave
// the ranks running, and a requeued job must not write the same checkpoint
// while they do. Then the ranks die and the restart takes over the lock
// file they leave.
TEST_F(KillTest, ASecondRunIsRefusedWhileTheFirstRunsThenTakesOver) {
  const auto input = endless_input();
  BackgroundRun first({CYCLOCC_EXE, input.string()}, dir_, 2);
  ASSERT_TRUE(first.wait_for([&] { return last_cc_iteration(first.out()) >= 2; })) << first.out() << first.err();
  const std::string json = read_text(path("w.json"));
  auto r = cyclocc({input.string(), "--restart"});
  EXPECT_EQ(r.exit_code, 4);
  expect_one_error_line(r, {"w.h5 is in use by another run (pid ", " on host ", "w.h5.lock); wait for it to end"});
  EXPECT_EQ(read_text(path("w.json")), json);  // the first run's
  first.kill_all(SIGKILL);
  ASSERT_EQ(first.wait(), 128 + SIGKILL);
  EXPECT_TRUE(fs::exists(path("w.h5.lock")));
  const int stored = stored_ccsd_iteration(path("w.h5"));
  ASSERT_GE(stored, 2);
  case_input("w", "h2o_ccpvdz_rhf", tight);
  r = cyclocc({input.string(), "--restart"}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CcsdRun restarted = ccsd_run("w.json");
  EXPECT_EQ(restarted.iterations, stored + restarted.this_run);  // went on from the first run's
  EXPECT_NEAR(restarted.energy, reference_value("h2o_ccpvdz_rhf", "ccsd_total_energy"), 1e-8);
  EXPECT_FALSE(fs::exists(path("w.h5.lock")));
}

// A lock file removed by hand while its run goes on, and then taken by
// another process: the first run, when it ends, leaves that lock alone.
// (Its exit used to remove whatever was at the name, so that a third run
// could start beside the new holder.)
TEST_F(KillTest, ALockRemovedByHandStaysWithItsNewHolder) {
  const auto input = endless_input();
  BackgroundRun first({CYCLOCC_EXE, input.string()}, dir_, 0);
  ASSERT_TRUE(first.wait_for([&] { return last_cc_iteration(first.out()) >= 2; })) << first.out() << first.err();
  ASSERT_TRUE(fs::remove(path("w.h5.lock")));
  const std::string holder = "pid 43 on host here, started at 09:00\n";
  const int fd = hold_lock(path("w.h5.lock"), holder);
  ASSERT_GE(fd, 0);
  first.signal_launcher(SIGUSR1);
  EXPECT_EQ(first.wait(), 5) << first.err();
  EXPECT_EQ(read_text(path("w.h5.lock")), holder);
  const auto r = cyclocc({input.string(), "--restart"});
  EXPECT_EQ(r.exit_code, 4);
  expect_one_error_line(r, {"w.h5 is in use by another run (pid 43 on host here"});
  ::close(fd);
}

// Several kills in one calculation, each restart at another rank count, on
// a larger basis.
TEST_F(KillTest, KillNineAtSeveralMomentsAndRankCounts) {
  const auto input = case_input("wa", "h2o_ccpvdz_rhf", [](YAML::Node& in) {
    in["basis"] = "aug-cc-pvdz";
    tight(in);
  });
  auto r = cyclocc({input.string(), "--checkpoint", "reference.h5"}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CcsdRun reference = ccsd_run("wa.json");
  ASSERT_GT(reference.iterations, 10);

  int stored = kill_after(input, 2, 2);
  const std::vector<std::pair<int, int>> steps = {{3, 5}, {0, 8}};  // {ranks, kill after}
  for (const auto& [ranks, after] : steps) {
    BackgroundRun run({CYCLOCC_EXE, input.string(), "--restart"}, dir_, ranks);
    ASSERT_TRUE(run.wait_for([&] { return last_cc_iteration(run.out()) >= after; })) << run.out() << run.err();
    EXPECT_NE(run.out().find("continuing from iteration " + std::to_string(stored)), std::string::npos);
    run.kill_all(SIGKILL);
    ASSERT_EQ(run.wait(), 128 + SIGKILL);
    const int now = stored_ccsd_iteration(path("wa.h5"));
    EXPECT_GT(now, stored);
    stored = now;
  }
  const CcsdRun restarted = restart(input, 2, stored);
  EXPECT_NEAR(restarted.energy, reference.energy, 1e-9);
  EXPECT_LT(restarted.this_run, reference.iterations);
}

// cc.max_iterations bounds the total: a run that stops unconverged has
// written its last iteration (not only every checkpoint.interval), and a
// restart with more iterations allowed goes on from there. A converged
// method is then not iterated again.
TEST_F(RestartTest, UnconvergedRunContinuesAndAConvergedOneIsNotIteratedAgain) {
  const double e_ref = reference_value(kWaterCase, "ccsd_total_energy");
  auto input = case_input("w", kWaterCase, [](YAML::Node& in) {
    in["cc"]["max_iterations"] = 4;
    in["checkpoint"]["interval"] = 3;
  });
  auto r = cyclocc({input.string()}, 2);
  ASSERT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(stored_ccsd_iteration(path("w.h5")), 4);
  EXPECT_EQ(attribute(path("w.h5"), "/ccsd", "converged"), 0.0);
  // The log's checkpoint column: written at iteration 3 (the interval) only;
  // iteration 4's write follows the table.
  std::vector<int> written;
  for (const CcRow& row : cc_rows(r.out))
    if (row.checkpoint_seconds >= 0) written.push_back(row.iteration);
  EXPECT_EQ(written, std::vector<int>{3}) << r.out;
  EXPECT_NE(r.out.find("checkpoint: CCSD amplitudes of iteration 4 written to"), std::string::npos) << r.out;
  // The unconverged run's results hold its iterations' times too.
  const YAML::Node failed = results("w.json");
  EXPECT_EQ(failed["error"]["error_type"].as<std::string>(), "convergence_error");
  EXPECT_EQ(failed["extras"]["timings"]["cc_iterations"].size(), 4u);

  input = case_input("w", kWaterCase);
  r = cyclocc({input.string(), "--restart"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CCSD: continuing from iteration 4 of checkpoint"), std::string::npos) << r.out;
  const CcsdRun done = ccsd_run("w.json");
  EXPECT_EQ(done.iterations, 4 + done.this_run);
  // Every iteration wrote (interval 1): the log's checkpoint column adds up to
  // extras.timings.cc_checkpoint (3 decimals each), which the iteration times include.
  const auto rows = cc_rows(r.out);
  ASSERT_EQ(static_cast<int>(rows.size()), done.this_run);
  double logged = 0;
  for (const CcRow& row : rows) {
    EXPECT_GE(row.checkpoint_seconds, 0.0) << "iteration " << row.iteration << " not written";
    logged += row.checkpoint_seconds;
  }
  const YAML::Node timings = results("w.json")["extras"]["timings"];
  const double writes = timings["cc_checkpoint"].as<double>();
  EXPECT_GT(writes, 0.0);
  EXPECT_NEAR(logged, writes, 0.0005 * static_cast<double>(rows.size()) + 1e-12);
  double iterations = 0;
  for (const auto& t : timings["cc_iterations"]) iterations += t.as<double>();
  EXPECT_LE(writes, iterations);
  EXPECT_NEAR(done.energy, e_ref, 1e-8);  // the reference set's tolerance
  EXPECT_EQ(attribute(path("w.h5"), "/ccsd", "converged"), 1.0);

  const std::string converged_file = read_text(path("w.h5"));
  r = cyclocc({input.string(), "--restart"}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CCSD: converged amplitudes in checkpoint"), std::string::npos) << r.out;
  EXPECT_EQ(last_cc_iteration(r.out), 0) << r.out;
  const CcsdRun again = ccsd_run("w.json");
  EXPECT_EQ(again.energy, done.energy);  // the stored energy, bit for bit
  EXPECT_EQ(again.iterations, done.iterations);
  EXPECT_EQ(again.this_run, 0);
  EXPECT_EQ(read_text(path("w.h5")), converged_file);  // nothing new to write
}

// A CCSDT restart with a tighter cc.convergence goes on from its own stored
// amplitudes; the CCSD it started from is not judged again by the new
// threshold (it was "CCSD did not converge", exit 3: a review's finding).
TEST_F(RestartTest, CcsdtWithATighterThresholdGoesOnFromItsOwnAmplitudes) {
  auto input = case_input("t", kWaterCase, [](YAML::Node& in) { in["cc"]["method"] = "ccsdt"; });
  auto r = cyclocc({input.string()}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const YAML::Node first = results("t.json")["properties"];
  input = case_input("t", kWaterCase, [](YAML::Node& in) {
    in["cc"]["method"] = "ccsdt";
    in["cc"]["convergence"] = 1e-11;
  });
  r = cyclocc({input.string(), "--restart"}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("CCSD (stored, before CCSDT)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CCSDT: continuing from iteration"), std::string::npos) << r.out;
  const YAML::Node again = results("t.json")["properties"];
  EXPECT_EQ(again["ccsd_total_energy"].as<double>(), first["ccsd_total_energy"].as<double>());
  EXPECT_EQ(again["ccsd_iterations"].as<int>(), first["ccsd_iterations"].as<int>());
  EXPECT_GT(again["ccsdt_iterations"].as<int>(), first["ccsdt_iterations"].as<int>());
  EXPECT_NEAR(again["ccsdt_total_energy"].as<double>(),
              reference_value("h2o_sto3g_rhf_ccsdt", "ccsdt_total_energy"), 1e-8);
}

// DESIGN.md §8: another frozen core reuses the SCF and starts the amplitudes fresh.
TEST_F(RestartTest, AnotherFrozenCoreReusesTheScfAndStartsTheAmplitudesFresh) {
  const double e_ref = reference_value("h2o_ccpvdz_rhf_fc1", "ccsd_total_energy");
  const auto all = case_input("w", "h2o_ccpvdz_rhf", tight);
  auto r = cyclocc({all.string()}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(attribute(path("w.h5"), "/ccsd", "frozen_alpha"), 0.0);

  const auto frozen = case_input("w", "h2o_ccpvdz_rhf", [](YAML::Node& in) {
    tight(in);
    in["cc"]["frozen_core"] = true;
  });
  r = cyclocc({frozen.string(), "--restart"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SCF: reusing the orbitals of checkpoint"), std::string::npos) << r.out;
  const std::string fresh = "CCSD: not reusing the amplitudes of checkpoint " + path("w.h5").string() +
                            " (frozen orbitals 0+0 in the checkpoint, 1+1 in this run); starting them fresh";
  EXPECT_NE(r.out.find("warning: " + fresh + "\n"), std::string::npos) << r.out;
  ASSERT_EQ(results("w.json")["extras"]["warnings"].size(), 1u);
  EXPECT_EQ(results("w.json")["extras"]["warnings"][0].as<std::string>(), fresh);
  EXPECT_TRUE(results("w.json")["extras"]["scf_from_checkpoint"].as<bool>());
  const CcsdRun fc = ccsd_run("w.json");
  EXPECT_EQ(fc.iterations, fc.this_run);  // fresh
  EXPECT_NEAR(fc.energy, e_ref, 1e-8);    // the reference set's tolerance

  // A fresh frozen-core run elsewhere agrees to 1e-9.
  r = cyclocc({frozen.string(), "--checkpoint", "fresh.h5", "--json", "fresh.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(fc.energy, ccsd_run("fresh.json").energy, 1e-9);
  // The checkpoint now holds the frozen-core amplitudes, converged.
  EXPECT_EQ(attribute(path("w.h5"), "/ccsd", "frozen_alpha"), 1.0);
  EXPECT_EQ(stored_ccsd_iteration(path("w.h5")), fc.iterations);
}

// The water dimer (cc-pVDZ, geometry of the peers' benchmark P2, bohr):
// killed during checkpoint writes at 3 ranks and again at 1 rank, finished
// at 2 ranks.
TEST_F(KillTest, SlowKillNineDuringWritesOfTheWaterDimer) {
  const auto input = case_input("d", "h2o_ccpvdz_rhf", [](YAML::Node& in) {
    in["title"] = "(H2O)2 cc-pVDZ";
    in["molecule"]["geometry"] =
        "O -2.930978447377 -0.216411435792 0.000000000000\n"
        "H -3.655219764093  1.440921839206 0.000000000000\n"
        "H -1.133225293237  0.076934529986 0.000000000000\n"
        "O  2.552311347073  0.210645881386 0.000000000000\n"
        "H  3.175492000369 -0.706268131544 -1.433472538822\n"
        "H  3.175492000369 -0.706268131544 1.433472538822\n";
    tight(in);
  });
  auto r = cyclocc({input.string(), "--checkpoint", "reference.h5"}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CcsdRun reference = ccsd_run("d.json");
  ASSERT_GT(reference.iterations, 10);

  int stored = kill_during_write(input, 3, false, 3);
  ASSERT_GE(stored, 3);
  const int before = stored;
  stored = kill_during_write(input, 0, true, stored + 3);
  EXPECT_GT(stored, before);
  const CcsdRun restarted = restart(input, 2, stored);
  EXPECT_NEAR(restarted.energy, reference.energy, 1e-9);
  EXPECT_LT(restarted.this_run, reference.iterations);
}

// A run killed after a warning leaves the warning in its results file: the
// file that says the run has not finished is written again after each one.
TEST_F(KillTest, KilledRunLeavesItsWarningsInItsResults) {
  const auto input = case_input("warned", "h2o_ccpvdz_rhf", tight);
  BackgroundRun run({CYCLOCC_EXE, input.string(), "--restart"}, dir_, 2);  // no checkpoint yet: a warning
  EXPECT_TRUE(run.wait_for([&] { return last_cc_iteration(run.out()) >= 2; })) << run.out() << run.err();
  run.kill_all(SIGKILL);
  EXPECT_EQ(run.wait(), 128 + SIGKILL) << "the run ended before the kill:\n" << run.out();
  const YAML::Node j = results("warned.json");
  EXPECT_FALSE(j["success"].as<bool>());
  EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "interrupted");
  ASSERT_EQ(j["extras"]["warnings"].size(), 1u);
  EXPECT_EQ(j["extras"]["warnings"][0].as<std::string>(),
            "--restart: no checkpoint " + path("warned.h5").string() + ", starting from the beginning");
}
