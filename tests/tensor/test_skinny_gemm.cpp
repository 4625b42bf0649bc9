// skinny_gemm (tensor/skinny_gemm.hpp) against plain loops: every column
// count it takes, row counts around its row blocks and panels, contracted
// lengths around its chunks of op(B), both orientations of B, strides wider
// than the matrices, accumulation into a C that already holds values (beta 1)
// and overwriting a C that holds NaN (beta 0). Each build of the kernel that
// the processor runs (AVX2, AVX-512VL) is checked.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "tensor/skinny_gemm.hpp"

namespace cyclocc::tensor {
namespace {

struct Case {
  std::int64_t M, N, K;
  bool b_trans;
  double beta = 1.0;  // 0: C starts as NaN and must be overwritten
};

std::vector<double> random_values(std::int64_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(n);
  for (double& v : x) v = u(rng);
  return x;
}

// The slow twin: C[i][j] += alpha * sum_k A[i][k] * op(B)[k][j].
void reference(const Case& c, double alpha, const std::vector<double>& a, std::int64_t lda,
               const std::vector<double>& b, std::int64_t ldb, std::vector<double>& out, std::int64_t ldc) {
  for (std::int64_t i = 0; i < c.M; ++i)
    for (std::int64_t j = 0; j < c.N; ++j) {
      double s = 0.0;
      for (std::int64_t k = 0; k < c.K; ++k) s += a[i * lda + k] * (c.b_trans ? b[j * ldb + k] : b[k * ldb + j]);
      out[i * ldc + j] += alpha * s;
    }
}

void check(SkinnyIsa isa, const Case& c, std::mt19937_64& rng) {
  // Leading dimensions wider than the matrices, so strides are honoured.
  const std::int64_t lda = c.K + 3, ldc = c.N + 2;
  const std::int64_t ldb = c.b_trans ? c.K + 1 : c.N + 5;
  const std::vector<double> a = random_values(c.M * lda, rng);
  const std::vector<double> b = random_values((c.b_trans ? c.N : c.K) * ldb, rng);
  std::vector<double> got = random_values(c.M * ldc, rng);
  if (c.beta == 0.0)
    for (std::int64_t i = 0; i < c.M; ++i)
      for (std::int64_t j = 0; j < c.N; ++j) got[i * ldc + j] = std::nan("");
  std::vector<double> want = got;
  if (c.beta == 0.0)
    for (std::int64_t i = 0; i < c.M; ++i)
      for (std::int64_t j = 0; j < c.N; ++j) want[i * ldc + j] = 0.0;
  const double alpha = -0.75;
  reference(c, alpha, a, lda, b, ldb, want, ldc);
  skinny_gemm_on(isa, c.M, c.N, c.K, alpha, a.data(), lda, b.data(), ldb, c.b_trans, c.beta, got.data(), ldc);
  // Sums of K products of values in [-1, 1], in another order.
  const double tol = 1e-15 * static_cast<double>(c.K + 4);
  for (std::int64_t i = 0; i < c.M; ++i)
    for (std::int64_t j = 0; j < ldc; ++j) {
      const std::int64_t at = i * ldc + j;
      ASSERT_NEAR(got[at], want[at], tol) << "isa " << static_cast<int>(isa) << " M " << c.M << " N " << c.N << " K " << c.K << " b_trans "
                                          << c.b_trans << " at " << i << "," << j;
    }
}

TEST(SkinnyGemm, MatchesPlainLoopsForEveryColumnCount) {
  if (!skinny_gemm_fits(64, 4, 64, false)) GTEST_SKIP() << "built without AVX2 and FMA";
  std::mt19937_64 rng(20261124);
  // Rows: a partial row block, a few blocks, more than one panel of the
  // widest rows (16 x 8 = 128) with a ragged end. Contracted: inside one
  // chunk of op(B), and across chunks (a quarter of L2: with 1 MB, 2048 rows
  // of op(B) for 16 columns, 8192 for 4; fewer with less) with a ragged end.
  for (SkinnyIsa isa : skinny_gemm_isas())
    for (std::int64_t N = 1; N <= kSkinnyMaxColumns; ++N)
      for (std::int64_t M : {1, 5, 9, 131})
        for (std::int64_t K : {1, 37, 1100, 8200})
          for (bool t : {false, true})
            for (double beta : {1.0, 0.0}) check(isa, {M, N, K, t, beta}, rng);
}

TEST(SkinnyGemm, MatchesPlainLoopsWithMoreColumnsThanOnePass) {
  if (skinny_gemm_isas().empty()) GTEST_SKIP() << "built without AVX2 and FMA";
  std::mt19937_64 rng(20261125);
  // Slices of equal width: 17 = 9 + 8, 20 = 10 + 10, 33 = 11 x 3, 64 = 16 x 4,
  // 100 = 15 x 6 + 10, 128 = 16 x 8.
  for (SkinnyIsa isa : skinny_gemm_isas())
    for (std::int64_t N : {17, 20, 33, 64, 100, 128})
      for (std::int64_t M : {7, 131})
        for (bool t : {false, true})
          for (double beta : {1.0, 0.0}) check(isa, {M, N, 300, t, beta}, rng);
}

TEST(SkinnyGemm, MatchesPlainLoopsOnShortRows) {
  if (skinny_gemm_isas().empty()) GTEST_SKIP() << "built without AVX2 and FMA";
  std::mt19937_64 rng(20261126);
  // Up to 8 columns and 128 contracted: the AVX-512VL build's rows one by
  // one, with its steps of 8 and 4 and the masked last 1-7 (and the panels
  // just past 128).
  for (SkinnyIsa isa : skinny_gemm_isas())
    for (std::int64_t N = 1; N <= 8; ++N)
      for (std::int64_t K : {2, 3, 4, 5, 7, 8, 9, 12, 13, 87, 128, 129})
        for (std::int64_t M : {1, 40})
          for (bool t : {false, true})
            for (double beta : {1.0, 0.0}) check(isa, {M, N, K, t, beta}, rng);
}

TEST(SkinnyGemm, RunsEveryBuildTheProcessorHas) {
  const std::vector<SkinnyIsa> isas = skinny_gemm_isas();
  if (isas.empty()) GTEST_SKIP() << "built without AVX2 and FMA";
  EXPECT_EQ(isas.front(), SkinnyIsa::avx2);
  // The AVX-512VL build is there exactly when the processor has it.
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#ifdef CYCLOCC_EXPECT_SKINNY_AVX512
  EXPECT_EQ(isas.back() == SkinnyIsa::avx512, avx512);
#else
  (void)avx512;
#endif
}

TEST(SkinnyGemm, ZeroColumnsOfPaddingNeverReachC) {
  if (!skinny_gemm_fits(64, 4, 64, false)) GTEST_SKIP() << "built without AVX2 and FMA";
  // C's columns beyond N (inside ldc) keep their values: check() compares
  // every column up to ldc, and here a NaN beside C would show any write.
  const std::int64_t M = 20, N = 3, K = 50, ldc = 4;
  std::vector<double> a(M * K, 1.0), b(K * N, 1.0), c(M * ldc, 0.0);
  for (std::int64_t i = 0; i < M; ++i) c[i * ldc + 3] = std::nan("");
  skinny_gemm(M, N, K, 1.0, a.data(), K, b.data(), N, false, 1.0, c.data(), ldc);
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t j = 0; j < N; ++j) EXPECT_EQ(c[i * ldc + j], 50.0);
    EXPECT_TRUE(std::isnan(c[i * ldc + 3]));
  }
}

