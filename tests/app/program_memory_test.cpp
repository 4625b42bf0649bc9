// The memory lines of a CC run's log (app/run_memory.hpp): after three
// iterations, the peak so far and what the DIIS history still adds.
#include <regex>

#include "tests/app/program_fixture.hpp"

namespace cyclocc::app_test {
namespace {

// Water cc-pVDZ (5 occupied, 19 virtual orbitals, restricted): the words of
// one set of amplitudes, every spin block as stored (t1 aa and bb, t2 aaaa
// and bbbb over pairs i < j, a < b, and abab).
double water_amplitude_words() {
  const double o = 5, v = 19;
  return 2 * o * v + 2 * (o * (o - 1) / 2) * (v * (v - 1) / 2) + o * o * v * v;
}

TEST_F(ProgramTest, CcsdLogsWhatTheDiisHistoryStillAdds) {
  const auto input = water_input("w", [](YAML::Node& in) {
    in["basis"] = "cc-pvdz";
    in["cc"]["method"] = "ccsd";
  });
  const std::regex line(
      R"(\n    3 [^\n]*\nCCSD: peak memory (\d+) MB per rank after 3 iterations; the DIIS history \(3 of 8 vector pairs )"
      R"(so far, ([0-9.]+) MB per rank each\) adds up to ([0-9.]+) MB more: about (\d+) MB at the peak\n    4 )");
  for (int ranks : {0, 2}) {
    const auto r = cyclocc({input.string()}, ranks);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, line)) << r.out;
    const double peak = std::stod(m[1]), pair = std::stod(m[2]), more = std::stod(m[3]), about = std::stod(m[4]);
    // A pair is the amplitudes and their change, each the largest rank's share.
    const double expected_pair = 2 * 8 * water_amplitude_words() / (ranks == 0 ? 1 : ranks) / 1048576;
    EXPECT_NEAR(pair, expected_pair, 0.05 + 0.02 * expected_pair) << "ranks " << ranks;
    EXPECT_NEAR(more, 5 * expected_pair, 0.05 + 0.1 * expected_pair) << "ranks " << ranks;
    EXPECT_NEAR(about, peak + more, 1.0);
    const double final_peak = results("w.json")["extras"]["peak_memory_mb"].as<double>();
    EXPECT_GT(peak, 10.0);
    EXPECT_LE(peak, final_peak + 1.0);
  }
  // With a history of 3 pairs it is full after three iterations: no line.
  const auto full = water_input("full", [](YAML::Node& in) {
    in["basis"] = "cc-pvdz";
    in["cc"]["method"] = "ccsd";
    in["cc"]["diis"] = 3;
  });
  const auto r = cyclocc({full.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("DIIS history"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cyclocc::app_test
