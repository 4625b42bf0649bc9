// One-electron integrals, nuclear repulsion, Schwarz bounds, and the
// direct J/K build against a slow full-tensor twin.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "chem/basis.hpp"
#include "chem/fock.hpp"
#include "chem/g94.hpp"
#include "chem/integrals.hpp"
#include "chem/libint_session.hpp"
#include "chem/sad.hpp"
#include "chem/linalg.hpp"
#include "chem/molecule.hpp"
#include "tests/chem/chem_test.hpp"
#include "tests/dense_eri.hpp"

namespace cyclocc::chem {
namespace {

using chem_test::distorted_water;
using chem_test::make_input;

TEST(NuclearRepulsion, MatchesEveryReferenceCase) {
  for (const auto& c : chem_test::regression_cases()) {
    const auto in = chem_test::load_case(c.input_path);
    EXPECT_NEAR(nuclear_repulsion(in.molecule.atoms), c.nuclear_repulsion, 1e-10) << c.id;
  }
}

TEST(NuclearRepulsion, TwoProtons) {
  const auto in = make_input("sto-3g", {{"H", 0, 0, 0}, {"H", 0, 0, 1.4}});
  EXPECT_DOUBLE_EQ(nuclear_repulsion(in.molecule.atoms), 1.0 / 1.4);
}

// Single normalised primitive of angular momentum l and exponent a on one proton.
Basis one_primitive(int l, double a) {
  const std::string text = std::string("H 0\n") + "SPD"[l] + " 1 1.00\n " + std::to_string(a) + " 1.0\n****\n";
  const auto in = make_input("x", {{"H", 0, 0, 0}});
  return make_basis(parse_g94(text, "x.g94"), in.molecule.atoms, true, "x");
}

TEST(OneElectron, HydrogenLikeClosedForms) {
  const auto atom = make_input("x", {{"H", 0, 0, 0}}).molecule.atoms;
  for (double a : {0.3, 1.24, 7.5}) {
    const Basis s = one_primitive(0, a);
    EXPECT_NEAR(overlap_matrix(s)(0, 0), 1.0, 1e-14);
    EXPECT_NEAR(kinetic_matrix(s)(0, 0), 1.5 * a, 1e-12 * a);                         // <T> = 3a/2
    EXPECT_NEAR(nuclear_matrix(s, atom)(0, 0), -2.0 * std::sqrt(2.0 * a / M_PI), 1e-12);  // -2 sqrt(2a/pi)
    const Basis p = one_primitive(1, a);
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(kinetic_matrix(p)(i, i), 2.5 * a, 1e-12 * a);  // <T> = 5a/2 for l = 1
      // <1/r> = (4/3) sqrt(2a/pi) for a normalised p primitive
      EXPECT_NEAR(nuclear_matrix(p, atom)(i, i), -4.0 / 3.0 * std::sqrt(2.0 * a / M_PI), 1e-12);
    }
  }
}

void expect_symmetric_definite(const Eigen::MatrixXd& m, double sign, const char* what) {
  EXPECT_LT((m - m.transpose()).cwiseAbs().maxCoeff(), 1e-14) << what;
  const auto e = symmetric_eigen(sign * m);
  EXPECT_GT(e.values(0), 0.0) << what;
}

TEST(OneElectron, SymmetryNormalisationDefiniteness) {
  for (const char* name : {"cc-pvtz", "6-31g**", "aug-cc-pvdz"}) {
    const auto in = make_input(name, distorted_water());
    const Basis b = load_basis(in);
    const Eigen::MatrixXd S = overlap_matrix(b);
    expect_symmetric_definite(S, 1.0, name);
    expect_symmetric_definite(kinetic_matrix(b), 1.0, name);
    expect_symmetric_definite(nuclear_matrix(b, in.molecule.atoms), -1.0, name);
    // Unit diagonal for normalised functions: all of a pure basis, and the
    // x^l components (first of each shell in CCA order) of a cartesian one.
    for (std::size_t s = 0; s < b.shells.size(); ++s) {
      const int o = b.shell_offset[s];
      const int n = b.pure || b.shells[s].contr[0].l < 2 ? static_cast<int>(b.shells[s].size()) : 1;
      for (int i = 0; i < n; ++i) EXPECT_NEAR(S(o + i, o + i), 1.0, 1e-12) << name << " shell " << s;
    }
  }
}

TEST(Schwarz, BoundsEveryIntegralOfASmallBasis) {
  const Basis b = load_basis(make_input("6-31g*", distorted_water()));
  const Eigen::MatrixXd q = schwarz_matrix(b);
  std::vector<int> shell_of;  // of each basis function
  for (std::size_t s = 0; s < b.shells.size(); ++s) shell_of.resize(shell_of.size() + b.shells[s].size(), s);
  int above = 0;
  test::for_each_eri(b, [&](int i, int j, int k, int l, double v) {
    if (std::abs(v) > q(shell_of[i], shell_of[j]) * q(shell_of[k], shell_of[l]) * (1 + 1e-12)) ++above;
  });
  EXPECT_EQ(above, 0);
}

// Slow twin of the J/K build: every AO integral (ij|kl) without symmetry.
JK naive_jk(const Basis& b, const Eigen::MatrixXd& Dj, const std::vector<Eigen::MatrixXd>& Dk) {
  const int n = b.nbf;
  JK out{Eigen::MatrixXd::Zero(n, n), std::vector<Eigen::MatrixXd>(Dk.size(), Eigen::MatrixXd::Zero(n, n))};
  test::for_each_eri(b, [&](int i, int j, int k, int l, double v) {
    out.J(i, j) += v * Dj(k, l);                                                    // J_ij = (ij|kl) D_kl
    for (std::size_t s = 0; s < Dk.size(); ++s) out.K[s](i, k) += v * Dk[s](j, l);  // K_ik = (ij|kl) D_jl
  });
  return out;
}

Eigen::MatrixXd random_symmetric(int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Eigen::MatrixXd m(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) m(i, j) = m(j, i) = u(gen);
  return m;
}

TEST(FockBuild, MatchesTheFullTensorTwin) {
  for (const auto& [name, pure] : {std::pair{"6-31g*", false}, std::pair{"cc-pvdz", true}}) {
    auto in = make_input(name, distorted_water());
    in.puream = pure;
    const Basis b = load_basis(in);
    const Eigen::MatrixXd Dj = random_symmetric(b.nbf, 1), Da = random_symmetric(b.nbf, 2),
                          Db = random_symmetric(b.nbf, 3);
    FockBuilder fb(b, 0, 1);
    const JK fast = fb.compute_local(Dj, {Da, Db});
    const JK slow = naive_jk(b, Dj, {Da, Db});
    EXPECT_LT((fast.J - slow.J).cwiseAbs().maxCoeff(), 1e-12) << name;
    EXPECT_LT((fast.K[0] - slow.K[0]).cwiseAbs().maxCoeff(), 1e-12) << name;
    EXPECT_LT((fast.K[1] - slow.K[1]).cwiseAbs().maxCoeff(), 1e-12) << name;
  }
}

TEST(FockBuild, StoredIntegralsGiveTheDirectResult) {
  auto in = make_input("cc-pvdz", distorted_water());
  const Basis b = load_basis(in);
  FockBuilder incore(b, 0, 1), direct(b, 0, 1, kSchwarzThreshold, 0), small(b, 0, 1, kSchwarzThreshold, 4096);
  for (unsigned seed : {1u, 4u}) {  // the first build stores, the second reads
    const Eigen::MatrixXd Dj = random_symmetric(b.nbf, seed), Dk = random_symmetric(b.nbf, seed + 1);
    const JK a = incore.compute_local(Dj, {Dk}), d = direct.compute_local(Dj, {Dk}), s = small.compute_local(Dj, {Dk});
    EXPECT_TRUE(incore.in_core());
    EXPECT_FALSE(direct.in_core());
    EXPECT_FALSE(small.in_core());  // 4 KiB does not hold them
    EXPECT_LT((a.J - d.J).cwiseAbs().maxCoeff(), 1e-13) << seed;
    EXPECT_LT((a.K[0] - d.K[0]).cwiseAbs().maxCoeff(), 1e-13) << seed;
    EXPECT_EQ(s.J, d.J);
    EXPECT_EQ(incore.computed_quartets(), direct.computed_quartets());
  }
}

}  // namespace
}  // namespace cyclocc::chem

