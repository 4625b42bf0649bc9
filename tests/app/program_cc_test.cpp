// What a CCSD run reports besides its energies: the correlation energies by
// the spins of the electron pairs and the singles diagnostics, in the log
// and the results file. Reference values: Psi4 1.3.2 with the inputs
// regression/cases/*_pairs.psi4.dat (their RES lines "CC T1 DIAGNOSTIC" and
// "CC D1 DIAGNOSTIC"; references_here.yaml has the pair energies).
#include <cmath>
#include <string>

#include "tests/app/program_fixture.hpp"

namespace cyclocc::app_test {
namespace {

class CcReportTest : public ProgramTest {
 protected:
  // A regression case's input with cc.method ccsd (and `edit`): its results.
  YAML::Node ccsd(const std::string& regression_case, const std::string& name, std::string* log = nullptr,
                  const std::function<void(YAML::Node&)>& edit = [](YAML::Node&) {}) {
    YAML::Node in = YAML::LoadFile(std::string(CYCLOCC_SOURCE_DIR) + "/regression/cases/" + regression_case + ".yaml");
    in["cc"]["method"] = "ccsd";
    edit(in);
    YAML::Emitter out;
    out << in;
    write_text(path(name + ".yaml"), std::string(out.c_str()) + "\n");
    const auto r = cyclocc({path(name + ".yaml").string()});
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

  // A closed shell has one T1 diagnostic, whichever the reference.
  const YAML::Node same = ccsd("h2o_ccpvdz_rhf", "uhf_water", nullptr, [](YAML::Node& in) {
    in["scf"]["reference"] = "uhf";
  })["extras"];
  EXPECT_NEAR(number(same["ccsd_t1_diagnostic"]), number(rhf["ccsd_t1_diagnostic"]), 1e-9);
}

}  // namespace
}  // namespace cyclocc::app_test
