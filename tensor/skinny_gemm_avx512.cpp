// skinny_gemm's kernel (skinny_kernel.hpp) with AVX-512VL's 32 vector
// registers: the same 256-bit instructions, twice the accumulators. This file
// alone is compiled with -mavx512f -mavx512vl; skinny_gemm() calls it only
// where the processor has both.
//
// Measured with bench_skinny on an AMD EPYC (Zen 4) whose OpenBLAS takes its
// Cooperlake kernels: M = K = 3828, N = 15 (the ladder of H2O/aug-cc-pVTZ)
// 23 -> 46 GFLOP/s against the AVX2 build, six rows of four vectors instead
// of three. With up to 8 columns and rows of at most 128, rows one by one
// instead (row_times_columns).
#include "tensor/skinny_kernel.hpp"

namespace cyclocc::tensor {

void skinny_gemm_avx512(std::int64_t M, std::int64_t N, std::int64_t K, double alpha, const double* A,
                        std::int64_t lda, const double* B, std::int64_t ldb, bool b_trans, bool add, double* C,
                        std::int64_t ldc) {
  // Short rows, few columns: one row at a time (measured with A out of
  // cache, as in the CC iterations; skinny_kernel.hpp).
  if (N <= 8 && K <= kRowsMaxK) return run_rows_one_by_one(M, N, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
  run_skinny<32>(M, N, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
}

}  // namespace cyclocc::tensor
