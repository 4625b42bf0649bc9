// Molden output: the file is read back by a small reader written here from
// the format's documentation, its basis is rebuilt with Molden's conventions
// (function order, normalised cartesian functions, real solid harmonics)
// and its overlap computed by an independent closed formula; the orbitals
// in the file must be orthonormal in that overlap. Random orthonormal orbitals
// on a molecule with no symmetry make any misplaced, mis-scaled or mis-signed
// function show up.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "chem/basis.hpp"
#include "chem/integrals.hpp"
#include "chem/linalg.hpp"
#include "chem/molden.hpp"
#include "tests/chem/chem_test.hpp"

namespace cyclocc::chem {
namespace {

// ---- reader -----------------------------------------------------------------
struct MShell {
  int atom;
  int l;
  std::vector<double> exps, coefs;
};
struct MOrbital {
  double energy = 0, occupation = 0;
  std::string spin;
  std::vector<double> c;
};
struct MoldenFile {
  std::vector<std::array<double, 3>> atoms;
  std::vector<int> Z;
  std::vector<MShell> shells;
  bool pure = false;
  std::vector<MOrbital> mos;
};

MoldenFile read_molden(const std::string& path) {
  std::ifstream f(path);
  MoldenFile m;
  std::string line, section;
  int atom = -1;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    if (line[0] == '[') {
      section = line.substr(0, line.find(']') + 1);
      if (section == "[5D]" || section == "[7F]" || section == "[9G]") m.pure = true;
      continue;
    }
    if (section == "[Atoms]") {
      std::string sym;
      int k, z;
      double x, y, zz;
      is >> sym >> k >> z >> x >> y >> zz;
      m.atoms.push_back({x, y, zz});
      m.Z.push_back(z);
    } else if (section == "[GTO]") {
      std::string w;
      is >> w;
      if (std::isdigit(static_cast<unsigned char>(w[0]))) {
        atom = std::stoi(w) - 1;
        continue;
      }
      int n;
      is >> n;
      MShell s{atom, static_cast<int>(std::string("spdfg").find(w[0])), {}, {}};
      for (int k = 0; k < n; ++k) {
        std::getline(f, line);
        std::istringstream ps(line);
        double e, c;
        ps >> e >> c;
        s.exps.push_back(e);
        s.coefs.push_back(c);
      }
      m.shells.push_back(s);
    } else if (section == "[MO]") {
      const auto eq = line.find('=');
      if (eq != std::string::npos) {
        const std::string key = line.substr(0, eq);
        const std::string value = line.substr(eq + 1);
        if (key.find("Sym") != std::string::npos) m.mos.emplace_back();
        else if (key.find("Ene") != std::string::npos) m.mos.back().energy = std::stod(value);
        else if (key.find("Spin") != std::string::npos) m.mos.back().spin = value.substr(value.find_first_not_of(' '));
        else if (key.find("Occup") != std::string::npos) m.mos.back().occupation = std::stod(value);
      } else {
        int k;
        double c;
        is >> k >> c;
        m.mos.back().c.push_back(c);
      }
    }
  }
  return m;
}

// ---- Molden's basis functions as polynomials in normalised-x^l monomials -------
// A function = sum over terms coef * x^a y^b z^c, every monomial carrying the
// radial normalisation of x^l (so x^l itself has unit norm).
struct Term {
  double coef;
  int a, b, c;
};
using Function = std::vector<Term>;

double dfact(int n) {
  double r = 1;
  for (int k = n; k > 1; k -= 2) r *= k;
  return r;
}

std::vector<Function> molden_functions(int l, bool pure) {
  if (!pure || l < 2) {  // Molden's documented cartesian order, each normalised
    static const std::map<int, std::vector<std::array<int, 3>>> order = {
        {0, {{0, 0, 0}}},
        {1, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
        {2, {{2, 0, 0}, {0, 2, 0}, {0, 0, 2}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}}},
        {3, {{3, 0, 0}, {0, 3, 0}, {0, 0, 3}, {1, 2, 0}, {2, 1, 0}, {2, 0, 1}, {1, 0, 2}, {0, 1, 2}, {0, 2, 1}, {1, 1, 1}}},
        {4, {{4, 0, 0}, {0, 4, 0}, {0, 0, 4}, {3, 1, 0}, {3, 0, 1}, {1, 3, 0}, {0, 3, 1}, {1, 0, 3},
             {0, 1, 3}, {2, 2, 0}, {2, 0, 2}, {0, 2, 2}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}}}};
    std::vector<Function> out;
    for (const auto& e : order.at(l)) {
      const double norm = std::sqrt(dfact(2 * e[0] - 1) * dfact(2 * e[1] - 1) * dfact(2 * e[2] - 1) / dfact(2 * l - 1));
      out.push_back({{1.0 / norm, e[0], e[1], e[2]}});
    }
    return out;
  }
  const double s3 = std::sqrt(3.0), s15 = std::sqrt(15.0), s38 = std::sqrt(3.0 / 8.0), s58 = std::sqrt(5.0 / 8.0);
  if (l == 2)  // d0, d+1, d-1, d+2, d-2 (Helgaker, Jorgensen, Olsen, Table 6.3)
    return {{{1.0, 0, 0, 2}, {-0.5, 2, 0, 0}, {-0.5, 0, 2, 0}},
            {{s3, 1, 0, 1}},
            {{s3, 0, 1, 1}},
            {{s3 / 2, 2, 0, 0}, {-s3 / 2, 0, 2, 0}},
            {{s3, 1, 1, 0}}};
  if (l == 3)  // f0, f+1, f-1, f+2, f-2, f+3, f-3
    return {{{1.0, 0, 0, 3}, {-1.5, 2, 0, 1}, {-1.5, 0, 2, 1}},
            {{4 * s38, 1, 0, 2}, {-s38, 3, 0, 0}, {-s38, 1, 2, 0}},
            {{4 * s38, 0, 1, 2}, {-s38, 2, 1, 0}, {-s38, 0, 3, 0}},
            {{s15 / 2, 2, 0, 1}, {-s15 / 2, 0, 2, 1}},
            {{s15, 1, 1, 1}},
            {{s58, 3, 0, 0}, {-3 * s58, 1, 2, 0}},
            {{3 * s58, 2, 1, 0}, {-s58, 0, 3, 0}}};
  // g: g0, g+1, g-1, ..., g+4, g-4 (same table)
  const double s10 = std::sqrt(10.0), s5 = std::sqrt(5.0), s35 = std::sqrt(35.0), s70 = std::sqrt(70.0);
  return {{{1.0, 0, 0, 4}, {3.0 / 8, 4, 0, 0}, {3.0 / 8, 0, 4, 0}, {-3.0, 2, 0, 2}, {-3.0, 0, 2, 2}, {3.0 / 4, 2, 2, 0}},
          {{s10, 1, 0, 3}, {-3 * s10 / 4, 3, 0, 1}, {-3 * s10 / 4, 1, 2, 1}},
          {{s10, 0, 1, 3}, {-3 * s10 / 4, 2, 1, 1}, {-3 * s10 / 4, 0, 3, 1}},
          {{3 * s5 / 2, 2, 0, 2}, {-3 * s5 / 2, 0, 2, 2}, {-s5 / 4, 4, 0, 0}, {s5 / 4, 0, 4, 0}},
          {{3 * s5, 1, 1, 2}, {-s5 / 2, 3, 1, 0}, {-s5 / 2, 1, 3, 0}},
          {{s70 / 4, 3, 0, 1}, {-3 * s70 / 4, 1, 2, 1}},
          {{3 * s70 / 4, 2, 1, 1}, {-s70 / 4, 0, 3, 1}},
          {{s35 / 8, 4, 0, 0}, {-6 * s35 / 8, 2, 2, 0}, {s35 / 8, 0, 4, 0}},
          {{s35 / 2, 3, 1, 0}, {-s35 / 2, 1, 3, 0}}};
}

