#include "chem/sad.hpp"

#include <cmath>

#include "chem/diis.hpp"
#include "chem/fock.hpp"
#include "chem/integrals.hpp"
#include "chem/linalg.hpp"
#include "chem/molecule.hpp"

namespace cyclocc::chem {

Basis atom_basis(const Basis& basis, int atom) {
  Basis b;
  b.name = basis.name;
  b.file = basis.file;
  b.pure = basis.pure;
  for (std::size_t s = 0; s < basis.shells.size(); ++s) {
    if (basis.shell_atom[s] != atom) continue;
    b.shell_offset.push_back(b.nbf);
    b.shells.push_back(basis.shells[s]);
    b.shell_atom.push_back(0);
    b.nbf += static_cast<int>(basis.shells[s].size());
    b.max_l = std::max(b.max_l, static_cast<int>(basis.shells[s].contr[0].l));
    b.max_nprim = std::max(b.max_nprim, static_cast<int>(basis.shells[s].nprim()));
  }
  return b;
}

Eigen::VectorXd fractional_occupations(const Eigen::VectorXd& eps, double n_electrons) {
  constexpr double kDegenerate = 1e-6;  // hartree; symmetry-equivalent orbitals differ by ~1e-12
  Eigen::VectorXd occ = Eigen::VectorXd::Zero(eps.size());
  // Electrons are whole, so a remainder below kNone is rounding: 4 - (4/3) * 3
  // is 2.2e-16 where the compiler fuses the product into the subtraction
  // (-march=x86-64-v3 -mtune=native on some processors).
  constexpr double kNone = 1e-9;
  double left = n_electrons;
  for (int i = 0; i < eps.size() && left > kNone;) {
    int end = i + 1;
    while (end < eps.size() && eps(end) - eps(i) < kDegenerate) ++end;
    const int g = end - i;
    const double each = std::min(2.0, left / g);
    occ.segment(i, g).setConstant(each);
    left -= each * g;
    i = end;
  }
  return occ;
}

Eigen::MatrixXd atomic_density(const Basis& basis, int Z) {
  const std::vector<input::Atom> atom{{input::element_symbol(Z), Z, basis.shells.at(0).O}};
  const Eigen::MatrixXd S = overlap_matrix(basis);
  const Eigen::MatrixXd H = kinetic_matrix(basis) + nuclear_matrix(basis, atom);
  const Eigen::MatrixXd X = orthogonalizer(S);
  FockBuilder builder(basis, 0, 1);
  Diis diis(8);
  auto density_of = [&](const Eigen::MatrixXd& F) {
    const SymmetricEigen e = symmetric_eigen(X.transpose() * F * X);
    const Eigen::MatrixXd C = X * e.vectors;
    return Eigen::MatrixXd(C * fractional_occupations(e.values, Z).asDiagonal() * C.transpose());
  };
  Eigen::MatrixXd D = density_of(H);
  double e_old = 0;
  for (int it = 0; it < 100; ++it) {
    const JK jk = builder.compute_local(D, {D});
    const Eigen::MatrixXd F = H + jk.J - 0.5 * jk.K[0];
    const double e = 0.5 * D.cwiseProduct(H + F).sum();
    const Eigen::MatrixXd err = X.transpose() * (F * D * S - S * D * F) * X;
    const double rms = std::sqrt(err.squaredNorm() / static_cast<double>(err.size()));
    if (it > 0 && std::abs(e - e_old) < 1e-10 && rms < 1e-8) break;
    e_old = e;
    D = density_of(diis.extrapolate({F}, {err})[0]);
  }
  return D;
}

Eigen::MatrixXd sad_density(const par::Comm& comm, const Basis& basis,
                            const std::vector<input::Atom>& atoms) {
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(basis.nbf, basis.nbf);
  const std::vector<int> elements = unique_elements(atoms);
  for (std::size_t k = 0; k < elements.size(); ++k) {
    if (static_cast<int>(k % comm.size()) != comm.rank()) continue;
    int first = 0;
    while (atoms[first].Z != elements[k]) ++first;
    const Eigen::MatrixXd Da = atomic_density(atom_basis(basis, first), elements[k]);
    for (std::size_t a = 0; a < atoms.size(); ++a) {
      if (atoms[a].Z != elements[k]) continue;
      int offset = -1;  // first function of atom a (its shells are contiguous)
      for (std::size_t s = 0; s < basis.shells.size() && offset < 0; ++s)
        if (basis.shell_atom[s] == static_cast<int>(a)) offset = basis.shell_offset[s];
      D.block(offset, offset, Da.rows(), Da.cols()) = Da;
    }
  }
  // Each block comes from exactly one rank and the others add zeros, so the
  // sum is exact and the same on every rank.
  if (comm.size() > 1) comm.allreduce_sum(D.data(), static_cast<std::size_t>(D.size()));
  return D;
}

}  // namespace cyclocc::chem
