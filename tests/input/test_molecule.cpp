// Atoms, units, elements, charge and multiplicity, frozen core.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "input/input.hpp"
#include "tests/input/helpers.hpp"

namespace cyclocc::input::test {
namespace {

std::string molecule(const std::string& lines, const std::string& extra = "") {
  return "molecule:\n" + extra + "  geometry: |\n" + lines + "basis: cc-pvdz\n";
}

std::string fixed17(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

TEST(InputMolecule, AngstromIsConvertedWithCodata2014) {
  // 1/0.52917721067 = 1.8897261254578281 (CODATA 2014, Psi4 1.3.2)
  const Input in = parse_input_text(molecule("    H 1 0 0\n    H 0 -2.5 0\n"), "t.yaml");
  EXPECT_NEAR(in.molecule.atoms[0].xyz[0], 1.8897261254578281, 1e-12);
  EXPECT_NEAR(in.molecule.atoms[1].xyz[1], -2.5 * 1.8897261254578281, 1e-12);
  EXPECT_EQ(in.molecule.atoms[1].xyz[0], 0.0);
}

TEST(InputMolecule, AngstromAndBohrGiveTheSameAtoms) {
  const double ang[3][3] = {{0.0, 0.0, 0.1173}, {0.0, 0.7572, -0.4692}, {0.0, -0.7572, -0.4692}};
  const char* symbols[3] = {"O", "H", "H"};
  std::string in_ang, in_bohr;
  for (int i = 0; i < 3; ++i) {
    in_ang += std::string("    ") + symbols[i];
    in_bohr += std::string("    ") + symbols[i];
    for (int k = 0; k < 3; ++k) {
      in_ang += " " + fixed17(ang[i][k]);
      in_bohr += " " + fixed17(ang[i][k] / 0.52917721067);
    }
    in_ang += "\n";
    in_bohr += "\n";
  }
  const Input a = parse_input_text(molecule(in_ang, "  units: angstrom\n"), "t.yaml");
  const Input b = parse_input_text(molecule(in_bohr, "  units: BOHR\n"), "t.yaml");
  EXPECT_EQ(a.molecule.units, "angstrom");
  EXPECT_EQ(b.molecule.units, "bohr");
  ASSERT_EQ(a.molecule.atoms.size(), 3u);
  ASSERT_EQ(b.molecule.atoms.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(a.molecule.atoms[i].Z, b.molecule.atoms[i].Z);
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(a.molecule.atoms[i].xyz[k], b.molecule.atoms[i].xyz[k], 1e-12);
  }
}

TEST(InputMolecule, ElementSymbolsAreCaseInsensitiveAndNormalised) {
  const Input in = parse_input_text(
      molecule("    he 0 0 0\n    CL 0 0 3\n    cL 0 0 6\n    rn 0 0 9\n", "  charge: 0\n"), "t.yaml");
  ASSERT_EQ(in.molecule.atoms.size(), 4u);
  EXPECT_EQ(in.molecule.atoms[0].symbol, "He");
  EXPECT_EQ(in.molecule.atoms[1].symbol, "Cl");
  EXPECT_EQ(in.molecule.atoms[2].Z, 17);
  EXPECT_EQ(in.molecule.atoms[3].symbol, "Rn");
  EXPECT_EQ(in.molecule.atoms[3].Z, 86);
}

TEST(InputMolecule, ElementTableRoundTrips) {
  for (int Z = 1; Z <= 86; ++Z) {
    const std::string symbol = element_symbol(Z);
    EXPECT_EQ(atomic_number(symbol), Z) << symbol;
  }
  EXPECT_EQ(element_symbol(1), "H");
  EXPECT_EQ(element_symbol(8), "O");
  EXPECT_EQ(element_symbol(26), "Fe");
  EXPECT_EQ(element_symbol(54), "Xe");
  EXPECT_EQ(element_symbol(86), "Rn");
  EXPECT_EQ(element_symbol(87), "X");
  EXPECT_EQ(atomic_number("Fr"), 0);
  EXPECT_EQ(atomic_number(""), 0);
  EXPECT_EQ(atomic_number("Gh"), 0);
}

TEST(InputMolecule, GeometryLinesMayHaveCommentsAndTabs) {
  const Input in = parse_input_text(
      molecule("    # water\n\n    O\t0 0 0   # oxygen\n    H 0 0 1.8\n    H 0 1.8 0\n",
               "  units: bohr\n"),
      "t.yaml");
  ASSERT_EQ(in.molecule.atoms.size(), 3u);
  EXPECT_EQ(in.molecule.atoms[2].xyz[1], 1.8);
}

TEST(InputMolecule, SingleLineGeometryAndCrLfLineEnds) {
  const Input one = parse_input_text("molecule:\n  geometry: He 0 0 0\nbasis: b\n", "t.yaml");
  EXPECT_EQ(one.molecule.atoms.size(), 1u);
  const Input crlf = parse_input_text(
      "molecule:\r\n  geometry: |\r\n    H 0 0 0\r\n    H 0 0 0.74\r\nbasis: b\r\n", "t.yaml");
  EXPECT_EQ(crlf.molecule.atoms.size(), 2u);
  EXPECT_NEAR(crlf.molecule.atoms[1].xyz[2], 0.74 / kBohrAngstrom, 1e-12);
}

TEST(InputMolecule, DefaultMultiplicityFollowsElectronParity) {
  const Input water = parse_input_text(kWater, "t.yaml");
  EXPECT_EQ(water.molecule.n_electrons(), 10);
  EXPECT_EQ(water.molecule.multiplicity, 1);
  EXPECT_EQ(water.scf.reference, "rhf");
  const Input cation = parse_input_text(
      molecule("    O 0 0 0.1173\n    H 0 0.7572 -0.4692\n    H 0 -0.7572 -0.4692\n",
               "  charge: 1\n"), "t.yaml");
  EXPECT_EQ(cation.molecule.n_electrons(), 9);
  EXPECT_EQ(cation.molecule.multiplicity, 2);
  EXPECT_EQ(cation.scf.reference, "uhf");
  EXPECT_EQ(cation.molecule.n_alpha(), 5);
  EXPECT_EQ(cation.molecule.n_beta(), 4);
}

TEST(InputMolecule, GivenMultiplicityAndReference) {
  const Input triplet = parse_input_text(
      molecule("    O 0 0 0\n", "  multiplicity: 3\n"), "t.yaml");
  EXPECT_EQ(triplet.molecule.multiplicity, 3);
  EXPECT_EQ(triplet.scf.reference, "uhf");
  EXPECT_EQ(triplet.molecule.n_alpha(), 5);
  EXPECT_EQ(triplet.molecule.n_beta(), 3);
  const Input singlet_uhf = parse_input_text(kWater + "scf:\n  reference: UHF\n", "t.yaml");
  EXPECT_EQ(singlet_uhf.scf.reference, "uhf");
  const Input anion = parse_input_text(
      molecule("    F 0 0 0\n", "  charge: -1\n"), "t.yaml");
  EXPECT_EQ(anion.molecule.n_electrons(), 10);
  EXPECT_EQ(anion.molecule.multiplicity, 1);
}

// Frozen orbitals per spin for frozen_core: true.
int frozen(const std::string& atoms, const std::string& extra = "") {
  return parse_input_text(molecule(atoms, extra + "  units: bohr\n") + "cc:\n  frozen_core: true\n",
                          "t.yaml")
      .cc.frozen_core.count;
}

TEST(InputMolecule, FrozenCorePerAtom) {
  EXPECT_EQ(frozen("    O 0 0 0\n    H 0 0 1.8\n    H 0 1.8 0\n"), 1);             // H2O
  EXPECT_EQ(frozen("    H 0 0 0\n    F 0 0 1.7\n"), 1);                           // HF
  EXPECT_EQ(frozen("    C 0 0 0\n    H 1.2 1.2 1.2\n    H -1.2 -1.2 1.2\n"
                   "    H -1.2 1.2 -1.2\n    H 1.2 -1.2 -1.2\n"), 1);             // CH4
  EXPECT_EQ(frozen("    Na 0 0 0\n"), 5);                                         // Na
  EXPECT_EQ(frozen("    K 0 0 0\n"), 9);                                          // K
  EXPECT_EQ(frozen("    Cl 0 0 0\n    Cl 0 0 3.8\n"), 10);                        // Cl2
  EXPECT_EQ(frozen("    H 0 0 0\n    H 0 0 1.4\n"), 0);                           // H2
  EXPECT_EQ(frozen("    Li 0 0 0\n"), 1);                                         // Li: n_beta 1
  EXPECT_EQ(frozen("    Kr 0 0 0\n"), 9);
  EXPECT_EQ(frozen("    Xe 0 0 0\n"), 18);
  EXPECT_EQ(frozen("    Rn 0 0 0\n"), 27);
  const Input in = parse_input_text(molecule("    Na 0 0 0\n") + "cc:\n  frozen_core: true\n", "t");
  EXPECT_EQ(in.cc.frozen_core.kind, FrozenCore::Kind::PerAtom);
}

TEST(InputMolecule, FrozenCoreTable) {
  const int expected[][2] = {{1, 0},  {2, 0},  {3, 1},  {10, 1}, {11, 5},  {18, 5},
                             {19, 9}, {36, 9}, {37, 18}, {54, 18}, {55, 27}, {86, 27}};
  for (const auto& [Z, count] : expected) EXPECT_EQ(frozen_core_per_atom(Z), count) << "Z=" << Z;
  EXPECT_THROW(frozen_core_per_atom(0), std::invalid_argument);
  EXPECT_THROW(frozen_core_per_atom(87), std::invalid_argument);
}

TEST(InputMolecule, FrozenCoreCountAndFalse) {
  const Input none = parse_input_text(kWater + "cc:\n  frozen_core: false\n", "t.yaml");
  EXPECT_EQ(none.cc.frozen_core.kind, FrozenCore::Kind::None);
  EXPECT_EQ(none.cc.frozen_core.count, 0);
  const Input all = parse_input_text(kWater + "cc:\n  frozen_core: 5\n", "t.yaml");  // = n_beta
  EXPECT_EQ(all.cc.frozen_core.kind, FrozenCore::Kind::Count);
  EXPECT_EQ(all.cc.frozen_core.count, 5);
  const Input zero = parse_input_text(kWater + "cc:\n  frozen_core: 0\n", "t.yaml");
  EXPECT_EQ(zero.cc.frozen_core.kind, FrozenCore::Kind::Count);
  EXPECT_EQ(zero.cc.frozen_core.count, 0);
  // the H atom has no beta electron: 0 frozen is legal
  EXPECT_NO_THROW(parse_input_text(
      molecule("    H 0 0 0\n") + "cc:\n  frozen_core: true\n", "t.yaml"));
}

}  // namespace
}  // namespace cyclocc::input::test
