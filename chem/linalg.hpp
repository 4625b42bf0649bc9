// Dense symmetric eigenproblems (LAPACK dsyevd) and the orthogonaliser.
#pragma once

#include <Eigen/Dense>

namespace cyclocc::chem {

struct SymmetricEigen {
  Eigen::VectorXd values;   // ascending
  Eigen::MatrixXd vectors;  // columns
};

// Eigenvalues and eigenvectors of a symmetric matrix (lower triangle used),
// with LAPACK's dsyevd. Throws std::runtime_error if LAPACK fails.
SymmetricEigen symmetric_eigen(const Eigen::MatrixXd& a);

// Linear-dependence threshold on overlap eigenvalues (Psi4's S_TOLERANCE).
inline constexpr double kLinearDependenceThreshold = 1e-7;

// X with X^T S X = 1: symmetric S^-1/2 when the smallest overlap eigenvalue
// is above `threshold`, else canonical (eigenvectors with eigenvalue above the
// threshold, scaled by 1/sqrt(eigenvalue)), which has fewer columns than rows.
// `smallest`, if given, receives the smallest eigenvalue of S that is kept.
Eigen::MatrixXd orthogonalizer(const Eigen::MatrixXd& S, double threshold = kLinearDependenceThreshold,
                               double* smallest = nullptr);

// Below this smallest kept overlap eigenvalue the SCF warns: rounding errors
// of up to about 1e-15 / s hartree (measured: 1e-9 at s = 1.1e-7, 3.7e-9 at
// 2.3e-7 between rank counts) pass 1e-9, ten times the agreement promised.
inline constexpr double kNearDependenceWarning = 1e-6;

}  // namespace cyclocc::chem
