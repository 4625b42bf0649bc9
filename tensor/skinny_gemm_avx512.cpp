// skinny_gemm's kernel (skinny_kernel.hpp) with AVX-512's 32 vector
// registers and 512-bit vectors. This file alone is compiled with -mavx512f
// -mavx512vl; skinny_gemm() calls it only where the processor has both.
//
// Measured with bench_skinny on an AMD EPYC (Zen 4) whose OpenBLAS takes its
// Cooperlake kernels: M = K = 3828, N = 15 (the ladder of H2O/aug-cc-pVTZ)
// 23 -> 46 GFLOP/s against the AVX2 build, with 256-bit vectors (six rows of
// four vectors instead of three). On a Xeon of model 207 (Emerald Rapids,
// two 512-bit multiply-add units a core), 512-bit vectors took it from 37 to
// 50 GFLOP/s (M = 3828, N = 15, K = 1914; N = 32: 41 -> 61), against 77 for
// OpenBLAS's 2000^3 dgemm. With up to 8 columns and rows of at most 128, rows
// one by one instead (row_times_columns, 256-bit). With 9-12 columns on Zen 4,
// 256-bit vectors: three a row pad to 12 columns where two 512-bit ones pad
// to 16, and Zen 4 runs a 512-bit multiply-add as two 256-bit halves, so the
// padding is work: M = 3741, N = 10, K = 3741 (the ladder R- of
// H2O/aug-cc-pVTZ at 1 rank, A from memory) 0.79x the time, N = 9 0.86x,
// N = 12 0.80x; at two processes, where memory bandwidth binds, 0.90-1.02x.
// Not on cores with whole 512-bit multiply-add units (Intel's, Zen 5), where
// three 256-bit multiply-adds do the work of two 512-bit ones (not measured).
#include "tensor/skinny_kernel.hpp"

namespace cyclocc::tensor {

void skinny_gemm_avx512(std::int64_t M, std::int64_t N, std::int64_t K, double alpha, const double* A,
                        std::int64_t lda, const double* B, std::int64_t ldb, bool b_trans, bool add, double* C,
                        std::int64_t ldc) {
  // Short rows, few columns: one row at a time (measured with A out of
  // cache, as in the CC iterations; skinny_kernel.hpp).
  if (N <= 8 && K <= kRowsMaxK) return run_rows_one_by_one(M, N, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
  // AMD family 19h: of its cores, only Zen 4 has AVX-512.
  const bool halved_512 = __builtin_cpu_is("amdfam19h");
  if (halved_512 && N > 8 && N <= 12)
    return run_skinny<Ymm, 32>(M, N, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
  run_skinny<Zmm, 32>(M, N, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
}

}  // namespace cyclocc::tensor
