#include "chem/integrals.hpp"

#include <algorithm>
#include <cmath>

#include "chem/molecule.hpp"

namespace cyclocc::chem {
namespace {

// Fills the symmetric matrix of a one-body operator shell pair by shell pair.
Eigen::MatrixXd one_body(const Basis& basis, libint2::Engine& engine) {
  const int n = basis.nbf;
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  const auto& buf = engine.results();
  for (std::size_t s1 = 0; s1 < basis.shells.size(); ++s1) {
    const int o1 = basis.shell_offset[s1];
    const int n1 = static_cast<int>(basis.shells[s1].size());
    for (std::size_t s2 = 0; s2 <= s1; ++s2) {
      const int o2 = basis.shell_offset[s2];
      const int n2 = static_cast<int>(basis.shells[s2].size());
      engine.compute(basis.shells[s1], basis.shells[s2]);
      if (buf[0] == nullptr) continue;  // screened out: all zero
      for (int i = 0; i < n1; ++i)      // libint2 returns row-major n1 x n2
        for (int j = 0; j < n2; ++j) {
          m(o1 + i, o2 + j) = buf[0][i * n2 + j];
          m(o2 + j, o1 + i) = buf[0][i * n2 + j];
        }
    }
  }
  return m;
}

Eigen::MatrixXd one_body(const Basis& basis, libint2::Operator op) {
  libint2::Engine engine(op, basis.max_nprim, basis.max_l, 0);
  return one_body(basis, engine);
}

}  // namespace

Eigen::MatrixXd overlap_matrix(const Basis& basis) {
  return one_body(basis, libint2::Operator::overlap);
}

Eigen::MatrixXd kinetic_matrix(const Basis& basis) {
  return one_body(basis, libint2::Operator::kinetic);
}

Eigen::MatrixXd nuclear_matrix(const Basis& basis, const std::vector<input::Atom>& atoms) {
  libint2::Engine engine(libint2::Operator::nuclear, basis.max_nprim, basis.max_l, 0);
  engine.set_params(point_charges(atoms));
  return one_body(basis, engine);
}

Eigen::MatrixXd schwarz_matrix(const Basis& basis) {
  const auto ns = basis.shells.size();
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(ns, ns);
  libint2::Engine engine(libint2::Operator::coulomb, basis.max_nprim, basis.max_l, 0);
  engine.set_precision(0.0);  // bounds must not be screened themselves
  const auto& buf = engine.results();
  for (std::size_t s1 = 0; s1 < ns; ++s1)
    for (std::size_t s2 = 0; s2 <= s1; ++s2) {
      const auto& a = basis.shells[s1];
      const auto& b = basis.shells[s2];
      engine.compute2<libint2::Operator::coulomb, libint2::BraKet::xx_xx, 0>(a, b, a, b);
      double mx = 0;
      if (buf[0] != nullptr) {
        const std::size_t n = a.size() * b.size();
        for (std::size_t k = 0; k < n * n; ++k) mx = std::max(mx, std::abs(buf[0][k]));
      }
      q(s1, s2) = q(s2, s1) = std::sqrt(mx);
    }
  return q;
}

}  // namespace cyclocc::chem
