// An SCF run of the cyclocc binary: the results file (QCSchema fields, the
// reference energy), the log's numbers, flags overriding the input.
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "tests/app/program_fixture.hpp"

using namespace cyclocc::app_test;

TEST_F(ProgramTest, ScfWaterResultsFileMatchesTheReference) {
  const auto input = water_input("water");
  const double e_ref = reference_value(kWaterCase, "scf_total_energy");
  const double enuc_ref = reference_value(kWaterCase, "nuclear_repulsion_energy");
  for (int ranks : {0, 2}) {
    const auto r = cyclocc({input.string()}, ranks);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const auto j = results("water.json");
    EXPECT_EQ(j["schema_name"].as<std::string>(), "qcschema_output");
    EXPECT_EQ(j["schema_version"].as<int>(), 1);
    EXPECT_EQ(j["driver"].as<std::string>(), "energy");
    EXPECT_EQ(j["model"]["method"].as<std::string>(), "none");
    EXPECT_EQ(j["model"]["basis"].as<std::string>(), "sto-3g");
    const auto symbols = j["molecule"]["symbols"];
    ASSERT_EQ(symbols.size(), 3u);
    EXPECT_EQ(symbols[0].as<std::string>(), "O");
    EXPECT_EQ(symbols[2].as<std::string>(), "H");
    // Geometry in bohr, as in the input (units: bohr).
    ASSERT_EQ(j["molecule"]["geometry"].size(), 9u);
    EXPECT_EQ(j["molecule"]["geometry"][2].as<double>(), 0.221664874419);
    EXPECT_EQ(j["molecule"]["geometry"][7].as<double>(), -1.430900621567);
    EXPECT_EQ(j["molecule"]["molecular_charge"].as<int>(), 0);
    EXPECT_EQ(j["molecule"]["molecular_multiplicity"].as<int>(), 1);
    EXPECT_TRUE(j["success"].as<bool>());
    EXPECT_TRUE(j["error"].IsNull());
    EXPECT_EQ(j["provenance"]["creator"].as<std::string>(), "cyclocc");
    EXPECT_EQ(j["provenance"]["version"].as<std::string>(), CYCLOCC_VERSION);
    EXPECT_EQ(j["provenance"]["ranks"].as<int>(), ranks == 0 ? 1 : ranks);

    const double e = j["properties"]["scf_total_energy"].as<double>();
    EXPECT_NEAR(e, e_ref, 1e-8);
    EXPECT_NEAR(j["properties"]["nuclear_repulsion_energy"].as<double>(), enuc_ref, 1e-10);
    EXPECT_EQ(j["return_energy"].as<double>(), e);  // method none: the SCF energy
    EXPECT_EQ(j["return_result"].as<double>(), e);
    const int iterations = j["properties"]["scf_iterations"].as<int>();
    EXPECT_GT(iterations, 2);
    EXPECT_LE(iterations, 100);
    EXPECT_FALSE(j["extras"]["scf_from_checkpoint"].as<bool>());

    // The log's numbers are the results file's numbers.
    EXPECT_NE(r.out.find(std::string("ranks: ") + std::to_string(ranks == 0 ? 1 : ranks) + "\n"), std::string::npos);
    EXPECT_NE(r.out.find("molecule: H2O, 3 atoms, charge 0, multiplicity 1, 10 electrons (5 alpha, 5 beta)"),
              std::string::npos) << r.out;
    EXPECT_NE(r.out.find("basis: sto-3g, spherical, 7 basis functions, 5 shells"), std::string::npos) << r.out;
    EXPECT_NEAR(logged_number(r.out, "SCF total energy"), e, 1e-12);
    EXPECT_NEAR(logged_number(r.out, "nuclear repulsion energy"), enuc_ref, 1e-11);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(\((\d+) iterations?\))")));
    EXPECT_EQ(std::stoi(m[1]), iterations);
    const auto timings = j["extras"]["timings"];
    for (const char* name : {"scf", "checkpoint", "total"}) {
      const double t = timings[name].as<double>();
      EXPECT_GE(t, 0.0) << name;
      EXPECT_LE(t, timings["total"].as<double>()) << name;
      EXPECT_NEAR(logged_number(r.out, std::string("  ") + name + " "), t, 5e-4) << name;
    }
    // The checkpoint is in place, with no temporary left behind.
    EXPECT_TRUE(fs::exists(path("water.h5")));
    EXPECT_FALSE(fs::exists(path("water.h5.tmp")));
    EXPECT_FALSE(fs::exists(path("water.json.tmp")));
  }
}

