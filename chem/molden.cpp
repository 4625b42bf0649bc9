#include "chem/molden.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace cyclocc::chem {
namespace {

constexpr int kMaxMoldenL = 4;

// (lx, ly, lz) of the cartesian functions in Molden's order (molden.hpp).
std::vector<std::array<int, 3>> molden_cartesian(int l) {
  switch (l) {
    case 0: return {{0, 0, 0}};
    case 1: return {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    case 2: return {{2, 0, 0}, {0, 2, 0}, {0, 0, 2}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}};
    case 3:
      return {{3, 0, 0}, {0, 3, 0}, {0, 0, 3}, {1, 2, 0}, {2, 1, 0},
              {2, 0, 1}, {1, 0, 2}, {0, 1, 2}, {0, 2, 1}, {1, 1, 1}};
    case 4:
      return {{4, 0, 0}, {0, 4, 0}, {0, 0, 4}, {3, 1, 0}, {3, 0, 1}, {1, 3, 0}, {0, 3, 1}, {1, 0, 3},
              {0, 1, 3}, {2, 2, 0}, {2, 0, 2}, {0, 2, 2}, {2, 1, 1}, {1, 2, 1}, {1, 1, 2}};
    default: throw std::invalid_argument("Molden format has no shells above g");
  }
}

// Index of (lx, ly, lz) in libint2's standard (CCA) cartesian order: lx runs
// from l down to 0, then ly from l-lx down to 0.
int cca_index(int l, int lx, int ly) {
  const int m = l - lx;
  return m * (m + 1) / 2 + (m - ly);
}

long long double_factorial(int n) {  // n!! with (-1)!! = 1
  long long r = 1;
  for (int k = n; k > 1; k -= 2) r *= k;
  return r;
}

// Normalisation of a primitive x^l exp(-a r^2) (the x^l component).
double primitive_norm(double alpha, int l) {
  const double pi32 = std::pow(M_PI, 1.5);
  return std::sqrt(std::pow(2.0, l) * std::pow(2.0 * alpha, l + 1.5) /
                   (pi32 * static_cast<double>(double_factorial(2 * l - 1))));
}

bool shell_pure(const libint2::Shell& s) { return s.contr[0].pure; }
int shell_l(const libint2::Shell& s) { return s.contr[0].l; }

void write_atoms(std::FILE* f, const input::Input& in) {
  std::fprintf(f, "[Atoms] AU\n");
  int k = 1;
  for (const auto& a : in.molecule.atoms)
    std::fprintf(f, "%-3s %4d %4d %22.15f %22.15f %22.15f\n", a.symbol.c_str(), k++, a.Z, a.xyz[0],
                 a.xyz[1], a.xyz[2]);
}

void write_gto(std::FILE* f, const input::Input& in, const Basis& basis) {
  std::fprintf(f, "[GTO]\n");
  for (std::size_t atom = 0; atom < in.molecule.atoms.size(); ++atom) {
    std::fprintf(f, "%zu 0\n", atom + 1);
    for (std::size_t s = 0; s < basis.shells.size(); ++s) {
      const auto& sh = basis.shells[s];
      if (basis.shell_atom[s] != static_cast<int>(atom) || shell_l(sh) > kMaxMoldenL) continue;
      std::fprintf(f, " %c %4zu 1.00\n", "spdfg"[shell_l(sh)], sh.nprim());
      for (std::size_t p = 0; p < sh.nprim(); ++p)  // undo libint2's primitive normalisation
        std::fprintf(f, " %22.15e %22.15e\n", sh.alpha[p],
                     sh.contr[0].coeff[p] / primitive_norm(sh.alpha[p], shell_l(sh)));
    }
    std::fprintf(f, "\n");
  }
}

// MO coefficients of one orbital in Molden's function order and normalisation.
std::vector<double> molden_coefficients(const Basis& basis, const Eigen::VectorXd& c) {
  std::vector<double> out;
  for (std::size_t s = 0; s < basis.shells.size(); ++s) {
    const auto& sh = basis.shells[s];
    const int l = shell_l(sh);
    if (l > kMaxMoldenL) continue;
    const std::vector<int> order = molden_order(l, shell_pure(sh));
    const auto cart = molden_cartesian(l);
    for (std::size_t k = 0; k < order.size(); ++k) {
      const double v = c(basis.shell_offset[s] + order[k]);
      out.push_back(shell_pure(sh) ? v : v * cartesian_component_norm(cart[k][0], cart[k][1], cart[k][2]));
    }
  }
  return out;
}

void write_orbitals(std::FILE* f, const Basis& basis, const Eigen::MatrixXd& C,
                    const Eigen::VectorXd& eps, const Eigen::VectorXd& occ, const char* spin) {
  for (int i = 0; i < C.cols(); ++i) {
    std::fprintf(f, " Sym= A\n Ene= %.10f\n Spin= %s\n Occup= %.6f\n", eps(i), spin, occ(i));
    const std::vector<double> c = molden_coefficients(basis, C.col(i));
    for (std::size_t k = 0; k < c.size(); ++k) std::fprintf(f, "%5zu %22.15e\n", k + 1, c[k]);
  }
}

}  // namespace

std::vector<int> molden_order(int l, bool pure) {
  std::vector<int> idx;
  if (pure && l >= 2) {  // m = 0, +1, -1, +2, -2, ...; libint2 stores m = -l..l
    idx.push_back(l);
    for (int m = 1; m <= l; ++m) {
      idx.push_back(l + m);
      idx.push_back(l - m);
    }
    return idx;
  }
  for (const auto& c : molden_cartesian(l)) idx.push_back(cca_index(l, c[0], c[1]));
  return idx;
}

double cartesian_component_norm(int lx, int ly, int lz) {
  const int l = lx + ly + lz;
  return std::sqrt(static_cast<double>(double_factorial(2 * lx - 1) * double_factorial(2 * ly - 1) *
                                       double_factorial(2 * lz - 1)) /
                   static_cast<double>(double_factorial(2 * l - 1)));
}

void write_molden(const std::string& path, const input::Input& in, const Basis& basis,
                  const ScfResult& scf) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!file) throw std::runtime_error(path + ": cannot write the Molden file");
  std::FILE* f = file.get();
  std::fprintf(f, "[Molden Format]\n[Title]\n%s\n", in.title.empty() ? "cyclocc" : in.title.c_str());
  write_atoms(f, in);
  write_gto(f, in, basis);
  if (basis.max_l > kMaxMoldenL)
    std::fprintf(f, "# shells above g are not representable in Molden format and were left out\n");
  if (basis.pure) std::fprintf(f, "[5D]\n[7F]\n[9G]\n");
  std::fprintf(f, "[MO]\n");
  if (scf.reference == "rhf") {
    write_orbitals(f, basis, scf.C_alpha, scf.eps_alpha, scf.occ_alpha + scf.occ_beta, "Alpha");
  } else {
    write_orbitals(f, basis, scf.C_alpha, scf.eps_alpha, scf.occ_alpha, "Alpha");
    write_orbitals(f, basis, scf.C_beta, scf.eps_beta, scf.occ_beta, "Beta");
  }
  if (std::ferror(f)) throw std::runtime_error(path + ": error writing the Molden file");
}

}  // namespace cyclocc::chem
