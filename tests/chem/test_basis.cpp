// Basis library, name mapping, Gaussian-94 reader, puream, and their errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "chem/basis.hpp"
#include "chem/g94.hpp"
#include "tests/chem/chem_test.hpp"

namespace cyclocc::chem {
namespace {

using chem_test::make_input;
using chem_test::water;

int nbf(const std::string& name, std::optional<bool> puream = std::nullopt) {
  auto in = make_input(name, water());
  in.puream = puream;
  return load_basis(in).nbf;
}

std::string error_of(const input::Input& in) {
  try {
    load_basis(in);
  } catch (const input::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(BasisNames, MapToPsi4FileStems) {
  EXPECT_EQ(basis_file_stem("6-31G*"), "6-31gs");
  EXPECT_EQ(basis_file_stem("6-31G**"), "6-31gss");
  EXPECT_EQ(basis_file_stem("6-31G(d)"), "6-31g_d_");
  EXPECT_EQ(basis_file_stem("6-31G(d,p)"), "6-31g_d_p_");
  EXPECT_EQ(basis_file_stem("6-311++G(2d,2p)"), "6-311ppg_2d_2p_");
  EXPECT_EQ(basis_file_stem("6-31+G*"), "6-31pgs");
  EXPECT_EQ(basis_file_stem("AUG-cc-pVTZ"), "aug-cc-pvtz");
  EXPECT_EQ(basis_file_stem("def2-TZVP"), "def2-tzvp");
}

TEST(BasisNames, EveryRequiredSetIsShippedAndIndexed) {
  const BasisIndex index = read_basis_index(basis_library_dir());
  for (const char* name : {"sto-3g", "3-21g", "6-31g", "6-31gs", "6-31gss", "6-31g_d_", "6-31g_d_p_",
                           "6-311g", "6-311gs", "6-311gss", "6-311g_d_p_", "cc-pvdz", "cc-pvtz",
                           "cc-pvqz", "aug-cc-pvdz", "aug-cc-pvtz", "aug-cc-pvqz", "def2-svp",
                           "def2-tzvp", "def2-tzvpp"}) {
    ASSERT_TRUE(index.pure.count(name)) << name;
    EXPECT_TRUE(std::filesystem::exists(basis_library_dir() + "/" + name + ".g94")) << name;
  }
  // Psi4-data headers: the 6-31G family is cartesian; 6-311G, Dunning and def2 spherical.
  EXPECT_FALSE(index.pure.at("6-31gs"));
  EXPECT_FALSE(index.pure.at("6-31g_d_p_"));
  EXPECT_FALSE(index.pure.at("3-21g"));
  EXPECT_TRUE(index.pure.at("6-311gss"));
  EXPECT_TRUE(index.pure.at("cc-pvtz"));
  EXPECT_TRUE(index.pure.at("aug-cc-pvdz"));
  EXPECT_TRUE(index.pure.at("def2-tzvp"));
}

TEST(BasisCounts, WaterInKnownSets) {
  // O + 2 H. sto-3g: 5 + 1 + 1. 6-31G*: O 3s2p1d with 6 cartesian d = 15, H 2.
  // cc-pVDZ: O 3s2p1d = 14, H 2s1p = 5. cc-pVTZ: O 4s3p2d1f = 30, H 3s2p1d = 14.
  // aug-cc-pVDZ: O 4s3p2d = 23, H 3s2p = 9. aug-cc-pVTZ: O 5s4p3d2f = 46, H 4s3p2d = 23.
  // def2-SVP: O 3s2p1d = 14, H 2s1p = 5. def2-TZVP: O 5s3p2d1f = 31, H 3s1p = 6.
  EXPECT_EQ(nbf("sto-3g"), 7);
  EXPECT_EQ(nbf("6-31g*"), 19);
  EXPECT_EQ(nbf("cc-pvdz"), 24);
  EXPECT_EQ(nbf("cc-pvtz"), 58);
  EXPECT_EQ(nbf("aug-cc-pvdz"), 41);
  EXPECT_EQ(nbf("aug-cc-pvtz"), 92);
  EXPECT_EQ(nbf("def2-svp"), 24);
  EXPECT_EQ(nbf("def2-tzvp"), 43);
}

TEST(BasisCounts, RegressionMolecules) {
  // Counts Psi4 reported for the reference runs (n_basis_functions).
  const std::map<std::string, int> expected = {
      {"h2o_ccpvdz_rhf", 24}, {"h2o_sto3g_rhf", 7}, {"nh3_631gss_rhf", 30}, {"ch2_triplet_ccpvdz_uhf", 24},
      {"oh_631gs_uhf", 17},   {"n2_sto3g_rhf", 10}, {"hf_ccpvdz_rhf", 19},  {"ch4_631g_rhf", 17},
      {"li_ccpvdz_uhf", 14},  {"h2o_cation_ccpvdz_uhf", 24}};
  for (const auto& c : chem_test::regression_cases()) {
    const auto it = expected.find(c.id);
    if (it == expected.end()) continue;
    EXPECT_EQ(load_basis(chem_test::load_case(c.input_path)).nbf, it->second) << c.id;
  }
}

TEST(BasisNames, SpellingsOfOneSetGiveTheSameShells) {
  const Basis a = load_basis(make_input("6-31g(d,p)", water()));
  const Basis b = load_basis(make_input("6-31G**", water()));
  ASSERT_EQ(a.shells.size(), b.shells.size());
  for (std::size_t s = 0; s < a.shells.size(); ++s) {
    EXPECT_EQ(a.shells[s].alpha, b.shells[s].alpha);
    EXPECT_EQ(a.shells[s].contr[0].coeff, b.shells[s].contr[0].coeff);
  }
}

// Psi4 has no 6-31+G(d) or 6-31++G(d,p) files: those spellings load the
// * and ** files, which hold the same functions (checked for the sets that
// have both files above).
TEST(BasisNames, DiffuseSetsInTheParenthesisSpelling) {
  for (const auto& [parens, stars] : {std::pair<std::string, std::string>{"6-31+G(d)", "6-31+G*"},
                                      {"6-31++g(d,p)", "6-31++G**"},
                                      {"6-311+G(d,p)", "6-311+G**"}}) {
    SCOPED_TRACE(parens);
    const Basis a = load_basis(make_input(parens, water()));
    const Basis b = load_basis(make_input(stars, water()));
    EXPECT_EQ(a.file, b.file);
    EXPECT_EQ(a.nbf, b.nbf);
    EXPECT_EQ(a.name, parens);
  }
  EXPECT_NE(error_of(make_input("6-31+G(2d)", water())).find("is not in the basis library"), std::string::npos);
}

TEST(Puream, DefaultIsTheFileConventionAndTheInputOverrides) {
  EXPECT_EQ(nbf("6-31g*"), 19);           // cartesian by default
  EXPECT_EQ(nbf("6-31g*", true), 18);     // 5 spherical d
  EXPECT_EQ(nbf("cc-pvdz", false), 25);   // 6 cartesian d
  EXPECT_EQ(nbf("cc-pvtz", false), 65);   // O: 4 + 9 + 2*6 + 10; H: 3 + 6 + 6
  auto in = make_input("cc-pvtz", water());
  const Basis b = load_basis(in);
  EXPECT_TRUE(b.pure);
  for (const auto& s : b.shells) EXPECT_EQ(s.contr[0].pure, s.contr[0].l >= 2);
  in.puream = false;
  for (const auto& s : load_basis(in).shells) EXPECT_FALSE(s.contr[0].pure);
}

TEST(BasisErrors, UnknownNameListsNearNames) {
  const std::string msg = error_of(make_input("cc-pvxz", water()));
  EXPECT_NE(msg.find("test.yaml: basis: 'cc-pvxz' is not in the basis library"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cc-pvdz"), std::string::npos) << msg;
}

TEST(BasisErrors, NameTheLineOfTheBasisKey) {
  auto in = make_input("cc-pvxz", water());
  in.basis_line = 7;
  std::string msg = error_of(in);
  EXPECT_EQ(msg.rfind("test.yaml:7: basis: 'cc-pvxz' is not in the basis library", 0), 0u) << msg;
  in = make_input("cc-pvdz", {{"Rn", 0, 0, 0}});
  in.basis_line = 7;
  msg = error_of(in);
  EXPECT_EQ(msg.rfind("test.yaml:7: basis: cc-pvdz has no functions for element Rn", 0), 0u) << msg;
}

TEST(BasisErrors, MissingElementNamesElementAndBasis) {
  const std::string msg = error_of(make_input("cc-pvdz", {{"Rn", 0, 0, 0}}));
  EXPECT_NE(msg.find("cc-pvdz has no functions for element Rn"), std::string::npos) << msg;
}

TEST(BasisErrors, ElementNeedingAnEcpIsRejected) {
  const std::string msg = error_of(make_input("def2-svp", {{"Rb", 0, 0, 0}, {"H", 0, 0, 3.4}}));
  EXPECT_NE(msg.find("def2-svp needs an effective core potential for element Rb"), std::string::npos) << msg;
  EXPECT_EQ(nbf("def2-svp"), 24);  // light elements are fine
}

TEST(BasisErrors, MissingUserFile) {
  auto in = make_input("/nonexistent/basis.g94", water());
  in.basis_is_file = true;
  EXPECT_NE(error_of(in).find("/nonexistent/basis.g94: cannot open basis set file"), std::string::npos);
}

TEST(BasisErrors, MalformedFileNamesFileAndLine) {
  const struct {
    const char* text;
    const char* message;
  } bad[] = {
      {"H 0\nS 2 1.00\n 1.0 0.5\n 0.5 zero\n****\n", ":4: not a number: 'zero'"},
      {"H 0\nQ 1 1.00\n 1.0 1.0\n****\n", ":2: unknown shell label 'Q'"},
      {"H 0\nS 1 1.00\n 1.0 1.0\n", ":3: unexpected end of file"},
      {"! comment\nXx 0\nS 1 1.00\n 1.0 1.0\n****\n", ":2: expected 'ELEMENT 0'"},
      {"H 0\nSP 1 1.00\n 1.0 1.0\n****\n", ":3: expected exponent and 2 coefficient(s)"},
      {"H 0\nS 1 1.00\n -1.0 1.0\n****\n", ":3: exponent must be > 0"},
      {"H 0\nS 1 1.00\n 1.0 1.0\n****\nH 0\nS 1 1.00\n 1.0 1.0\n****\n", ":5: element H appears twice"},
      // Beyond Libint2's l = 5 (H shells are fine): a clear error, not the
      // library's exception at the first integral.
      {"H 0\nS 1 1.00\n 1.0 1.0\nI 1 1.00\n 1.0 1.0\n****\n", ":4: I shells (l = 6) are beyond the integral library"},
      {"H 0\nk 1 1.00\n 1.0 1.0\n****\n", ":2: k shells (l = 7) are beyond the integral library"},
      // A contraction of nothing: the overlap was NaN and the SCF ran to its limit.
      {"H 0\nS 2 1.00\n 1.0 0.0\n 0.5 0.0\n****\n", ":2: every contraction coefficient of this S shell is zero"},
      {"H 0\nSP 1 1.00\n 1.0 1.0 0.0\n****\n", ":2: every contraction coefficient of this SP shell is zero"},
  };
  for (const auto& b : bad) {
    const std::string path = write_temp("cyclocc_bad.g94", b.text);
    auto in = make_input(path, water());
    in.basis_is_file = true;
    const std::string msg = error_of(in);
    EXPECT_EQ(msg.rfind(path + b.message, 0), 0u) << "got: " << msg << "\nwanted: " << path << b.message;
  }
}

TEST(G94, HShellsAreRead) {
  const std::string path = write_temp("cyclocc_h_shell.g94", "H 0\nS 1 1.00\n 1.0 1.0\nH 1 1.00\n 1.5 1.0\n****\n");
  auto in = make_input(path, {{"H", 0, 0, 0}, {"H", 0, 0, 1.4}});
  in.basis_is_file = true;
  const auto b = load_basis(in);
  EXPECT_EQ(b.max_l, 5);
  EXPECT_EQ(b.nbf, 2 * (1 + 11));  // s + spherical h
}

TEST(G94, ReadsSpShellsFortranExponentsScaleAndHeader) {
  const std::string text =
      "cartesian\n! comment\n****\nC     0\nSP   2   1.00\n  0.5D+01  0.1D0  0.2\n  1.0  0.3  0.4\n"
      "D 1 2.0\n 0.5 1.0\n****\n";
  const G94File f = parse_g94(text, "x.g94");
  ASSERT_TRUE(f.pure.has_value());
  EXPECT_FALSE(*f.pure);
  const auto& shells = f.shells.at(6);
  ASSERT_EQ(shells.size(), 3u);
  EXPECT_EQ(shells[0].l, 0);
  EXPECT_EQ(shells[1].l, 1);
  EXPECT_EQ(shells[0].exponents, (std::vector<double>{5.0, 1.0}));
  EXPECT_EQ(shells[1].exponents, (std::vector<double>{5.0, 1.0}));
  EXPECT_EQ(shells[0].coefficients, (std::vector<double>{0.1, 0.3}));
  EXPECT_EQ(shells[1].coefficients, (std::vector<double>{0.2, 0.4}));
  EXPECT_EQ(shells[2].l, 2);
  EXPECT_DOUBLE_EQ(shells[2].exponents[0], 2.0);  // scale 2: exponent * 4
}

TEST(G94, UserFileWithoutHeaderDefaultsToSpherical) {
  const std::string path = write_temp("cyclocc_user.g94", "O 0\nS 1 1.0\n 1.0 1.0\nD 1 1.0\n 0.8 1.0\n****\n"
                                                          "H 0\nS 1 1.0\n 0.5 1.0\n****\n");
  auto in = make_input(path, water());
  in.basis_is_file = true;
  EXPECT_EQ(load_basis(in).nbf, 1 + 5 + 2);
  EXPECT_TRUE(load_basis(in).pure_by_default);  // the log warns (app/driver.cpp)
  in.puream = false;
  EXPECT_EQ(load_basis(in).nbf, 1 + 6 + 2);
  EXPECT_FALSE(load_basis(in).pure_by_default);
  const std::string cart = write_temp("cyclocc_user_cart.g94", "cartesian\n" + std::string("O 0\nD 1 1.0\n 0.8 1.0\n****\nH 0\nS 1 1.0\n 0.5 1.0\n****\n"));
  in.basis = cart;
  in.puream.reset();
  EXPECT_EQ(load_basis(in).nbf, 6 + 2);
  EXPECT_FALSE(load_basis(in).pure_by_default);
  EXPECT_FALSE(load_basis(make_input("cc-pvdz", water())).pure_by_default);  // the library's index says
}

TEST(BasisLibrary, EnvironmentVariableOverridesTheFolder) {
  const auto dir = std::filesystem::temp_directory_path() / "cyclocc_basis_lib";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "index.yaml") << "conventions:\n  tiny: cartesian\necp_elements: {}\n";
  std::ofstream(dir / "tiny.g94") << "O 0\nD 1 1.0\n 0.8 1.0\n****\nH 0\nS 1 1.0\n 0.5 1.0\n****\n";
  const char* old = std::getenv("CYCLOCC_BASIS_DIR");
  const std::string saved = old ? old : "";
  setenv("CYCLOCC_BASIS_DIR", dir.c_str(), 1);
  EXPECT_EQ(basis_library_dir(), dir.string());
  const int n = nbf("TINY");
  if (old) setenv("CYCLOCC_BASIS_DIR", saved.c_str(), 1); else unsetenv("CYCLOCC_BASIS_DIR");
  EXPECT_EQ(n, 6 + 2);
  EXPECT_EQ(basis_library_dir(), old ? saved : std::string(CYCLOCC_SOURCE_DIR) + "/share/basis");
}

TEST(BasisLibrary, EveryShippedFileParses) {
  const BasisIndex index = read_basis_index(basis_library_dir());
  for (const auto& [name, pure] : index.pure) {
    const G94File f = read_g94(basis_library_dir() + "/" + name + ".g94");
    EXPECT_TRUE(f.shells.count(1)) << name;   // hydrogen
    EXPECT_FALSE(f.pure.has_value()) << name;  // the header line lives in index.yaml
  }
}

}  // namespace
}  // namespace cyclocc::chem