// 1-D overlap of (x-A)^a e^{-p(x-A)^2} and (x-B)^b e^{-q(x-B)^2} by the
// binomial expansion about the Gaussian product centre.
double overlap_1d(int a, int b, double A, double B, double p, double q) {
  const double g = p + q, P = (p * A + q * B) / g;
  double s = 0;
  for (int i = 0; i <= a; ++i)
    for (int j = 0; j <= b; ++j) {
      const int n = i + j;
      if (n % 2) continue;
      const double binom = std::tgamma(a + 1) / (std::tgamma(i + 1) * std::tgamma(a - i + 1)) *
                           std::tgamma(b + 1) / (std::tgamma(j + 1) * std::tgamma(b - j + 1));
      s += binom * std::pow(P - A, a - i) * std::pow(P - B, b - j) * dfact(n - 1) / std::pow(2 * g, n / 2);
    }
  return s * std::sqrt(M_PI / g) * std::exp(-p * q / g * (A - B) * (A - B));
}

// Primitive normalisation of x^l exp(-a r^2).
double prim_norm(double a, int l) {
  return std::sqrt(std::pow(2.0, 2 * l) * std::pow(2 * a / M_PI, 1.5) * std::pow(a, l) / dfact(2 * l - 1));
}

struct Flat {  // one basis function of the file
  const MShell* shell;
  std::array<double, 3> at;
  Function f;
  double contraction_norm;
};

