// C += alpha * A * op(B) for few columns (skinny_gemm.hpp). The register
// kernel is in skinny_kernel.hpp, compiled here for AVX2 (16 vector
// registers) and in skinny_gemm_avx512.cpp for AVX-512VL (32), which is
// taken where the processor has it.
#include "tensor/skinny_gemm.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#if defined(__AVX2__) && defined(__FMA__)
#include "tensor/skinny_kernel.hpp"
#define CYCLOCC_SKINNY_AVX2 1
#endif

namespace cyclocc::tensor {

#ifdef CYCLOCC_SKINNY_AVX2
#ifdef CYCLOCC_SKINNY_AVX512
// skinny_gemm_avx512.cpp
void skinny_gemm_avx512(std::int64_t M, std::int64_t N, std::int64_t K, double alpha, const double* A,
                        std::int64_t lda, const double* B, std::int64_t ldb, bool b_trans, bool add, double* C,
                        std::int64_t ldc);
#endif

// The widest build this processor runs, without allocating: skinny_gemm_fits
// and skinny_gemm ask on every local product.
namespace {
std::optional<SkinnyIsa> widest_isa() {
#ifdef CYCLOCC_SKINNY_AVX512
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return SkinnyIsa::avx512;
#endif
  return SkinnyIsa::avx2;
}
}  // namespace
#else
namespace {
std::optional<SkinnyIsa> widest_isa() { return std::nullopt; }
}  // namespace
#endif

std::vector<SkinnyIsa> skinny_gemm_isas() {
  const std::optional<SkinnyIsa> widest = widest_isa();
  if (!widest) return {};
  if (*widest == SkinnyIsa::avx2) return {SkinnyIsa::avx2};
  return {SkinnyIsa::avx2, *widest};
}

bool skinny_gemm_fits(std::int64_t M, std::int64_t N, std::int64_t K, bool a_trans) {
  if (a_trans || N < 1) return false;
  const std::optional<SkinnyIsa> isa = widest_isa();
  if (!isa) return false;
  // bench/tensor/bench_skinny --sweep: 1.1-3x faster than OpenBLAS from 64
  // rows on with up to 8 columns, from about 300 rows and 300 contracted with
  // 9-16; slower on fewer rows, where packing op(B) is not repaid. With 9-16
  // columns also on a long A (4096 rows or more) from 57 contracted, when A
  // comes from memory, as the integrals do in an iteration (--cold --sweep:
  // 1.16-1.76x with K = 57-128, 0.86-1.01x with K = 32; closed-shell P_mbej
  // of (H2O)3 cc-pVDZ at 2 ranks, M = 24368, N = 15, K = 57: 1.49x).
  if (N <= 8) return M >= 32 && K >= 8;
  if (N <= kSkinnyMaxColumns) return (M >= 256 && K >= 256) || (M >= 4096 && K >= 57);
  // Wider C in passes of at most 16 columns, with the 32-register build only:
  // on Zen 4, against OpenBLAS's Cooperlake kernels in slabs of rows (as
  // local_gemm runs them), 1.5-2.2x with 17-64 columns at M = K = 2000 and
  // 1.3x with 65-128; below 256 rows or contracted, or with more columns on
  // an A that fits in cache, OpenBLAS is as fast or faster. The AVX2 build
  // was slower than OpenBLAS's Haswell kernels there.
  if (*isa != SkinnyIsa::avx512) return false;
  if (M < 256 || K < 256) return false;
  return N <= 64 || (N <= 128 && M * K >= (1 << 20));
}

void skinny_gemm_on(SkinnyIsa isa, std::int64_t M, std::int64_t N, std::int64_t K, double alpha, const double* A,
                    std::int64_t lda, const double* B, std::int64_t ldb, bool b_trans, double beta, double* C,
                    std::int64_t ldc) {
  if (beta != 0.0 && beta != 1.0) throw std::logic_error("skinny_gemm: beta must be 0 or 1");
  if (N < 1) throw std::logic_error("skinny_gemm: " + std::to_string(N) + " columns");
  if (N > kSkinnyMaxColumns) {
    // Passes over A for equal slices of at most 16 columns (N = 20: 10 + 10).
    const std::int64_t passes = (N + kSkinnyMaxColumns - 1) / kSkinnyMaxColumns;
    const std::int64_t width = (N + passes - 1) / passes;
    for (std::int64_t j = 0; j < N; j += width)
      skinny_gemm_on(isa, M, std::min(width, N - j), K, alpha, A, lda, b_trans ? B + j * ldb : B + j, ldb, b_trans,
                     beta, C + j, ldc);
    return;
  }
  const bool add = beta == 1.0;
#ifdef CYCLOCC_SKINNY_AVX512
  if (isa == SkinnyIsa::avx512) return skinny_gemm_avx512(M, N, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
#endif
#ifdef CYCLOCC_SKINNY_AVX2
  if (isa == SkinnyIsa::avx2) return run_skinny<Ymm, 16>(M, N, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
#endif
  (void)M, (void)K, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb, (void)b_trans, (void)C, (void)ldc, (void)add;
  throw std::logic_error("skinny_gemm: instruction set not available in this build or on this processor");
}

void skinny_gemm(std::int64_t M, std::int64_t N, std::int64_t K, double alpha, const double* A, std::int64_t lda,
                 const double* B, std::int64_t ldb, bool b_trans, double beta, double* C, std::int64_t ldc) {
  const std::optional<SkinnyIsa> isa = widest_isa();
  if (!isa) throw std::logic_error("skinny_gemm: built without AVX2 and FMA");
  skinny_gemm_on(*isa, M, N, K, alpha, A, lda, B, ldb, b_trans, beta, C, ldc);
}

}  // namespace cyclocc::tensor
