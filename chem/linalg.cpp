#include "chem/linalg.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda,
                        double* w, double* work, const int* lwork, int* iwork, const int* liwork,
                        int* info);

namespace cyclocc::chem {

SymmetricEigen symmetric_eigen(const Eigen::MatrixXd& a) {
  const int n = static_cast<int>(a.rows());
  SymmetricEigen out;
  out.vectors = a;
  out.values.resize(n);
  if (n == 0) return out;
  int info = 0, lwork = -1, liwork = -1, iwork_query = 0;
  double work_query = 0;
  const char jobz = 'V', uplo = 'L';
  dsyevd_(&jobz, &uplo, &n, out.vectors.data(), &n, out.values.data(), &work_query, &lwork,
          &iwork_query, &liwork, &info);
  lwork = static_cast<int>(work_query);
  liwork = iwork_query;
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  dsyevd_(&jobz, &uplo, &n, out.vectors.data(), &n, out.values.data(), work.data(), &lwork,
          iwork.data(), &liwork, &info);
  if (info != 0) throw std::runtime_error("LAPACK dsyevd failed, info = " + std::to_string(info));
  return out;
}

Eigen::MatrixXd orthogonalizer(const Eigen::MatrixXd& S, double threshold, double* smallest) {
  const SymmetricEigen e = symmetric_eigen(S);
  const int n = static_cast<int>(S.rows());
  if (smallest) {
    int k = 0;
    while (k + 1 < n && e.values(k) <= threshold) ++k;
    *smallest = n > 0 ? e.values(k) : 0.0;
  }
  if (n == 0 || e.values(0) > threshold) {
    const Eigen::VectorXd inv_sqrt = e.values.array().rsqrt();
    return e.vectors * inv_sqrt.asDiagonal() * e.vectors.transpose();
  }
  int first = 0;  // eigenvalues ascend: keep those above the threshold
  while (first < n && e.values(first) <= threshold) ++first;
  const int kept = n - first;
  Eigen::MatrixXd X = e.vectors.rightCols(kept);
  for (int k = 0; k < kept; ++k) X.col(k) /= std::sqrt(e.values(first + k));
  return X;
}

}  // namespace cyclocc::chem
