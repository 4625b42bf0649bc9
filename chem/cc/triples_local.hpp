// Helpers shared by the per-triple (T) kernels (triples_rhf.cpp,
// triples_uhf.cpp), which work on local row-major copies.
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Core>

namespace cyclocc::cc {

// x as a rows x cols row-major matrix, transposed: [p][q] -> [q][p], and with
// p and q standing for index pairs, t_ij^ab [a][b][i][j] -> [i][j][a][b].
inline std::vector<double> transposed(const std::vector<double>& x, std::size_t rows, std::size_t cols) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::vector<double> out(x.size());
  Eigen::Map<RowMajor>(out.data(), cols, rows) = Eigen::Map<const RowMajor>(x.data(), rows, cols).transpose();
  return out;
}

}  // namespace cyclocc::cc