double raw_overlap(const Flat& u, const Flat& v) {
  double s = 0;
  for (std::size_t p = 0; p < u.shell->exps.size(); ++p)
    for (std::size_t q = 0; q < v.shell->exps.size(); ++q) {
      const double a = u.shell->exps[p], b = v.shell->exps[q];
      const double w = u.shell->coefs[p] * v.shell->coefs[q] * prim_norm(a, u.shell->l) * prim_norm(b, v.shell->l);
      for (const Term& t : u.f)
        for (const Term& r : v.f)
          s += w * t.coef * r.coef * overlap_1d(t.a, r.a, u.at[0], v.at[0], a, b) *
               overlap_1d(t.b, r.b, u.at[1], v.at[1], a, b) * overlap_1d(t.c, r.c, u.at[2], v.at[2], a, b);
    }
  return s * u.contraction_norm * v.contraction_norm;
}

Eigen::MatrixXd molden_overlap(const MoldenFile& m) {
  std::vector<Flat> fs;
  for (const auto& s : m.shells)
    for (const auto& f : molden_functions(s.l, m.pure)) fs.push_back({&s, m.atoms[s.atom], f, 1.0});
  // Molden normalises each contraction: scale so that the x^l (or, for pure
  // shells, any) component has unit norm.
  for (auto& f : fs) {
    Flat xl{f.shell, f.at, {{1.0, f.shell->l, 0, 0}}, 1.0};
    f.contraction_norm = 1.0 / std::sqrt(raw_overlap(xl, xl));
  }
  const int n = static_cast<int>(fs.size());
  Eigen::MatrixXd S(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) S(i, j) = S(j, i) = raw_overlap(fs[i], fs[j]);
  return S;
}

// ---- the tests ------------------------------------------------------------------
// A ScfResult with random orthonormal orbitals (no SCF needed).
ScfResult random_orbitals(const Basis& b, bool uhf, unsigned seed) {
  const Eigen::MatrixXd X = orthogonalizer(overlap_matrix(b));
  std::mt19937 gen(seed);
  std::normal_distribution<double> g;
  auto rotation = [&] {
    Eigen::MatrixXd a(X.cols(), X.cols());
    for (int i = 0; i < a.size(); ++i) a.data()[i] = g(gen);
    return Eigen::MatrixXd(Eigen::HouseholderQR<Eigen::MatrixXd>(a).householderQ());
  };
  ScfResult r;
  r.reference = uhf ? "uhf" : "rhf";
  r.nbf = b.nbf;
  r.nmo = static_cast<int>(X.cols());
  r.C_alpha = X * rotation();
  r.C_beta = uhf ? Eigen::MatrixXd(X * rotation()) : r.C_alpha;
  r.eps_alpha = Eigen::VectorXd::LinSpaced(r.nmo, -20.0, 3.0);
  r.eps_beta = Eigen::VectorXd::LinSpaced(r.nmo, -19.0, 4.0);
  r.occ_alpha = Eigen::VectorXd::Zero(r.nmo);
  r.occ_beta = Eigen::VectorXd::Zero(r.nmo);
  r.occ_alpha.head(5).setOnes();
  r.occ_beta.head(uhf ? 4 : 5).setOnes();
  return r;
}