TEST(SkinnyGemm, TakesOnlyProductsItIsMadeFor) {
  const std::vector<SkinnyIsa> isas = skinny_gemm_isas();
  // More than one pass of columns only with the 32-register build.
  const bool wide = !isas.empty() && isas.back() == SkinnyIsa::avx512;
  EXPECT_EQ(skinny_gemm_fits(1000, kSkinnyMaxColumns + 1, 1000, false), wide);
  EXPECT_EQ(skinny_gemm_fits(1000, 128, 1100, false), wide);
  EXPECT_FALSE(skinny_gemm_fits(1000, 129, 1100, false));
  EXPECT_FALSE(skinny_gemm_fits(300, 100, 300, false));  // A in cache: OpenBLAS
  EXPECT_FALSE(skinny_gemm_fits(200, 32, 1000, false));  // few rows: OpenBLAS
  EXPECT_FALSE(skinny_gemm_fits(1000, 8, 1000, true));  // A transposed: OpenBLAS
  EXPECT_FALSE(skinny_gemm_fits(1000, 0, 1000, false));
  EXPECT_FALSE(skinny_gemm_fits(16, 4, 1000, false));  // few rows: OpenBLAS
  // 9-16 columns with a short contraction: only on a long A.
  const bool any = !isas.empty();
  EXPECT_EQ(skinny_gemm_fits(24368, 15, 57, false), any);
  EXPECT_FALSE(skinny_gemm_fits(20000, 15, 32, false));  // too few contracted
  EXPECT_FALSE(skinny_gemm_fits(2000, 15, 57, false));   // A in cache: OpenBLAS
}

}  // namespace
}  // namespace cyclocc::tensor