namespace cyclocc::chem {
namespace {

TEST(LibintSession, OnlyOnePerProcess) {
  // chem_test_main.cpp holds the process's session.
  EXPECT_THROW(LibintSession second, std::logic_error);
  EXPECT_TRUE(libint2::initialized());
}

TEST(Sad, FractionalOccupationsShareADegenerateShell) {
  Eigen::VectorXd eps(7);
  eps << -20.0, -1.2, -0.5, -0.5 + 1e-12, -0.5 - 1e-12, 0.3, 0.9;  // O: 1s 2s 2p(x3) ...
  const Eigen::VectorXd occ = fractional_occupations(eps, 8);
  EXPECT_DOUBLE_EQ(occ(0), 2.0);
  EXPECT_DOUBLE_EQ(occ(1), 2.0);
  for (int i = 2; i < 5; ++i) EXPECT_NEAR(occ(i), 4.0 / 3.0, 1e-15);
  EXPECT_EQ(occ(5), 0.0);
  EXPECT_NEAR(occ.sum(), 8.0, 1e-14);
  const Eigen::VectorXd h = fractional_occupations(eps.head(2), 1);  // H: half-filled 1s
  EXPECT_DOUBLE_EQ(h(0), 1.0);
  EXPECT_DOUBLE_EQ(h(1), 0.0);
}

TEST(Sad, AtomicDensitiesHoldTheAtomsElectronsAndAreSpherical) {
  const auto in = make_input("cc-pvdz", chem_test::water());
  const Basis b = load_basis(in);
  const Basis o = atom_basis(b, 0);
  EXPECT_EQ(o.nbf, 14);
  const Eigen::MatrixXd D = atomic_density(o, 8);
  EXPECT_NEAR(D.cwiseProduct(overlap_matrix(o)).sum(), 8.0, 1e-10);
  // Spherical: the three p components of each p shell carry equal populations.
  for (std::size_t s = 0; s < o.shells.size(); ++s)
    if (o.shells[s].contr[0].l == 1) {
      const int k = o.shell_offset[s];
      EXPECT_NEAR(D(k, k), D(k + 1, k + 1), 1e-8);
      EXPECT_NEAR(D(k, k), D(k + 2, k + 2), 1e-8);
    }
  const Eigen::MatrixXd Dm = sad_density(chem_test::world(), b, in.molecule.atoms);
  EXPECT_NEAR(Dm.cwiseProduct(overlap_matrix(b)).sum(), 10.0, 1e-3);  // ~ sum of Z (blocks overlap)
  EXPECT_EQ(Dm.topLeftCorner(14, 14), D);
}

}  // namespace
}  // namespace cyclocc::chem