void check_round_trip(const std::string& basis, bool pure, bool uhf) {
  auto in = chem_test::make_input(basis, chem_test::distorted_water());
  in.puream = pure;
  const Basis b = load_basis(in);
  const ScfResult r = random_orbitals(b, uhf, 7);
  const std::string path = (std::filesystem::temp_directory_path() / "cyclocc_test.molden").string();
  write_molden(path, in, b, r);
  const MoldenFile m = read_molden(path);
  ASSERT_EQ(m.pure, pure);
  ASSERT_EQ(m.atoms.size(), 3u);
  EXPECT_EQ(m.Z, (std::vector<int>{8, 1, 1}));
  EXPECT_EQ(m.atoms[2][2], in.molecule.atoms[2].xyz[2]);
  ASSERT_EQ(m.mos.size(), static_cast<std::size_t>(uhf ? 2 * r.nmo : r.nmo));
  const Eigen::MatrixXd S = molden_overlap(m);
  ASSERT_EQ(S.rows(), b.nbf);
  for (int spin = 0; spin < (uhf ? 2 : 1); ++spin) {
    Eigen::MatrixXd C(b.nbf, r.nmo);
    for (int i = 0; i < r.nmo; ++i) {
      const MOrbital& mo = m.mos[spin * r.nmo + i];
      ASSERT_EQ(static_cast<int>(mo.c.size()), b.nbf);
      C.col(i) = Eigen::Map<const Eigen::VectorXd>(mo.c.data(), b.nbf);
      EXPECT_EQ(mo.spin, spin ? "Beta" : "Alpha");
      EXPECT_NEAR(mo.energy, spin ? r.eps_beta(i) : r.eps_alpha(i), 1e-9);
      const double occ = spin ? r.occ_beta(i) : (uhf ? r.occ_alpha(i) : r.occ_alpha(i) + r.occ_beta(i));
      EXPECT_EQ(mo.occupation, occ);
    }
    const double err = (C.transpose() * S * C - Eigen::MatrixXd::Identity(r.nmo, r.nmo)).cwiseAbs().maxCoeff();
    EXPECT_LT(err, 1e-9) << basis << (pure ? " pure" : " cartesian") << " spin " << spin;
  }
}

TEST(Molden, PureDAndFRoundTripOrthonormal) { check_round_trip("cc-pvtz", true, false); }
TEST(Molden, CartesianDAndFRoundTripOrthonormal) { check_round_trip("cc-pvtz", false, true); }
TEST(Molden, CartesianDPople) { check_round_trip("6-31g**", false, true); }
TEST(Molden, PureAndCartesianG) {
  check_round_trip("cc-pvqz", true, false);
  check_round_trip("cc-pvqz", false, false);
}

TEST(Molden, OrderPermutations) {
  EXPECT_EQ(molden_order(2, true), (std::vector<int>{2, 3, 1, 4, 0}));
  EXPECT_EQ(molden_order(2, false), (std::vector<int>{0, 3, 5, 1, 2, 4}));
  EXPECT_EQ(molden_order(1, false), (std::vector<int>{0, 1, 2}));
  EXPECT_DOUBLE_EQ(cartesian_component_norm(1, 1, 0), std::sqrt(1.0 / 3.0));
}

}  // namespace
}  // namespace cyclocc::chem
