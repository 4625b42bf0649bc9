// Pulay's DIIS (Chem. Phys. Lett. 73, 393 (1980); J. Comput. Chem. 3, 556
// (1982)): extrapolates Fock matrices with the coefficients that minimise the
// norm of the combined error vector subject to sum c_i = 1. For UHF the alpha
// and beta errors are one concatenated vector and both Fock matrices get the
// same coefficients (DESIGN.md §8).
#pragma once

#include <Eigen/Dense>
#include <deque>
#include <vector>

namespace cyclocc::chem {

class Diis {
 public:
  // max_vectors = 0 turns extrapolation off.
  explicit Diis(int max_vectors) : max_(max_vectors) {}

  // Stores (fock, errors) and returns the extrapolated Fock matrices (the
  // input unchanged while off or with one stored vector).
  std::vector<Eigen::MatrixXd> extrapolate(const std::vector<Eigen::MatrixXd>& fock,
                                           const std::vector<Eigen::MatrixXd>& errors);
  std::size_t size() const { return focks_.size(); }

 private:
  double dot(const std::vector<Eigen::MatrixXd>& a, const std::vector<Eigen::MatrixXd>& b) const;
  int max_;
  std::deque<std::vector<Eigen::MatrixXd>> focks_, errors_;
};

}  // namespace cyclocc::chem
