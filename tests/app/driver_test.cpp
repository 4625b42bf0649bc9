// The driver in-process: a stop signal ends the run at the next safe point
// (after an SCF iteration, or in the MO transform when the SCF is restored),
// on every rank, with exit code 5 and a results file.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "app/driver.hpp"
#include "tests/app/world.hpp"

using namespace cyclocc;
namespace fs = std::filesystem;

namespace {

// Rank 0 writes the water STO-3G case with the given cc.method into a fresh
// folder; every rank gets the input's path.
std::string water_input(const par::Comm& comm, const std::string& method) {
  std::string path;
  if (comm.root()) {
    const fs::path dir = fs::temp_directory_path() / ("cyclocc_driver_test_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    YAML::Node in = YAML::LoadFile(std::string(CYCLOCC_SOURCE_DIR) + "/regression/cases/h2o_sto3g_rhf.yaml");
    in["cc"]["method"] = method;
    YAML::Emitter out;
    out << in;
    path = (dir / "water.yaml").string();
    std::ofstream(path) << out.c_str() << "\n";
  }
  comm.bcast(path, 0);
  return path;
}

// The error message of a stopped run's results file (water.json in `dir`),
// after checking what every stopped run writes there.
std::string interrupted_message(const fs::path& dir) {
  const YAML::Node j = YAML::LoadFile((dir / "water.json").string());
  EXPECT_FALSE(j["success"].as<bool>());
  EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "interrupted");
  const auto message = j["error"]["error_message"].as<std::string>();
  EXPECT_NE(message.find("--restart"), std::string::npos) << message;
  return message;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void remove_folder(const par::Comm& comm, const std::string& input) {
  comm.barrier();
  if (comm.root()) fs::remove_all(fs::path(input).parent_path());
}

// One test's water case (cc.method `method`) in a fresh folder, with the
// signal handlers installed as main() installs them and no stop pending.
struct WaterRun {
  explicit WaterRun(const std::string& method)
      : comm(app_test::world()), input(water_input(comm, method)), dir(fs::path(input).parent_path()) {
    app::install_signal_handlers();
    stop.clear();
    options.input = input;
  }
  ~WaterRun() {
    stop.clear();
    remove_folder(comm, input);
  }
  // Runs the driver; a stop it ended with is forgotten afterwards.
  int run() {
    const int code = app::run(comm, options, stop);
    stop.clear();
    return code;
  }
  const par::Comm& comm;
  const std::string input;
  const fs::path dir;
  app::StopRequest stop;
  app::CliOptions options;
};

}  // namespace

// A signal pending from the start stops every rank at the SCF's first safe
// point, after iteration 1, with those orbitals in the checkpoint; --restart
// goes on from them to the energy of a run that was not stopped.
TEST(Driver, ASignalOnOneRankStopsEveryRankInTheScfAndTheRestartGoesOn) {
  WaterRun w("ccsd");
  const std::string h5 = (w.dir / "water.h5").string();
  if (w.comm.rank() == w.comm.size() - 1) std::raise(SIGUSR1);
  testing::internal::CaptureStdout();
  EXPECT_EQ(w.run(), 5);
  std::string log = testing::internal::GetCapturedStdout();
  if (w.comm.root()) {
    // The log says why the run ended, as the CC stops do.
    EXPECT_NE(log.find("SIGUSR1 received during the SCF, after iteration 1: stopping; the checkpoint " + h5 +
                       " holds its orbitals"),
              std::string::npos)
        << log;
    EXPECT_TRUE(fs::exists(h5));
    const auto message = interrupted_message(w.dir);
    EXPECT_NE(message.find("stopped by SIGUSR1 during the SCF, after iteration 1"), std::string::npos) << message;
    const YAML::Node j = YAML::LoadFile((w.dir / "water.json").string());
    EXPECT_EQ(j["properties"]["scf_iterations"].as<int>(), 1);
    EXPECT_FALSE(j["properties"]["scf_total_energy"].IsDefined());  // not an SCF energy yet
    EXPECT_GT(j["extras"]["timings"]["scf"].as<double>(), 0);
  }

  w.options.restart = true;
  testing::internal::CaptureStdout();
  ASSERT_EQ(w.run(), 0);
  log = testing::internal::GetCapturedStdout();
  const auto energies = [&w] {
    const YAML::Node p = YAML::LoadFile((w.dir / "water.json").string())["properties"];
    return std::make_pair(p["scf_total_energy"].as<double>(), p["ccsd_total_energy"].as<double>());
  };
  std::pair<double, double> resumed;
  if (w.comm.root()) {
    EXPECT_NE(log.find("SCF: going on from the orbitals of checkpoint " + h5 +
                       ", where a stop signal ended the SCF after iteration 1"),
              std::string::npos)
        << log;
    resumed = energies();
  }
  w.options.restart = false;  // from the beginning, not stopped
  ASSERT_EQ(w.run(), 0);
  if (w.comm.root()) {
    const auto straight = energies();
    EXPECT_NEAR(resumed.first, straight.first, 1e-10);
    EXPECT_NEAR(resumed.second, straight.second, 1e-10);
  }
}

// Without --restart a run may not know the checkpoint it finds: a stop in
// its SCF leaves that file as it was (only a converged SCF replaces it).
TEST(Driver, AStopInTheScfWithoutRestartLeavesAnExistingCheckpoint) {
  WaterRun w("none");
  ASSERT_EQ(w.run(), 0);
  const std::string before = w.comm.root() ? bytes_of(w.dir / "water.h5") : "";
  if (w.comm.root()) std::raise(SIGTERM);
  EXPECT_EQ(w.run(), 5);
  if (w.comm.root()) {
    EXPECT_EQ(bytes_of(w.dir / "water.h5"), before);
    const YAML::Node j = YAML::LoadFile((w.dir / "water.json").string());
    EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "interrupted");
    const auto message = j["error"]["error_message"].as<std::string>();
    EXPECT_NE(message.find("stopped by SIGTERM during the SCF, after iteration 1; the existing checkpoint " +
                           (w.dir / "water.h5").string() + " was left as it was"),
              std::string::npos)
        << message;
  }
}

