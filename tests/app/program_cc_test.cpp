// What a CCSD run reports besides its energies: the correlation energies by
// the spins of the electron pairs, the singles diagnostics (in the log and
// the results file) and the largest amplitudes (in the log). Reference
// values: Psi4 1.3.2 with the inputs regression/cases/*_pairs.psi4.dat
// (their RES lines "CC T1 DIAGNOSTIC" and "CC D1 DIAGNOSTIC", and the
// Largest TIA/TIjAb lists of their output; references_here.yaml has the pair
// energies). Also: the log's energy, timing and memory lines against the
// results file, and a basis with linearly dependent functions.
#include <chrono>
#include <cmath>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "tests/app/background_run.hpp"
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

// The numbers of a log line: `format`'s conversions (sscanf), from the first
// line that gives them all; empty if none does.
std::vector<double> line_numbers(const std::string& log, const char* format, int count) {
  for (const std::string& line : lines_of(log)) {
    double x[3] = {};
    if (std::sscanf(line.c_str(), format, &x[0], &x[1], &x[2]) == count) return {x, x + count};
  }
  return {};
}

// The MP2 line, the iteration table and the "converged" line of `method`
// against the results file; the table against itself: each dE is the change
// from the row before (the first row's from MP2), and the last row is the
// first to pass the convergence test (cc.convergence, 1e-9 by default).
void expect_log_agrees(const std::string& log, const YAML::Node& p, const std::string& method) {
  const double mp2 = number(p["mp2_correlation_energy"]);
  EXPECT_NEAR(mp2 + number(p["scf_total_energy"]), number(p["mp2_total_energy"]), 1e-12);
  const auto mp2_line = line_numbers(log, "MP2 correlation energy %lf total %lf", 2);
  ASSERT_EQ(mp2_line.size(), 2u) << log;
  EXPECT_NEAR(mp2_line[0], mp2, 1e-12);
  EXPECT_NEAR(mp2_line[1], number(p["mp2_total_energy"]), 1e-12);

  const std::vector<CcRow> rows = cc_rows(log);
  const int ccsd_rows = p["ccsd_iterations"].as<int>();
  const int iterations = p[method + "_iterations"].as<int>();
  ASSERT_EQ(static_cast<int>(rows.size()), method == "ccsd" ? iterations : ccsd_rows + iterations) << log;
  const std::size_t first = method == "ccsd" ? 0 : ccsd_rows;  // CCSDT's table follows CCSD's
  double before = method == "ccsd" ? mp2 : rows[first - 1].energy;
  for (std::size_t k = first; k < rows.size(); ++k) {
    const CcRow& row = rows[k];
    EXPECT_EQ(row.iteration, static_cast<int>(k - first) + 1);
    // E has 14 decimals, dE and |dT| five significant digits.
    EXPECT_NEAR(row.delta_e, row.energy - before, 6e-5 * std::abs(row.delta_e) + 2e-14) << "row " << row.iteration;
    before = row.energy;
    // The program tests the unrounded values: a printed value within
    // rounding of the threshold decides nothing.
    const double below = 1e-9 * (1 - 1e-4), above = 1e-9 * (1 + 1e-4);
    if (k + 1 == rows.size())
      EXPECT_TRUE(std::abs(row.delta_e) < above && row.delta_t < above) << "row " << row.iteration;
    else
      EXPECT_TRUE(std::abs(row.delta_e) > below || row.delta_t > below) << "row " << row.iteration;
  }
  EXPECT_NEAR(rows.back().energy, number(p[method + "_correlation_energy"]), 1e-13);

  const std::string label = method == "ccsd" ? "CCSD" : "CCSDT";
  const auto done = line_numbers(log, (label + " converged in %lf iterations: correlation %lf, total %lf").c_str(), 3);
  ASSERT_EQ(done.size(), 3u) << log;
  EXPECT_EQ(done[0], iterations);
  EXPECT_NEAR(done[1], number(p[method + "_correlation_energy"]), 1e-12);
  EXPECT_NEAR(done[2], number(p[method + "_total_energy"]), 1e-12);
  EXPECT_NEAR(number(p[method + "_correlation_energy"]) + number(p["scf_total_energy"]),
              number(p[method + "_total_energy"]), 1e-12);
}

