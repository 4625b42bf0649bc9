// A matrix product with few columns, C += alpha * A * op(B), where OpenBLAS is
// slow: it packs all of the large A before its kernel uses each element for
// only N products. This kernel reads A once, in place, against op(B) packed
// in chunks that stay in L2 (skinny_kernel.hpp). The contraction's local
// dgemm calls it through skinny_gemm_fits (tensor/contract.cpp); the tests
// compare it with plain loops.
#pragma once

#include <cstdint>
#include <vector>

namespace cyclocc::tensor {

// Widest C one pass of the kernel takes (columns); wider ones take several.
constexpr std::int64_t kSkinnyMaxColumns = 16;

// True when skinny_gemm computes this product (row-major A of M x K, not
// transposed) and is faster than OpenBLAS for it: N <= kSkinnyMaxColumns, or
// with the AVX-512VL build up to 128 columns on a large A.
bool skinny_gemm_fits(std::int64_t M, std::int64_t N, std::int64_t K, bool a_trans);

// C (M x N, row-major, leading dimension ldc) = beta * C + alpha * A * op(B),
// A row-major M x K with leading dimension lda; op(B) = B (K x N, ldb) or,
// with b_trans, B^T (B stored N x K, ldb). beta is 0 (C is not read) or 1.
// More than kSkinnyMaxColumns columns go in passes over A, each for an equal
// slice of at most that many.
// Runs on the widest instruction set of skinny_gemm_isas().
void skinny_gemm(std::int64_t M, std::int64_t N, std::int64_t K, double alpha, const double* A, std::int64_t lda,
                 const double* B, std::int64_t ldb, bool b_trans, double beta, double* C, std::int64_t ldc);

// The builds of the kernel: AVX2 (16 256-bit vector registers) and AVX-512
// (32 512-bit ones, with AVX-512VL for its 256-bit paths: the row kernel, and
// 9-12 columns on Zen 4).
enum class SkinnyIsa { avx2, avx512 };

// The builds this binary has and this processor runs, narrowest first (empty
// without AVX2 and FMA).
std::vector<SkinnyIsa> skinny_gemm_isas();

// skinny_gemm on a given build (the tests run each one the processor has).
void skinny_gemm_on(SkinnyIsa isa, std::int64_t M, std::int64_t N, std::int64_t K, double alpha, const double* A,
                    std::int64_t lda, const double* B, std::int64_t ldb, bool b_trans, double beta, double* C,
                    std::int64_t ldc);

}  // namespace cyclocc::tensor
