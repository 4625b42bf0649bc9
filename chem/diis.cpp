#include "chem/diis.hpp"

#include <cmath>

namespace cyclocc::chem {

double Diis::dot(const std::vector<Eigen::MatrixXd>& a, const std::vector<Eigen::MatrixXd>& b) const {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i].cwiseProduct(b[i]).sum();
  return s;
}

std::vector<Eigen::MatrixXd> Diis::extrapolate(const std::vector<Eigen::MatrixXd>& fock,
                                               const std::vector<Eigen::MatrixXd>& errors) {
  if (max_ <= 0) return fock;
  focks_.push_back(fock);
  errors_.push_back(errors);
  while (static_cast<int>(focks_.size()) > max_) {
    focks_.pop_front();
    errors_.pop_front();
  }
  while (focks_.size() > 1) {
    const int m = static_cast<int>(focks_.size());
    // B c = (0..0, -1) with the Lagrange row; B scaled by its largest
    // diagonal element for conditioning.
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(m + 1, m + 1);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j <= i; ++j) B(i, j) = B(j, i) = dot(errors_[i], errors_[j]);
    const double scale = B.topLeftCorner(m, m).diagonal().maxCoeff();
    if (scale > 0) B.topLeftCorner(m, m) /= scale;
    B.row(m).head(m).setConstant(-1.0);
    B.col(m).head(m).setConstant(-1.0);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(m + 1);
    rhs(m) = -1.0;
    Eigen::FullPivLU<Eigen::MatrixXd> lu(B);
    if (scale > 0 && lu.isInvertible() && lu.rcond() > 1e-14) {
      const Eigen::VectorXd c = lu.solve(rhs);
      std::vector<Eigen::MatrixXd> out(fock.size());
      for (std::size_t s = 0; s < fock.size(); ++s) {
        out[s] = Eigen::MatrixXd::Zero(fock[s].rows(), fock[s].cols());
        for (int i = 0; i < m; ++i) out[s] += c(i) * focks_[i][s];
      }
      return out;
    }
    focks_.pop_front();  // near-linear dependence: drop the oldest and retry
    errors_.pop_front();
  }
  return fock;
}

}  // namespace cyclocc::chem
