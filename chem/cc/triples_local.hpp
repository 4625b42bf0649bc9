// Helpers shared by the per-triple (T) kernels (triples_rhf.cpp,
// triples_uhf.cpp), which work on local row-major copies.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include "chem/cc/triples.hpp"

namespace cyclocc::cc {

// x as a rows x cols row-major matrix, transposed: [p][q] -> [q][p], and with
// p and q standing for index pairs, t_ij^ab [a][b][i][j] -> [i][j][a][b].
inline std::vector<double> transposed(const std::vector<double>& x, std::size_t rows, std::size_t cols) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::vector<double> out(x.size());
  Eigen::Map<RowMajor>(out.data(), cols, rows) = Eigen::Map<const RowMajor>(x.data(), rows, cols).transpose();
  return out;
}

// Deals `total` triples out round robin over the ranks and calls `progress`
// on every rank after whole rounds, about 100 times in all, and at the end.
class RoundRobin {
 public:
  RoundRobin(long total, int rank, int nranks, const TriplesProgress& progress)
      : total_(total), rank_(rank), nranks_(nranks), progress_(progress) {
    const long rounds = (total + nranks - 1) / nranks;
    stride_ = nranks * std::max(1L, (rounds + 99) / 100);
  }
  // Whether triple n (counted from 0 in the same order on every rank) is
  // this rank's.
  bool mine(long n) const { return n % nranks_ == rank_; }
  // After triple n, on every rank.
  void done(long n) const {
    if (progress_ && ((n + 1) % stride_ == 0 || n + 1 == total_)) progress_(n + 1, total_);
  }

 private:
  long total_;
  int rank_;
  int nranks_;
  const TriplesProgress& progress_;
  long stride_ = 1;
};

}  // namespace cyclocc::cc
