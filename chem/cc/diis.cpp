#include "chem/cc/diis.hpp"

#include <Eigen/Dense>
#include <cmath>

namespace cyclocc::cc {

void AmplitudeDiis::drop_oldest() {
  vectors_.pop_front();
  errors_.pop_front();
  overlaps_.pop_front();
  for (auto& row : overlaps_) row.erase(row.begin());
}

std::int64_t AmplitudeDiis::local_words() const {
  std::int64_t n = 0;
  for (const Amplitudes& v : vectors_) n += v.local_words();
  for (const Amplitudes& e : errors_) n += e.local_words();
  return n;
}

std::optional<double> AmplitudeDiis::extrapolate(Amplitudes& t, const Amplitudes& error) {
  if (!diis_on(max_)) return std::nullopt;
  const bool full = size() == max_;
  // The new error's overlaps with the errors kept (all but the oldest when
  // full) and itself, before it is stored: where the dots fill derived blocks
  // (restricted T3), the copy stored below takes them filled.
  std::vector<const Amplitudes*> kept;
  for (std::size_t i = full ? 1 : 0; i < errors_.size(); ++i) kept.push_back(&errors_[i]);
  kept.push_back(&error);
  std::vector<double> row = error.dots(kept);
  if (full) {
    // The oldest pair's storage takes the new one (no new allocation).
    Amplitudes v = std::move(vectors_.front()), e = std::move(errors_.front());
    drop_oldest();
    v = t;
    e = error;
    vectors_.push_back(std::move(v));
    errors_.push_back(std::move(e));
  } else {
    vectors_.push_back(t);
    errors_.push_back(error);
  }
  overlaps_.push_back(std::move(row));
  const double self = overlaps_.back().back();
  // Linearly dependent errors (few amplitudes, e.g. the one of H2 in a
  // minimal basis) make the system singular, and its solutions can weight old
  // iterates so that the amplitudes stop changing: drop the oldest until it
  // is not, as the SCF's DIIS does (chem/diis.cpp).
  for (; size() >= 2; drop_oldest()) {
    if (const auto c = coefficients()) {
      std::vector<const Amplitudes*> from;
      for (const Amplitudes& v : vectors_) from.push_back(&v);
      t.combine(*c, from);
      return self;
    }
  }
  return self;
}

std::optional<std::vector<double>> AmplitudeDiis::coefficients() const {
  // Minimise |sum c_i e_i| subject to sum c_i = 1 (Lagrange multiplier in the
  // last row) with B_ij = <e_i|e_j> scaled to cosines B_ij / sqrt(B_ii B_jj),
  // so that only a linear dependence, not errors of very different sizes,
  // makes the system ill-conditioned. With s_i = sqrt(min_k B_kk / B_ii) and
  // c_i = s_i x_i:  sum_j s_i B_ij s_j x_j - s_i mu = 0,  sum_i s_i x_i = 1.
  const int n = size();
  double smallest = overlaps_[0][0];
  for (int i = 1; i < n; ++i) smallest = std::min(smallest, overlaps_[i][i]);
  if (!(smallest > 0)) return std::nullopt;  // an error of zero: nothing to extrapolate
  Eigen::VectorXd s(n);
  for (int i = 0; i < n; ++i) s(i) = std::sqrt(smallest / overlaps_[i][i]);
  Eigen::MatrixXd b = Eigen::MatrixXd::Zero(n + 1, n + 1);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) b(i, j) = b(j, i) = overlaps_[i][j] / smallest * s(i) * s(j);
    b(i, n) = b(n, i) = -s(i);
  }
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n + 1);
  rhs(n) = -1.0;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(b);
  if (!lu.isInvertible() || lu.rcond() <= 1e-14) return std::nullopt;
  const Eigen::VectorXd x = lu.solve(rhs);
  std::vector<double> c(n);
  for (int i = 0; i < n; ++i) c[i] = s(i) * x(i);
  return c;
}

}  // namespace cyclocc::cc
