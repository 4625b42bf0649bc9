// Every class of input error gives one line "FILE:LINE: key: what is wrong".
#include <gtest/gtest.h>

#include "input/input.hpp"
#include "tests/input/helpers.hpp"

namespace cyclocc::input::test {
namespace {

// A one-atom molecule in bohr followed by `rest`.
std::string atom(const std::string& molecule_extra, const std::string& symbol = "He",
                 const std::string& rest = "") {
  return "molecule:\n  units: bohr\n" + molecule_extra + "  geometry: |\n    " + symbol +
         " 0 0 0\nbasis: cc-pvdz\n" + rest;
}

TEST(InputErrors, UnknownKeySuggestsTheClosestKey) {
  EXPECT_INPUT_ERROR(kWater + "scf:\n  convergance: 1.0e-8\n", "t.yaml:8: scf.convergance: ",
                     "unknown key; did you mean scf.convergence?");
  EXPECT_INPUT_ERROR(kWater + "cc:\n  max_iter: 3\n", "t.yaml:8: cc.max_iter: ",
                     "did you mean cc.max_iterations?");
  EXPECT_INPUT_ERROR(kWater + "Basis: sto-3g\n", "t.yaml:7: Basis: ", "did you mean basis?");
}

TEST(InputErrors, UnknownKeyInTheWrongSectionNamesTheRightOne) {
  EXPECT_INPUT_ERROR(kWater + "scf:\n  method: ccsd\n", "t.yaml:8: scf.method: ",
                     "did you mean cc.method?");
  EXPECT_INPUT_ERROR("geometry: |\n  He 0 0 0\nbasis: b\n", "t.yaml:1: geometry: ",
                     "did you mean molecule.geometry?");
  EXPECT_INPUT_ERROR(kWater + "convergence: 1e-8\n", "t.yaml:7: convergence: ",
                     "did you mean scf.convergence or cc.convergence?");
}

TEST(InputErrors, UnknownKeyWithoutNearMatchListsTheValidKeys) {
  EXPECT_INPUT_ERROR(kWater + "colour: blue\n", "t.yaml:7: colour: ",
                     "unknown key (valid here: title, molecule, basis, puream, scf, cc, "
                     "checkpoint, output)");
  EXPECT_INPUT_ERROR(kWater + "scf.convergence: 1e-8\n", "t.yaml:7: scf.convergence: ",
                     "write sections nested");
}

TEST(InputErrors, DuplicateKey) {
  EXPECT_INPUT_ERROR(kWater + "basis: sto-3g\n", "t.yaml:7: basis: ",
                     "given twice (first on line 6)");
}

TEST(InputErrors, WrongTypes) {
  EXPECT_INPUT_ERROR(kWater + "scf:\n  max_iterations: many\n", "t.yaml:8: scf.max_iterations: ",
                     "expected an integer (got \"many\")");
  EXPECT_INPUT_ERROR(atom("  charge: 1.5\n"), "t.yaml:3: molecule.charge: ",
                     "expected an integer");
  EXPECT_INPUT_ERROR(kWater + "puream: yes\n", "t.yaml:7: puream: ", "expected true or false");
  EXPECT_INPUT_ERROR(kWater + "scf: 5\n", "t.yaml:7: scf: ", "expected a mapping of keys");
  EXPECT_INPUT_ERROR("molecule: [1, 2]\nbasis: b\n", "t.yaml:1: molecule: ",
                     "expected a mapping of keys");
  EXPECT_INPUT_ERROR(kWater + "title: [a, b]\n", "t.yaml:7: title: ", "got a sequence");
  EXPECT_INPUT_ERROR(kWater + "cc:\n  diis: \"8\"\n", "t.yaml:8: cc.diis: ",
                     "got the quoted text \"8\"");
  EXPECT_INPUT_ERROR(kWater + "scf:\n  convergence:\n", "t.yaml:8: scf.convergence: ",
                     "has no value");
  EXPECT_INPUT_ERROR(kWater + "cc:\n  convergence: tight\n", "t.yaml:8: cc.convergence: ",
                     "expected a number");
  EXPECT_INPUT_ERROR("molecule:\n  geometry:\n    - He 0 0 0\nbasis: b\n",
                     "t.yaml:3: molecule.geometry: ", "expected lines");
  EXPECT_INPUT_ERROR("molecule:\n  geometry:\nbasis: b\n", "t.yaml:2: molecule.geometry: ",
                     "expected lines");
  EXPECT_INPUT_ERROR(kWater + "? [a, b]\n: 1\n", "t.yaml:7: ", "keys must be plain names");
}

TEST(InputErrors, ValueNotAmongTheChoices) {
  EXPECT_INPUT_ERROR(kWater + "scf:\n  reference: rohf\n", "t.yaml:8: scf.reference: ",
                     "must be one of rhf, uhf (got \"rohf\")");
  EXPECT_INPUT_ERROR(kWater + "cc:\n  method: CCSDTQ\n", "t.yaml:8: cc.method: ",
                     "must be one of none, mp2, ccsd, ccsd(t), ccsdt");
  EXPECT_INPUT_ERROR("molecule:\n  units: pm\n  geometry: He 0 0 0\nbasis: b\n",
                     "t.yaml:2: molecule.units: ", "must be one of angstrom, bohr (got \"pm\")");
}

TEST(InputErrors, MissingMoleculeOrBasis) {
  EXPECT_INPUT_ERROR("basis: cc-pvdz\n", "t.yaml: molecule: ", "missing");
  EXPECT_INPUT_ERROR("molecule:\n  geometry: He 0 0 0\n", "t.yaml: basis: ", "missing");
}

TEST(InputErrors, UnknownElement) {
  const std::string head = "molecule:\n  geometry: |\n    O 0 0 0\n";
  for (const std::string bad : {"Xx", "@He", "Gh(He)", "H1", "D", "Uue"})
    EXPECT_INPUT_ERROR(head + "    " + bad + " 0 0 1\nbasis: b\n", "t.yaml:4: molecule.geometry: ",
                       "unknown element \"" + bad + "\"");
}

TEST(InputErrors, MalformedCoordinates) {
  const std::string head = "molecule:\n  geometry: |\n    O 0 0 0\n\n    # a comment\n";
  auto with = [&](const std::string& line) { return head + "    " + line + "\nbasis: b\n"; };
  const std::string at = "t.yaml:6: molecule.geometry: ";
  EXPECT_INPUT_ERROR(with("H 0 0"), at, "expected \"symbol x y z\", got 3 fields");
  EXPECT_INPUT_ERROR(with("H 0 0 1 2"), at, "got 5 fields");
  EXPECT_INPUT_ERROR(with("H 0 0 abc"), at, "coordinate \"abc\" is not a number");
  EXPECT_INPUT_ERROR(with("H 0 1.0.0 1"), at, "coordinate \"1.0.0\" is not a number");
  EXPECT_INPUT_ERROR(with("H 0x10 0 1"), at, "is not a number");
  for (const std::string bad : {"nan", "NaN", "inf", "-inf", ".nan", "-.inf", "1e999"})
    EXPECT_INPUT_ERROR(with("H 0 0 " + bad), at, "coordinate \"" + bad + "\" is not a finite number");
  EXPECT_INPUT_ERROR(with("H 0 0 1.5e308"), at, "is too large");  // finite in angstrom, not in bohr
  // Finite, but its square is not (the SCF ran on infinities): at most 1e6 bohr.
  EXPECT_INPUT_ERROR(with("H 0 -1e200 0"), at, "coordinate \"-1e200\" is too large (at most 1e6 bohr");
  EXPECT_INPUT_ERROR(with("H 0 0 529177.3"), at, "is too large");  // 1.00000006e6 bohr
  EXPECT_NO_THROW(parse_input_text(with("H 0 0 529177.2"), "t.yaml"));
}

TEST(InputErrors, CoincidentAtomsAreNamed) {
  const std::string text =
      "molecule:\n  units: bohr\n  geometry: |\n    O 0 0 0\n    H 0 0 1.4\n    H 0 1.4 0\n"
      "    H 0.00001 0 1.40005\nbasis: b\n";
  EXPECT_INPUT_ERROR(text, "t.yaml:7: molecule.geometry: ", "atoms 2 (H) and 4 (H) coincide");
  // 1e-4 bohr apart is allowed; closer is not
  EXPECT_NO_THROW(parse_input_text(
      "molecule:\n  units: bohr\n  geometry: |\n    H 0 0 0\n    H 0 0 1.0e-4\n"
      "  charge: 0\nbasis: b\n", "t.yaml"));
  EXPECT_INPUT_ERROR("molecule:\n  units: bohr\n  geometry: |\n    H 0 0 0\n    H 0 0 0.99e-4\n"
                     "basis: b\n",
                     "t.yaml:5: molecule.geometry: ", "atoms 1 (H) and 2 (H) coincide");
}

TEST(InputErrors, ChargeThatLeavesNegativeElectrons) {
  EXPECT_INPUT_ERROR(atom("  charge: 3\n"), "t.yaml:3: molecule.charge: ",
                     "charge 3 leaves -1 electrons");
}

TEST(InputErrors, MultiplicityThatDoesNotFitTheElectrons) {
  EXPECT_INPUT_ERROR(atom("  multiplicity: 2\n"), "t.yaml:3: molecule.multiplicity: ",
                     "multiplicity 2 does not fit an even electron count (2 electrons)");
  EXPECT_INPUT_ERROR(atom("  multiplicity: 5\n"), "t.yaml:3: molecule.multiplicity: ",
                     "needs more unpaired electrons than there are (2 electrons)");
  EXPECT_INPUT_ERROR(atom("  multiplicity: 0\n"), "t.yaml:3: molecule.multiplicity: ",
                     "must be >= 1 (got 0)");
  EXPECT_INPUT_ERROR(atom("  charge: -1\n  multiplicity: 1\n"), "t.yaml:4: molecule.multiplicity: ",
                     "does not fit an odd electron count (3 electrons)");
}

TEST(InputErrors, RhfForAnOpenShell) {
  EXPECT_INPUT_ERROR(atom("", "Li", "scf:\n  reference: rhf\n"), "t.yaml:7: scf.reference: ",
                     "rhf needs multiplicity 1 (got 2); use uhf");
  EXPECT_INPUT_ERROR(atom("  multiplicity: 3\n", "C", "scf:\n  reference: RHF\n"),
                     "t.yaml:8: scf.reference: ", "rhf needs multiplicity 1 (got 3)");
}

TEST(InputErrors, NonPositiveThresholdsAndCounts) {
  EXPECT_INPUT_ERROR(kWater + "scf:\n  convergence: -1e-3\n", "t.yaml:8: scf.convergence: ",
                     "must be > 0 (got -1e-3)");
  EXPECT_INPUT_ERROR(kWater + "scf:\n  convergence: 0\n", "t.yaml:8: scf.convergence: ",
                     "must be > 0 (got 0)");
  EXPECT_INPUT_ERROR(kWater + "cc:\n  convergence: 0.0\n", "t.yaml:8: cc.convergence: ",
                     "must be > 0");
  EXPECT_INPUT_ERROR(kWater + "cc:\n  convergence: .inf\n", "t.yaml:8: cc.convergence: ",
                     "must be a finite number");
  EXPECT_INPUT_ERROR(kWater + "scf:\n  max_iterations: 0\n", "t.yaml:8: scf.max_iterations: ",
                     "must be >= 1 (got 0)");
  EXPECT_INPUT_ERROR(kWater + "cc:\n  max_iterations: -5\n", "t.yaml:8: cc.max_iterations: ",
                     "must be >= 1 (got -5)");
  EXPECT_INPUT_ERROR(kWater + "scf:\n  max_iterations: 99999999999\n",
                     "t.yaml:8: scf.max_iterations: ", "integer out of range");
  EXPECT_INPUT_ERROR(kWater + "scf:\n  diis: -1\n", "t.yaml:8: scf.diis: ", "must be >= 0 (got -1)");
  EXPECT_INPUT_ERROR(kWater + "cc:\n  diis: -2\n", "t.yaml:8: cc.diis: ", "must be >= 0 (got -2)");
  EXPECT_INPUT_ERROR(kWater + "checkpoint:\n  interval: 0\n", "t.yaml:8: checkpoint.interval: ",
                     "must be >= 1 (got 0)");
}

TEST(InputErrors, FrozenCoreLargerThanTheBetaElectrons) {
  EXPECT_INPUT_ERROR(kWater + "cc:\n  frozen_core: 6\n", "t.yaml:8: cc.frozen_core: ",
                     "freezes 6 orbitals per spin, more than the 5 beta electrons");
  // Be3+ has one electron (no beta), but `true` freezes Be's 1s
  EXPECT_INPUT_ERROR(atom("  charge: 3\n", "Be", "cc:\n  frozen_core: true\n"),
                     "t.yaml:8: cc.frozen_core: ", "freezes 1 orbitals per spin, more than the 0");
  EXPECT_INPUT_ERROR(kWater + "cc:\n  frozen_core: -1\n", "t.yaml:8: cc.frozen_core: ",
                     "expected true, false or an integer count >= 0 (got \"-1\")");
  EXPECT_INPUT_ERROR(kWater + "cc:\n  frozen_core: all\n", "t.yaml:8: cc.frozen_core: ",
                     "expected true, false or an integer count");
}

TEST(InputErrors, EmptyGeometry) {
  EXPECT_INPUT_ERROR("molecule:\n  geometry: |\n    # nothing here\n\nbasis: b\n",
                     "t.yaml:2: molecule.geometry: ", "no atoms");
  EXPECT_INPUT_ERROR("molecule:\n  geometry: \"\"\nbasis: b\n", "t.yaml:2: molecule.geometry: ",
                     "no atoms");
}

TEST(InputErrors, GeometryAndXyzTogetherOrNeither) {
  EXPECT_INPUT_ERROR("molecule:\n  geometry: He 0 0 0\n  xyz: h2o.xyz\nbasis: b\n",
                     "t.yaml:3: molecule.xyz: ", "either molecule.geometry or molecule.xyz, not both");
  EXPECT_INPUT_ERROR("molecule:\n  charge: 0\nbasis: b\n", "t.yaml:1: molecule: ",
                     "needs geometry (atom lines) or xyz (a file)");
}

TEST(InputErrors, YamlSyntaxErrorReportsItsLine) {
  EXPECT_INPUT_ERROR("title: x\nmolecule:\n  geometry: [He, 0\nbasis: b\n", "t.yaml:4: ",
                     "YAML syntax error");
  EXPECT_INPUT_ERROR("title: x\nbasis: b\n  units: bohr\n", "t.yaml:3: ", "YAML syntax error");
  EXPECT_INPUT_ERROR("molecule:\n  charge: 0\n units: bohr\nbasis: b\n", "t.yaml:3: ",
                     "YAML syntax error: end of map not found");
  EXPECT_INPUT_ERROR("title: x\n\tbasis: b\n", "t.yaml:2: ", "YAML syntax error");
}

// yaml-cpp reads an unclosed quote as a value running to the end of the
// file, keys and all (the run then lost cc.method and "succeeded").
TEST(InputErrors, QuoteThatIsNeverClosed) {
  EXPECT_INPUT_ERROR(kWater + "title: \"water CCSD\ncc:\n  method: ccsd\n", "t.yaml:7: title: ",
                     "no closing \" on its line");
  EXPECT_INPUT_ERROR("title: 'abc\n" + kWater, "t.yaml:1: title: ", "no closing ' on its line");
  // Where yaml-cpp itself fails, lines later, the unclosed quote is named.
  EXPECT_INPUT_ERROR("title: 'it''s water\n" + kWater + "cc:\n  method: 'ccsd'\n", "t.yaml:1: ",
                     "YAML syntax error: a quoted value has no closing quote on its line");
  EXPECT_INPUT_ERROR("title: \"abc\n" + kWater, "t.yaml:1: title: ", "no closing \" on its line");
  EXPECT_INPUT_ERROR(kWater + "cc:\n  method: 'ccsd\n", "t.yaml:8: cc.method: ", "no closing ' on its line");
  // Quotes that close, with escapes, and quotes inside a block scalar, are fine.
  EXPECT_NO_THROW(parse_input_text("title: 'it''s \"x\"'\n" + kWater, "t.yaml"));
  EXPECT_NO_THROW(parse_input_text("title: \"a \\\" b\" # c\n" + kWater, "t.yaml"));
  EXPECT_NO_THROW(parse_input_text("title: |\n  a \"quote\n" + kWater, "t.yaml"));
  // An anchor that holds an alias of itself is read once (the fuzzer found
  // the quote check recursing through it without end).
  EXPECT_INPUT_ERROR("molecule: &m {a: *m}\nbasis: b\n", "t.yaml:1: molecule.a: ", "unknown key");
  EXPECT_INPUT_ERROR("title: &t [\"x\", *t]\n" + kWater, "t.yaml:1: title: ", "expected");
}

// A NUL ends the value in every message and file name made of it
// ("basis: 'sto" was the whole message; output.json "a\0b.json" wrote "a").
TEST(InputErrors, AValueWithANulByte) {
  EXPECT_INPUT_ERROR("title: \"a\\0b\"\n" + kWater, "t.yaml:1: title: ", "the value contains a NUL byte");
  EXPECT_INPUT_ERROR(kWater + "output:\n  json: \"a\\0b.json\"\n", "t.yaml:8: output.json: ",
                     "the value contains a NUL byte");
  EXPECT_INPUT_ERROR("molecule:\n  geometry: He 0 0 0\nbasis: \"sto\\0-3g\"\n", "t.yaml:3: basis: ",
                     "the value contains a NUL byte");
}

TEST(InputErrors, TopLevelMustBeAMapping) {
  EXPECT_INPUT_ERROR("- molecule\n- basis\n", "t.yaml:1: ", "expected a mapping of keys");
  EXPECT_INPUT_ERROR("\n\njust some text\n", "t.yaml:3: ", "expected a mapping of keys");
  EXPECT_INPUT_ERROR("", "t.yaml: ", "the input is empty");
  EXPECT_INPUT_ERROR("# only a comment\n", "t.yaml: ", "the input is empty");
  EXPECT_INPUT_ERROR(kWater + "---\ntitle: second\n", "t.yaml:7: ", "more than one YAML document");
  EXPECT_INPUT_ERROR(kWater + "...\ntitle: second\n", "t.yaml:8: ", "more than one YAML document");
  // one document with its optional markers is fine
  EXPECT_NO_THROW(parse_input_text("%YAML 1.2\n# c\n---\n" + kWater + "...\n# end\n", "t.yaml"));
  EXPECT_NO_THROW(parse_input_text("--- # water\n" + kWater, "t.yaml"));
}

TEST(InputErrors, OversizedOrDeeplyNestedInput) {
  EXPECT_INPUT_ERROR(kWater + "# " + std::string(1 << 20, 'x') + "\n", "t.yaml: ",
                     "larger than 1 MB");
  EXPECT_INPUT_ERROR(kWater + "title: " + std::string(40, '['), "t.yaml:7: ",
                     "nested more than 32 levels deep");
  std::string deep = kWater + "title:\n";
  for (int i = 0; i < 3000; ++i) deep += "- ";
  EXPECT_INPUT_ERROR(deep + "x\n", "t.yaml:8: ", "levels deep");
}

// Inputs on which yaml-cpp 0.7 misbehaves (found by the fuzzer): they must end
// in an InputError, not in an endless loop.
TEST(InputErrors, InputsThatTripYamlCpp) {
  EXPECT_INPUT_ERROR(",\na:\n", "t.yaml:1: ", "YAML syntax error");
  EXPECT_INPUT_ERROR(",m\nab-Osis:\x01\nc&crue\n", "t.yaml:1: ", "YAML syntax error");
}

TEST(InputErrors, MissingInputFile) {
  const std::string path = data_dir() + "/no_such_input.yaml";
  try {
    parse_input(path);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": the input file does not exist");
  }
  try {
    parse_input(data_dir());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), data_dir() + ": the input file is not a regular file");
  }
}

TEST(InputErrors, MessagesStayOnOneLineAndShort) {
  const std::string message = error_of(kWater + "title: |\n  a\n  b\nscf:\n  guess: \"x\\ny\"\n");
  EXPECT_NE(message.find("(got \"x\\ny\")"), std::string::npos) << message;
  const std::string long_key = error_of(kWater + std::string(500, 'k') + ": 1\n");
  EXPECT_EQ(long_key, "t.yaml:7: " + std::string(60, 'k') + "...: unknown key (valid here: title, "
                      "molecule, basis, puream, scf, cc, checkpoint, output)");
  const std::string long_value = error_of(kWater + "scf:\n  guess: " + std::string(500, 'v') + "\n");
  EXPECT_LT(long_value.size(), 120u) << long_value;
}

}  // namespace
}  // namespace cyclocc::input::test
