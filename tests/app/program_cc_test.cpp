// What a CCSD run reports besides its energies: the correlation energies by
// the spins of the electron pairs, the singles diagnostics (in the log and
// the results file) and the largest amplitudes (in the log). Reference
// values: Psi4 1.3.2 with the inputs regression/cases/*_pairs.psi4.dat
// (their RES lines "CC T1 DIAGNOSTIC" and "CC D1 DIAGNOSTIC", and the
// Largest TIA/TIjAb lists of their output; references_here.yaml has the pair
// energies).
#include <cmath>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "tests/app/program_fixture.hpp"

namespace cyclocc::app_test {
namespace {

class CcReportTest : public ProgramTest {
 protected:
  // A regression case's input with cc.method ccsd (and `edit`): its results.
  YAML::Node ccsd(const std::string& regression_case, const std::string& name, std::string* log = nullptr,
                  const std::function<void(YAML::Node&)>& edit = [](YAML::Node&) {}) {
    const auto r = cyclocc({case_input(name, regression_case, edit).string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (log) *log = r.out;
    return results(name + ".json");
  }
};

double number(const YAML::Node& n) { return n.as<double>(); }

TEST_F(CcReportTest, PairEnergiesAddUpToTheCorrelationEnergies) {
  std::string log;
  const YAML::Node p = ccsd("h2o_ccpvdz_rhf", "w", &log)["properties"];
  for (const std::string m : {"mp2", "ccsd"}) {
    const double same = number(p[m + "_same_spin_correlation_energy"]);
    const double opposite = number(p[m + "_opposite_spin_correlation_energy"]);
    EXPECT_NEAR(same + opposite, number(p[m + "_correlation_energy"]), 1e-11) << m;
    char line[160];
    std::snprintf(line, sizeof line, " correlation energy of same-spin pairs %.12f, of opposite-spin pairs %.12f\n",
                  same, opposite);
    EXPECT_NE(log.find((m == "mp2" ? "MP2" : "CCSD") + std::string(line)), std::string::npos) << log;
  }
}

TEST_F(CcReportTest, SinglesDiagnosticsAreThoseOfPsi4) {
  std::string log;
  const YAML::Node rhf = ccsd("h2o_ccpvdz_rhf", "rhf", &log)["extras"];
  EXPECT_NEAR(number(rhf["ccsd_t1_diagnostic"]), 0.005252942629, 1e-8);
  EXPECT_NEAR(number(rhf["ccsd_d1_diagnostic"]), 0.011087451770, 1e-8);
  EXPECT_NE(log.find("CCSD T1 diagnostic 0.005253, D1 diagnostic 0.011087\n"), std::string::npos) << log;

  // Psi4 gives sqrt(2) times the closed-shell formula's value for UHF; D1
  // is for closed shells only.
  const YAML::Node uhf = ccsd("ch2_triplet_ccpvdz_uhf", "uhf", &log)["extras"];
  EXPECT_NEAR(std::sqrt(2.0) * number(uhf["ccsd_t1_diagnostic"]), 0.010960230463, 1e-8);
  EXPECT_FALSE(uhf["ccsd_d1_diagnostic"].IsDefined());
  EXPECT_NE(log.find("CCSD T1 diagnostic 0.007750\n"), std::string::npos) << log;

  // With the O 1s frozen: N = 8 correlated electrons.
  const YAML::Node fc = ccsd("h2o_ccpvdz_rhf_fc1", "fc", nullptr)["extras"];
  EXPECT_NEAR(number(fc["ccsd_t1_diagnostic"]), 0.005888954605, 1e-8);
  EXPECT_NEAR(number(fc["ccsd_d1_diagnostic"]), 0.011132635715, 1e-8);

  // A closed shell has one T1 diagnostic, whichever the reference.
  const YAML::Node same = ccsd("h2o_ccpvdz_rhf", "uhf_water", nullptr, [](YAML::Node& in) {
    in["scf"]["reference"] = "uhf";
  })["extras"];
  EXPECT_NEAR(number(same["ccsd_t1_diagnostic"]), number(rhf["ccsd_t1_diagnostic"]), 1e-9);
}

// The log's largest amplitudes against Psi4's "Largest TIA Amplitudes" and
// "Largest TIjAb Amplitudes" of the same run (its orbitals counted from 0
// within the occupied and the virtual ones; the signs of t1 depend on the
// orbitals' phases, so magnitudes are compared).
using Listed = std::vector<std::pair<std::string, double>>;  // orbitals, amplitude

// The log's t1 and t2 lines of the largest amplitudes.
std::pair<Listed, Listed> largest_amplitudes(const std::string& log) {
  const std::regex row(R"(\n  (t[12]) +([0-9ab ]+?) -> ([0-9ab ]+?) +(-?[0-9.]+)(?=\n))");
  Listed t1, t2;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), row); it != std::sregex_iterator(); ++it) {
    auto& list = (*it)[1] == "t1" ? t1 : t2;
    list.emplace_back((*it)[2].str() + " -> " + (*it)[3].str(), std::stod((*it)[4]));
  }
  return {t1, t2};
}

TEST_F(CcReportTest, LargestAmplitudesAreThoseOfPsi4) {
  std::string log;
  ccsd("h2o_ccpvdz_rhf", "w", &log);
  const auto [t1, t2] = largest_amplitudes(log);
  const std::vector<std::pair<std::string, double>> psi4_t1{
      {"4a -> 6a", 0.0073544958},  {"3a -> 18a", 0.0073218461}, {"3a -> 7a", 0.0059424683},
      {"4a -> 19a", 0.0049900510}, {"3a -> 12a", 0.0045392597}, {"2a -> 10a", 0.0042412721},
      {"2a -> 6a", 0.0039192966},  {"5a -> 15a", 0.0032768919}, {"5a -> 11a", 0.0030517942},
      {"4a -> 9a", 0.0029505406}};
  ASSERT_EQ(t1.size(), psi4_t1.size()) << log;
  for (std::size_t n = 0; n < t1.size(); ++n) {
    EXPECT_EQ(t1[n].first, psi4_t1[n].first) << n;
    EXPECT_NEAR(std::abs(t1[n].second), psi4_t1[n].second, 2e-9) << n;
  }
  // The alpha-beta t2 (Psi4's TIjAb); the tied pairs t_ij^ab = t_ji^ba have one magnitude.
  const double psi4_t2[] = {0.0513864578, 0.0360969742, 0.0353831606, 0.0292724507, 0.0285964900,
                            0.0285964900, 0.0283598381, 0.0256324865, 0.0227836832, 0.0227836832};
  ASSERT_EQ(t2.size(), 10u) << log;
  for (std::size_t n = 0; n < t2.size(); ++n) EXPECT_NEAR(std::abs(t2[n].second), psi4_t2[n], 2e-9) << n;
  EXPECT_EQ(t2[0].first, "5a 5b -> 11a 11b");  // Psi4: 4 4 5 5 -0.0513864578
  EXPECT_NEAR(t2[0].second, -0.0513864578, 2e-9);
  EXPECT_EQ(t2[1].first, "3a 3b -> 8a 8b");  // 2 2 2 2 -0.0360969742
  EXPECT_NEAR(t2[1].second, -0.0360969742, 2e-9);

  // Frozen O 1s: the orbitals keep their numbers (Psi4: 3 3 5 5 -0.0514057206).
  const YAML::Node keywords = ccsd("h2o_ccpvdz_rhf_fc1", "fc", &log)["keywords"];
  EXPECT_EQ(keywords["frozen_core"].as<int>(), 1);
  EXPECT_TRUE(keywords["puream"].as<bool>());
  EXPECT_EQ(keywords["reference"].as<std::string>(), "rhf");
  EXPECT_EQ(keywords["cc_convergence"].as<double>(), 1e-9);
  EXPECT_NE(log.find("MO transform: 1+1 frozen, 4+4 active occupied, 19+19 virtual orbitals"), std::string::npos)
      << log;
  const auto fc = largest_amplitudes(log).second;
  ASSERT_FALSE(fc.empty()) << log;
  EXPECT_EQ(fc[0].first, "5a 5b -> 11a 11b");
  EXPECT_NEAR(fc[0].second, -0.0514057206, 2e-9);

  // UHF CH2 (5 alpha, 3 beta occupied): the largest t2 of all spin cases is
  // Psi4's TIjAb 2 2 2 4 -0.0363640941; its sign depends on four orbitals' phases.
  ccsd("ch2_triplet_ccpvdz_uhf", "uhf", &log);
  const auto [u1, u2] = largest_amplitudes(log);
  ASSERT_FALSE(u1.empty() || u2.empty()) << log;
  EXPECT_EQ(u2[0].first, "3a 3b -> 8a 8b");
  EXPECT_NEAR(std::abs(u2[0].second), 0.0363640941, 2e-9);
  EXPECT_EQ(u1[0].first, "2b -> 4b");  // Psi4's Tia 1 0 0.0156027144 (the largest of TIA and Tia)
  EXPECT_NEAR(std::abs(u1[0].second), 0.0156027144, 2e-9);
}

// Amplitudes that vanish are not listed: the Li atom with its 1s frozen has
// one electron left, for which UHF is exact (t1 = 0, and no t2).
TEST_F(CcReportTest, ZeroAmplitudesAreNotListed) {
  const auto input = water_input("li", [](YAML::Node& in) {
    in["molecule"]["geometry"] = "Li 0 0 0\n";
    in["molecule"]["multiplicity"] = 2;
    in["basis"] = "cc-pvdz";
    in["scf"]["reference"] = "uhf";
    in["cc"]["method"] = "ccsd";
    in["cc"]["frozen_core"] = true;
  });
  const auto r = cyclocc({input.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("MO transform: 1+1 frozen, 1+0 active occupied"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  t2 none above 1e-9\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  t1 none above 1e-9\n"), std::string::npos) << r.out;
  const auto [t1, t2] = largest_amplitudes(r.out);
  EXPECT_TRUE(t1.empty() && t2.empty()) << r.out;
  EXPECT_EQ(results("li.json")["keywords"]["frozen_core"].as<int>(), 1);
}

// The list is the same on any number of ranks: the SCF fixes each
// orbital's sign, and amplitudes equal but for rounding are ordered by their
// orbitals (H2O with frozen core and OH UHF listed differently at 1 and 2
// ranks before). The open-shell case is CH2 (triplet, C2v), not OH: OH's
// 2Pi UHF solution is fixed only up to a rotation about the bond (where the
// unpaired pi electron points), which rounding decides, so its orbitals and
// amplitudes may differ between rank counts with the same energy (seen on a
// Zen 4 machine, where 1 and 2 ranks reached rotated solutions).
TEST_F(CcReportTest, LargestAmplitudesDoNotDependOnTheRankCount) {
  auto listed = [&](const std::string& regression_case, int ranks) {
    const std::string name = regression_case + "_" + std::to_string(ranks);
    const auto r = cyclocc({case_input(name, regression_case).string()}, ranks);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto from = r.out.find("CCSD largest amplitudes");
    return from == std::string::npos ? std::string() : r.out.substr(from, r.out.find("\n\n", from) - from);
  };
  for (const std::string c : {"h2o_ccpvdz_rhf_fc1", "ch2_triplet_ccpvdz_uhf"}) {
    const std::string one = listed(c, 0);
    EXPECT_FALSE(one.empty()) << c;
    EXPECT_EQ(listed(c, 2), one) << c;
  }
}

}  // namespace
}  // namespace cyclocc::app_test
