// The memory lines of a CC run's log (app/run_memory.hpp): after three
// iterations, the peak so far and what the DIIS history still adds.
#include <functional>
#include <regex>
#include <string>

#include "tests/app/program_fixture.hpp"

namespace cyclocc::app_test {
namespace {

// Water cc-pVDZ (5 occupied, 19 virtual orbitals, restricted): the words of
// one pair of the DIIS history as it stores them. The amplitudes and their
// change keep the computed blocks t1 aa and t2 abab; the others (t1 bb, t2
// aaaa and bbbb) are filled from them when read (SpinTensor::derived), and
// allocated only then. The change's norm and overlaps count t2 aaaa and
// bbbb (DESIGN.md §8: every block counts) from t2 abab, without filling them.
double water_pair_words() {
  const double o = 5, v = 19;
  const double computed = o * v + o * o * v * v;
  return computed + computed;
}

class MemoryLineTest : public ProgramTest {
 protected:
  // Water cc-pVDZ CCSD with `edit` applied: the log.
  std::string water_ccsd_log(const std::string& name, int ranks,
                             const std::function<void(YAML::Node&)>& edit = [](YAML::Node&) {}, int exit_code = 0) {
    const auto input = water_input(name, [&](YAML::Node& in) {
      in["basis"] = "cc-pvdz";
      in["cc"]["method"] = "ccsd";
      edit(in);
    });
    const auto r = cyclocc({input.string()}, ranks);
    EXPECT_EQ(r.exit_code, exit_code) << r.err;
    return r.out;
  }
};

TEST_F(MemoryLineTest, CcsdLogsWhatTheDiisHistoryStillAdds) {
  const std::regex line(
      R"(\n    3 [^\n]*\nCCSD: peak memory after 3 iterations: (\d+) MB per rank, with 2 DIIS vector pairs of )"
      R"(([0-9.]+) MB per rank held; with (\d+) held, up to about (\d+) MB\n    4 )");
  for (int ranks : {0, 2}) {
    const std::string out = water_ccsd_log("w", ranks);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, line)) << out;
    const double peak = std::stod(m[1]), pair = std::stod(m[2]), about = std::stod(m[4]);
    // A pair is the amplitudes and their change, each the largest rank's
    // share; the default history holds 8 pairs.
    const double expected_pair = 8 * water_pair_words() / (ranks == 0 ? 1 : ranks) / 1048576;
    EXPECT_NEAR(pair, expected_pair, 0.005 + 0.01 * expected_pair) << "ranks " << ranks;
    EXPECT_EQ(std::stoi(m[3]), 8);
    EXPECT_NEAR(about, peak + 6 * pair, 0.51);
    const double final_peak = results("w.json")["extras"]["peak_memory_mb"].as<double>();
    EXPECT_GT(peak, 10.0);
    EXPECT_LE(peak, final_peak + 1.0);
  }
  // Fewer iterations left than room in the history: the last residual sees
  // 5 pairs (6 iterations do not converge: exit 3).
  std::string out = water_ccsd_log(
      "short", 0,
      [](YAML::Node& in) {
        in["cc"]["diis"] = 20;
        in["cc"]["max_iterations"] = 6;
      },
      3);
  EXPECT_NE(out.find(" MB per rank held; with 5 held, up to about "), std::string::npos) << out;
  // A history of 2 pairs is full after three iterations; with 1 or 0 DIIS is off.
  out = water_ccsd_log("full", 0, [](YAML::Node& in) { in["cc"]["diis"] = 2; });
  EXPECT_NE(out.find(" MB per rank, with the DIIS history full (2 vector pairs)\n"), std::string::npos) << out;
  for (int diis : {0, 1}) {
    out = water_ccsd_log("off", 0, [&](YAML::Node& in) { in["cc"]["diis"] = diis; });
    EXPECT_NE(out.find("CCSD: convergence 1.0e-09 on |dE| and |dT|, no DIIS,"), std::string::npos) << out;
    EXPECT_NE(out.find("\nCCSD: peak memory after 3 iterations: "), std::string::npos) << out;
    EXPECT_NE(out.find(" MB per rank (no DIIS)\n"), std::string::npos) << out;
  }
  // No line when the third iteration ends the method.
  out = water_ccsd_log("ends", 0, [](YAML::Node& in) { in["cc"]["convergence"] = 0.05; });
  EXPECT_EQ(out.find("peak memory after"), std::string::npos) << out;
}

}  // namespace
}  // namespace cyclocc::app_test