// A restart reuses the SCF and the converged CCSD amplitudes, so the MO
// transform is the first stage with work to do: a signal that is already
// pending stops every rank at its first safe point, after the AO integrals,
// and leaves the checkpoint as it was.
TEST(Driver, ASignalDuringTheMoTransformStopsEveryRankThere) {
  WaterRun w("ccsd");
  ASSERT_EQ(w.run(), 0);
  const std::string before = w.comm.root() ? bytes_of(w.dir / "water.h5") : "";
  if (w.comm.rank() == w.comm.size() - 1) std::raise(SIGUSR1);
  w.options.restart = true;
  EXPECT_EQ(w.run(), 5);
  if (w.comm.root()) {
    EXPECT_EQ(bytes_of(w.dir / "water.h5"), before);
    const auto message = interrupted_message(w.dir);
    EXPECT_NE(message.find("stopped by SIGUSR1 during the MO transform"), std::string::npos) << message;
    EXPECT_FALSE(YAML::LoadFile((w.dir / "water.json").string())["properties"]["mp2_total_energy"].IsDefined());
  }
}

namespace {
// This process's peak resident set size in kB (VmHWM of /proc/self/status).
double peak_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6));
  return -1;
}
}  // namespace

// The peak memory in the results file is the largest rank's, in MB (and an
// MP2 run's timings are as documented): at least
// this rank's peak before the run, at most the largest peak after it (the
// water case is small, so the test first raises one rank's peak by 64 MB).
TEST(Driver, ThePeakMemoryIsTheLargestRanksInMegabytes) {
  WaterRun w("mp2");
  if (w.comm.rank() == w.comm.size() - 1) {
    std::vector<char> touched(64 << 20, 1);
    EXPECT_EQ(touched[touched.size() / 2], 1);
  }
  const double before = peak_kb();
  ASSERT_GT(before, 0);
  ASSERT_EQ(w.run(), 0);
  const double after = w.comm.allreduce_max(peak_kb());
  double reported = 0;
  if (w.comm.root()) {
    const YAML::Node j = YAML::LoadFile((w.dir / "water.json").string());
    reported = j["extras"]["peak_memory_mb"].as<double>();
    // MP2 does not iterate and writes no amplitudes (docs/results.md).
    const YAML::Node timings = j["extras"]["timings"];
    EXPECT_TRUE(timings["cc_iterations"].IsSequence());
    EXPECT_EQ(timings["cc_iterations"].size(), 0u);
    EXPECT_FALSE(timings["cc_checkpoint"].IsDefined());
  }
  w.comm.bcast(&reported, sizeof reported, 0);
  // 1 MB: the kernel syncs each thread's resident-page count lazily (up to
  // 64 pages), so getrusage and /proc may differ by a few hundred kB; a unit
  // or rank mistake is off by far more.
  EXPECT_GE(reported, before / 1024.0 - 1.0);
  EXPECT_LE(reported, after / 1024.0 + 1.0);
}

// With the SCF restored (no iterations, so no safe point) there is nothing
// left to do after it: a pending signal does not turn the success into a stop.
TEST(Driver, ASignalAfterTheLastStageDoesNotSpoilASuccess) {
  WaterRun w("none");
  ASSERT_EQ(w.run(), 0);
  if (w.comm.root()) std::raise(SIGTERM);
  w.options.restart = true;
  EXPECT_EQ(w.run(), 0);
}
