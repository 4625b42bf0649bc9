// Valid inputs: defaults, every key given, and the regression cases.
#include <gtest/gtest.h>

#include <filesystem>

#include "input/input.hpp"
#include "tests/input/helpers.hpp"

namespace cyclocc::input::test {
namespace {

TEST(InputParse, MinimalInputGetsTheDefaults) {
  const Input in = parse_input_text(kWater, "calc/water.yaml");
  EXPECT_EQ(in.path, "calc/water.yaml");
  EXPECT_EQ(in.title, "");
  EXPECT_EQ(in.molecule.units, "angstrom");
  EXPECT_EQ(in.molecule.charge, 0);
  EXPECT_EQ(in.molecule.multiplicity, 1);
  EXPECT_EQ(in.molecule.xyz_file, "");
  ASSERT_EQ(in.molecule.atoms.size(), 3u);
  EXPECT_EQ(in.molecule.atoms[0].symbol, "O");
  EXPECT_EQ(in.molecule.atoms[0].Z, 8);
  EXPECT_NEAR(in.molecule.atoms[0].xyz[2], 0.1173 / 0.52917721067, 1e-12);
  EXPECT_EQ(in.basis, "cc-pvdz");
  EXPECT_FALSE(in.basis_is_file);
  EXPECT_FALSE(in.puream.has_value());
  EXPECT_EQ(in.scf.reference, "rhf");
  EXPECT_EQ(in.scf.guess, "sad");
  EXPECT_EQ(in.scf.convergence, 1.0e-10);
  EXPECT_EQ(in.scf.max_iterations, 100);
  EXPECT_EQ(in.scf.diis, 8);
  EXPECT_EQ(in.cc.method, "none");
  EXPECT_EQ(in.cc.frozen_core.kind, FrozenCore::Kind::None);
  EXPECT_EQ(in.cc.frozen_core.count, 0);
  EXPECT_EQ(in.cc.convergence, 1.0e-9);
  EXPECT_EQ(in.cc.max_iterations, 100);
  EXPECT_EQ(in.cc.diis, 8);
  EXPECT_EQ(in.checkpoint.file, "calc/water.h5");
  EXPECT_EQ(in.checkpoint.interval, 1);
  EXPECT_EQ(in.output.json, "calc/water.json");
  EXPECT_EQ(in.output.molden, "");
}

TEST(InputParse, EveryKeyGiven) {
  const std::string text =
      "title: water CCSD(T)   # a comment\n"
      "molecule:\n"
      "  units: bohr\n"
      "  charge: 0\n"
      "  multiplicity: 1\n"
      "  geometry: |\n"
      "    O 0 0 0.2216\n"
      "    H 0 1.4309 -0.8867\n"
      "    H 0 -1.4309 -0.8867\n"
      "basis: cc-pVTZ\n"
      "puream: false\n"
      "scf:\n"
      "  reference: uhf\n"
      "  guess: CORE\n"
      "  convergence: 1.0e-8\n"
      "  max_iterations: 50\n"
      "  diis: 0\n"
      "cc:\n"
      "  method: CCSD(T)\n"
      "  frozen_core: 1\n"
      "  convergence: 2e-7\n"
      "  max_iterations: 30\n"
      "  diis: 6\n"
      "checkpoint:\n"
      "  file: /tmp/w.h5\n"
      "  interval: 5\n"
      "output:\n"
      "  json: w.json\n"
      "  molden: w.molden\n";
  const Input in = parse_input_text(text, "w/in.yaml");
  EXPECT_EQ(in.title, "water CCSD(T)");
  EXPECT_EQ(in.molecule.units, "bohr");
  EXPECT_EQ(in.molecule.atoms[1].xyz[1], 1.4309);
  EXPECT_EQ(in.basis, "cc-pvtz");
  ASSERT_TRUE(in.puream.has_value());
  EXPECT_FALSE(*in.puream);
  EXPECT_EQ(in.scf.reference, "uhf");
  EXPECT_EQ(in.scf.guess, "core");
  EXPECT_EQ(in.scf.convergence, 1.0e-8);
  EXPECT_EQ(in.scf.max_iterations, 50);
  EXPECT_EQ(in.scf.diis, 0);
  EXPECT_EQ(in.cc.method, "ccsd(t)");
  EXPECT_EQ(in.cc.frozen_core.kind, FrozenCore::Kind::Count);
  EXPECT_EQ(in.cc.frozen_core.count, 1);
  EXPECT_EQ(in.cc.convergence, 2e-7);
  EXPECT_EQ(in.cc.max_iterations, 30);
  EXPECT_EQ(in.cc.diis, 6);
  EXPECT_EQ(in.checkpoint.file, "/tmp/w.h5");
  EXPECT_EQ(in.checkpoint.interval, 5);
  EXPECT_EQ(in.output.json, "w/w.json");
  EXPECT_EQ(in.output.molden, "w/w.molden");
}

TEST(InputParse, EveryMethodName) {
  for (const std::string m : {"none", "mp2", "ccsd", "ccsd(t)", "ccsdt", "MP2", "CCSDT", "Ccsd(T)"}) {
    const Input in = parse_input_text(kWater + "cc:\n  method: " + m + "\n", "t.yaml");
    std::string low = m;
    for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(in.cc.method, low);
  }
}

TEST(InputParse, EmptySectionsAndPuream) {
  const Input in = parse_input_text(kWater + "scf:\ncc: {}\npuream: TRUE\n", "t.yaml");
  EXPECT_EQ(in.scf.max_iterations, 100);
  EXPECT_EQ(in.cc.method, "none");
  ASSERT_TRUE(in.puream.has_value());
  EXPECT_TRUE(*in.puream);
}

TEST(InputParse, NumbersInTheirUsualSpellings) {
  for (const std::string c : {"1e-6", "1.0E-6", "0.000001", "+1e-6", ".1e-5", "1.e-6"}) {
    const Input in = parse_input_text(kWater + "scf:\n  convergence: " + c + "\n", "t.yaml");
    EXPECT_DOUBLE_EQ(in.scf.convergence, 1e-6) << c;
  }
  const Input in = parse_input_text(kWater + "scf:\n  max_iterations: +7\n", "t.yaml");
  EXPECT_EQ(in.scf.max_iterations, 7);
}

TEST(InputParse, BasisLineAndMessagesForLaterErrors) {
  const Input in = parse_input_text(kWater, "w.yaml");
  EXPECT_EQ(in.basis_line, 6);
  EXPECT_EQ(input_error_message(in.path, in.basis_line, "basis", "unknown basis set \"cc-pvxz\""),
            "w.yaml:6: basis: unknown basis set \"cc-pvxz\"");
  EXPECT_EQ(input_error_message("w.yaml", 0, "", "two\nlines"), "w.yaml: two\\nlines");
}

TEST(InputParse, StructDefaultsMatchTheSchema) {
  // input.hpp's member initialisers document the defaults; they must not drift
  // from the schema, which the parser uses.
  const Input parsed = parse_input_text(kWater, "t.yaml");
  const ScfOptions scf;
  const CcOptions cc;
  const CheckpointOptions ck;
  const MoleculeInput mol;
  EXPECT_EQ(scf.reference, parsed.scf.reference);
  EXPECT_EQ(scf.guess, parsed.scf.guess);
  EXPECT_EQ(scf.convergence, parsed.scf.convergence);
  EXPECT_EQ(scf.max_iterations, parsed.scf.max_iterations);
  EXPECT_EQ(scf.diis, parsed.scf.diis);
  EXPECT_EQ(cc.method, parsed.cc.method);
  EXPECT_EQ(cc.convergence, parsed.cc.convergence);
  EXPECT_EQ(cc.max_iterations, parsed.cc.max_iterations);
  EXPECT_EQ(cc.diis, parsed.cc.diis);
  EXPECT_EQ(cc.frozen_core.kind, parsed.cc.frozen_core.kind);
  EXPECT_EQ(ck.interval, parsed.checkpoint.interval);
  EXPECT_EQ(mol.units, parsed.molecule.units);
  EXPECT_EQ(mol.charge, parsed.molecule.charge);
  EXPECT_EQ(mol.multiplicity, parsed.molecule.multiplicity);
}

TEST(InputParse, EveryRegressionCaseReads) {
  namespace fs = std::filesystem;
  const fs::path cases = fs::path(CYCLOCC_SOURCE_DIR) / "regression" / "cases";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(cases)) {
    if (entry.path().extension() != ".yaml") continue;
    ++count;
    try {
      const Input in = parse_input(entry.path().string());
      EXPECT_FALSE(in.molecule.atoms.empty()) << entry.path();
      EXPECT_NE(in.cc.method, "none") << entry.path();
      EXPECT_EQ(in.molecule.units, "bohr") << entry.path();
    } catch (const InputError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GT(count, 0) << "no cases in " << cases;
}

TEST(InputParse, RegressionCaseDetails) {
  const std::string cases = std::string(CYCLOCC_SOURCE_DIR) + "/regression/cases/";
  const Input li = parse_input(cases + "li_ccpvdz_uhf.yaml");
  EXPECT_TRUE(li.basis_is_file);
  EXPECT_EQ(li.basis, cases + "li_ccpvdz_uhf.g94");
  EXPECT_EQ(li.molecule.multiplicity, 2);
  EXPECT_EQ(li.scf.reference, "uhf");
  const Input fc = parse_input(cases + "h2o_ccpvdz_rhf_fc1.yaml");
  EXPECT_EQ(fc.cc.frozen_core.kind, FrozenCore::Kind::Count);
  EXPECT_EQ(fc.cc.frozen_core.count, 1);
  EXPECT_EQ(fc.checkpoint.file, cases + "h2o_ccpvdz_rhf_fc1.h5");
}

}  // namespace
}  // namespace cyclocc::input::test