// The log's footer against the results file: each stage's time (printed to
// the millisecond), the stages within the total (the CC stage holds its
// checkpoints and (T)) and the total within the `wall` seconds the run took;
// the peak memory (printed in whole MB).
void expect_footer_agrees(const std::string& log, const YAML::Node& j, double wall) {
  const YAML::Node t = j["extras"]["timings"];
  double stages = 0;
  for (const std::string name : {"scf", "checkpoint", "motransform", "cc", "cc_checkpoint", "triples", "total"}) {
    ASSERT_TRUE(t[name].IsScalar()) << name;
    EXPECT_NEAR(logged_number(log, "  " + name + " "), number(t[name]), 5e-4 + 1e-9) << name;
    EXPECT_GE(number(t[name]), 0.0) << name;
    if (name != "cc_checkpoint" && name != "triples" && name != "total") stages += number(t[name]);
  }
  EXPECT_LE(number(t["cc_checkpoint"]) + number(t["triples"]), number(t["cc"]));
  EXPECT_LE(stages, number(t["total"]));
  EXPECT_LE(number(t["total"]), wall);
  EXPECT_NEAR(logged_number(log, "peak memory: "), number(j["extras"]["peak_memory_mb"]), 0.55);
}

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// What the log prints of the MP2, CCSD, (T) and CCSDT energies, the timings
// and the peak memory is what the results file holds, and the (T)
// correction is the references' CCSD(T) - CCSD difference (water STO-3G,
// regression/references.yaml).
TEST_F(CcReportTest, LogLinesAgreeWithTheResultsFile) {
  const auto input = water_input("pt", [](YAML::Node& in) { in["cc"]["method"] = "ccsd(t)"; });
  const double t0 = seconds_now();
  auto r = cyclocc({input.string()}, 2);
  const double wall = seconds_now() - t0;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_footer_agrees(r.out, results("pt.json"), wall);
  YAML::Node p = results("pt.json")["properties"];
  expect_log_agrees(r.out, p, "ccsd");
  // H2O has five occupied orbitals: 35 triples i >= j >= k.
  const auto plan = line_numbers(r.out, "(T): closed-shell triples, %lf occupied triples i >= j >= k over %lf", 2);
  ASSERT_EQ(plan.size(), 2u) << r.out;
  EXPECT_EQ(plan[0], 35);
  EXPECT_EQ(plan[1], 2);
  const double pt = number(p["ccsd_prt_pr_correlation_energy"]);
  const double e_t = pt - number(p["ccsd_correlation_energy"]);
  EXPECT_NEAR(e_t, reference_value(kWaterCase, "ccsd_prt_pr_total_energy") -
                       reference_value(kWaterCase, "ccsd_total_energy"), 1e-8);
  EXPECT_NEAR(pt + number(p["scf_total_energy"]), number(p["ccsd_prt_pr_total_energy"]), 1e-12);
  const auto t_line = line_numbers(r.out, "(T) correction %lf CCSD(T) correlation %lf, total %lf", 3);
  ASSERT_EQ(t_line.size(), 3u) << r.out;
  EXPECT_NEAR(t_line[0], e_t, 1e-12);
  EXPECT_NEAR(t_line[1], pt, 1e-12);
  EXPECT_NEAR(t_line[2], number(p["ccsd_prt_pr_total_energy"]), 1e-12);

  r = cyclocc({water_input("t", [](YAML::Node& in) { in["cc"]["method"] = "ccsdt"; }).string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  p = results("t.json")["properties"];
  expect_log_agrees(r.out, p, "ccsdt");
}

// A basis with linearly dependent functions: water STO-3G with each
// hydrogen's s shell given twice (share/basis/sto-3g.g94). The SCF removes
// the two combinations that duplicate (log line), the MO transform and CC
// work in the 7 orbitals left, and every energy is the plain basis's
// (regression/references.yaml, h2o_sto3g_rhf) to 1e-8.
TEST_F(CcReportTest, LinearlyDependentFunctionsAreRemovedWithoutChangingTheEnergies) {
  const std::string h = "S 3 1.00\n 3.42525091 0.15432897\n 0.62391373 0.53532814\n 0.16885540 0.44463454\n";
  write_text(path("twice.g94"), "H 0\n" + h + h + "****\n"
                                "O 0\nS 3 1.00\n 130.7093200 0.15432897\n 23.8088610 0.53532814\n"
                                " 6.4436083 0.44463454\nSP 3 1.00\n 5.0331513 -0.09996723 0.15591627\n"
                                " 1.1695961 0.39951283 0.60768372\n 0.3803890 0.70011547 0.39195739\n****\n");
  const auto input = water_input("d", [](YAML::Node& in) {
    in["basis"] = "twice.g94";
    in["cc"]["method"] = "ccsd(t)";
  });
  const auto r = cyclocc({input.string()}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SCF: 2 linearly dependent combinations removed (overlap eigenvalues below 1e-07)\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MO transform: 0+0 frozen, 5+5 active occupied, 2+2 virtual orbitals"), std::string::npos)
      << r.out;
  const YAML::Node p = results("d.json")["properties"];
  for (const std::string q : {"scf_total_energy", "mp2_total_energy", "ccsd_total_energy", "ccsd_prt_pr_total_energy"})
    EXPECT_NEAR(number(p[q]), reference_value(kWaterCase, q), 1e-8) << q;
}

}  // namespace
}  // namespace cyclocc::app_test
