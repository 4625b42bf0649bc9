#include "chem/cc/diis.hpp"

#include <Eigen/Dense>

namespace cyclocc::cc {

void AmplitudeDiis::extrapolate(Amplitudes& t, const Amplitudes& error) {
  if (max_ <= 0) return;
  if (static_cast<int>(vectors_.size()) == max_) {
    // The oldest pair's storage takes the new one (no new allocation).
    Amplitudes v = std::move(vectors_.front()), e = std::move(errors_.front());
    vectors_.pop_front();
    errors_.pop_front();
    overlaps_.pop_front();
    for (auto& row : overlaps_) row.erase(row.begin());
    v = t;
    e = error;
    vectors_.push_back(std::move(v));
    errors_.push_back(std::move(e));
  } else {
    vectors_.push_back(t);
    errors_.push_back(error);
  }
  std::vector<const Amplitudes*> stored;
  for (const Amplitudes& e : errors_) stored.push_back(&e);
  const std::vector<double> row = error.dots(stored);
  overlaps_.push_back(row);
  const int n = size();
  if (n < 2) return;
  // Minimise |sum c_i e_i| subject to sum c_i = 1 (Lagrange multiplier in the last row).
  Eigen::MatrixXd b = Eigen::MatrixXd::Zero(n + 1, n + 1);
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n + 1);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) b(i, j) = b(j, i) = overlaps_[i][j];
    b(i, n) = b(n, i) = -1.0;
  }
  rhs(n) = -1.0;
  // Scale for conditioning; the solution of the scaled system is the same.
  const double scale = b.topLeftCorner(n, n).diagonal().maxCoeff();
  if (scale > 0) b.topLeftCorner(n, n) /= scale;
  const Eigen::VectorXd c = b.colPivHouseholderQr().solve(rhs);
  std::vector<const Amplitudes*> from;
  for (const Amplitudes& v : vectors_) from.push_back(&v);
  t.combine(std::vector<double>(c.data(), c.data() + n), from);
}

}  // namespace cyclocc::cc
