// One-electron integrals and Schwarz bounds over a Basis, with libint2.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "chem/basis.hpp"
#include "input/input.hpp"

namespace cyclocc::chem {

Eigen::MatrixXd overlap_matrix(const Basis& basis);
Eigen::MatrixXd kinetic_matrix(const Basis& basis);
// Attraction to the nuclei of `atoms` (negative definite).
Eigen::MatrixXd nuclear_matrix(const Basis& basis, const std::vector<input::Atom>& atoms);

// Q(s1, s2) = sqrt(max |(s1 s2|s1 s2)|) per shell pair, so that
// |(ab|cd)| <= Q(a,b) Q(c,d) (Cauchy-Schwarz).
Eigen::MatrixXd schwarz_matrix(const Basis& basis);

}  // namespace cyclocc::chem