TEST_F(ProgramTest, FlagsOverrideTheInputFileNames) {
  const auto input = water_input("named", [](YAML::Node& in) {
    in["output"]["json"] = "from_yaml.json";
    in["checkpoint"]["file"] = "from_yaml.h5";
    in["output"]["molden"] = "orbitals.molden";
  });
  auto r = cyclocc({input.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(path("from_yaml.json")));
  EXPECT_TRUE(fs::exists(path("from_yaml.h5")));
  EXPECT_NE(read_text(path("orbitals.molden")).find("[Molden Format]"), std::string::npos);
  fs::create_directories(path("sub"));
  r = cyclocc({input.string(), "--json", "sub/flag.json", "--checkpoint=sub/flag.h5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(path("sub/flag.json")));
  EXPECT_TRUE(fs::exists(path("sub/flag.h5")));
  EXPECT_NEAR(results("sub/flag.json")["return_energy"].as<double>(),
              reference_value(kWaterCase, "scf_total_energy"), 1e-8);
}

// A UHF run's results file has <S^2> of the determinant, as its log prints
// it (H2O+ STO-3G, a doublet: a little above S(S+1) = 0.75); an RHF run's has
// none.
TEST_F(ProgramTest, UhfResultsHoldTheLoggedSSquared) {
  const auto input = water_input("cation", [](YAML::Node& in) {
    in["molecule"]["charge"] = 1;
    in["molecule"]["multiplicity"] = 2;
    in["scf"]["reference"] = "uhf";
  });
  const auto r = cyclocc({input.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double s2 = results("cation.json")["extras"]["scf_s_squared"].as<double>();
  EXPECT_NEAR(s2, logged_number(r.out, "SCF <S^2> = "), 1e-10);
  EXPECT_GT(s2, 0.75);
  EXPECT_LT(s2, 0.80);
  const auto rhf = cyclocc({water_input("neutral").string()});
  ASSERT_EQ(rhf.exit_code, 0) << rhf.err;
  EXPECT_FALSE(results("neutral.json")["extras"]["scf_s_squared"].IsDefined());
}

// One of a thing is not "1 things": a hydrogen atom (1 atom, 1 electron).
TEST_F(ProgramTest, OneOfAThingIsSingular) {
  const auto input = water_input("h", [](YAML::Node& in) {
    in["molecule"]["geometry"] = "H 0 0 0\n";
    in["molecule"]["multiplicity"] = 2;
    in["scf"]["reference"] = "uhf";
  });
  const auto r = cyclocc({input.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("molecule: H, 1 atom, charge 0, multiplicity 2, 1 electron (1 alpha, 0 beta)\n"),
            std::string::npos) << r.out;
  const int iterations = results("h.json")["properties"]["scf_iterations"].as<int>();
  const std::string counted = iterations == 1 ? "1 iteration" : std::to_string(iterations) + " iterations";
  EXPECT_NE(r.out.find("SCF converged in " + counted + ": E(UHF) = "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(" + counted + ")\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" 1 iterations"), std::string::npos) << r.out;
}

// extras.warnings: each "warning: " line of the log, in order, also when the
// run fails after them; an empty list when there are none.
TEST_F(ProgramTest, ResultsListTheLogsWarnings) {
  auto warned = [](const std::string& log) {
    std::vector<std::string> texts;
    for (const std::string& line : lines_of(log))
      if (line.rfind("warning: ", 0) == 0) texts.push_back(line.substr(9));
    return texts;
  };
  auto listed = [&](const std::string& json) {
    std::vector<std::string> texts;
    for (const auto& w : results(json)["extras"]["warnings"]) texts.push_back(w.as<std::string>());
    return texts;
  };
  const auto plain = cyclocc({water_input("plain").string()});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(results("plain.json")["extras"]["warnings"].IsSequence());
  EXPECT_EQ(listed("plain.json"), std::vector<std::string>{});
  EXPECT_EQ(warned(plain.out), std::vector<std::string>{});

  // A copy of a shipped file (no 'spherical'/'cartesian' line, d shells) and
  // --restart without a checkpoint: two warnings; then CCSD stops unconverged.
  fs::copy_file(std::string(CYCLOCC_SOURCE_DIR) + "/share/basis/cc-pvdz.g94", path("mine.g94"));
  const auto input = water_input("two", [](YAML::Node& in) {
    in["basis"] = "mine.g94";
    in.remove("puream");
    in["cc"]["method"] = "ccsd";
    in["cc"]["max_iterations"] = 1;
  });
  const auto r = cyclocc({input.string(), "--restart"});
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const auto texts = warned(r.out);
  ASSERT_EQ(texts.size(), 2u) << r.out;
  EXPECT_EQ(texts[0].rfind("basis: ", 0), 0u) << texts[0];
  EXPECT_NE(texts[0].find("mine.g94 has no 'spherical' or 'cartesian' first line"), std::string::npos) << texts[0];
  EXPECT_EQ(texts[1].rfind("--restart: no checkpoint ", 0), 0u) << texts[1];
  EXPECT_EQ(listed("two.json"), texts);
  EXPECT_FALSE(results("two.json")["success"].as<bool>());
  // The unconverged CCSD's last amplitudes: their diagnostics and pair
  // energies in the results and, said to be so, in the log.
  EXPECT_NE(r.out.find("\nCCSD (last iteration, not converged) T1 diagnostic "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nCCSD (last iteration, not converged) correlation energy of same-spin pairs "),
            std::string::npos) << r.out;
  EXPECT_TRUE(results("two.json")["extras"]["ccsd_t1_diagnostic"].IsDefined());
  const YAML::Node p = results("two.json")["properties"];  // of the amplitudes of the last energy
  EXPECT_NEAR(p["ccsd_same_spin_correlation_energy"].as<double>() +
                  p["ccsd_opposite_spin_correlation_energy"].as<double>(),
              p["ccsd_correlation_energy"].as<double>(), 1e-11);
}

// The orbital energies: every one in the results file (extras.scf_eigenvalues_a,
// and _b for UHF), the occupied and lowest virtual ones in the log. Reference:
// Psi4 1.3.2's "Orbital Energies [Eh]" (6 decimals) with the inputs
// regression/cases/h2o_ccpvdz_rhf_pairs.psi4.dat and ch2_triplet_ccpvdz_uhf_pairs.psi4.dat.
TEST_F(ProgramTest, OrbitalEnergiesAreThoseOfPsi4) {
  auto expect_near = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 6e-7) << k;
  };
  const auto rhf = cyclocc({water_input("rhf", [](YAML::Node& in) { in["basis"] = "cc-pvdz"; }).string()});
  ASSERT_EQ(rhf.exit_code, 0) << rhf.err;
  const auto extras = results("rhf.json")["extras"];
  expect_near(extras["scf_eigenvalues_a"].as<std::vector<double>>(),
              {-20.550538, -1.336448, -0.698951, -0.566543, -0.493121, 0.185474, 0.256179, 0.788824,
               0.853986,   1.163570,  1.200372,  1.253367,  1.444377,  1.476233, 1.674393, 1.867339,
               1.934528,   2.451577,  2.489145,  3.285380,  3.338282,  3.510010, 3.865077, 4.147110});
  EXPECT_FALSE(extras["scf_eigenvalues_b"].IsDefined());
  EXPECT_NE(rhf.out.find("  occupied  -20.550538   -1.336448   -0.698951   -0.566543   -0.493121\n"),
            std::string::npos) << rhf.out;
  EXPECT_NE(rhf.out.find("           ... 3 more, up to 4.147110\n  HOMO -0.493121, LUMO 0.185474, gap 0.678595\n"),
            std::string::npos) << rhf.out;

  const auto uhf = cyclocc(
      {case_input("uhf", "ch2_triplet_ccpvdz_uhf", [](YAML::Node& in) { in["cc"]["method"] = "none"; }).string()});
  ASSERT_EQ(uhf.exit_code, 0) << uhf.err;
  const auto u = results("uhf.json")["extras"];
  const auto a = u["scf_eigenvalues_a"].as<std::vector<double>>();
  const auto b = u["scf_eigenvalues_b"].as<std::vector<double>>();
  expect_near({a.begin(), a.begin() + 7}, {-11.267817, -0.946848, -0.614790, -0.448180, -0.407284, 0.197858, 0.255759});
  expect_near({b.begin(), b.begin() + 5}, {-11.219058, -0.773419, -0.582616, 0.134787, 0.159309});
  EXPECT_NEAR(b.back(), 2.958363, 6e-7);
  EXPECT_NE(uhf.out.find("SCF orbital energies (hartree), beta:\n  occupied  -11.219058   -0.773419   -0.582616\n"),
            std::string::npos) << uhf.out;
}
