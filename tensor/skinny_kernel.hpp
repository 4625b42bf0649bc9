// (internal) The register kernel of skinny_gemm (skinny_gemm.hpp), written
// once and compiled twice: for AVX2 with 16 256-bit vector registers
// (skinny_gemm.cpp) and for AVX-512 with 32 512-bit ones
// (skinny_gemm_avx512.cpp, chosen at run time where the processor has it).
// Included only by those two files; the anonymous namespace gives each its
// own copy.
//
// OpenBLAS packs every element of A (M x K) into its own buffer before its
// kernel reads it, and with N <= 16 columns each element then serves only N
// multiply-adds. Here A is read once, where it lies, and each element is
// broadcast against a row of op(B) held in registers' width: C's row i,
// columns wv..wv+w-1 (w = 4 or 8 doubles a vector), accumulates
// A[i][k] * Bp[k][wv..wv+w-1] over k, R rows of A at a time (R x NV vector
// accumulators, NV = ceil(N / w)). Bp is op(B) packed row-major with its
// columns padded to w NV, a chunk of kc rows at a time (a quarter of L2,
// kept to 32-256 KB: on Zen 4, 256 KB, the whole of K up to 2048 at 16
// columns). The rows of A go in panels of 16 R so that a panel's pages stay
// in the TLB while its chunks pass; each panel accumulates in a small
// buffer, added to C with alpha at the end. Each call prefetches the next R
// rows of its chunk into L2 (a prefetch never faults, so past the last row
// is harmless): with chunks this long they are a call's worth of A ahead (R
// kc doubles: 128 KB at 16 columns with 256 KB chunks, up to 512 KB with 4
// columns in the AVX2 build), more than L1 holds. Into L1 instead, at two
// processes on Zen 4 with A from memory, the ladders above took 1.0-1.2x the
// time with 15 columns, 1.0-1.35x with 10 and 1.15-1.4x with 3 (alternated
// call by call), and the AVX2 build 1.15-1.5x.
//
// Chunks of 32 KB (for L1) cut each row of A into pieces of 2-4 KB, read
// R rows side by side; the memory stream kept up less well with those than
// with whole rows. With A from memory, as the integrals come in an iteration,
// 256 KB chunks measured 0.87-0.97x the time at two processes on Zen 4
// (M = 3741, N = 10, K = 1870; M = 3828, N = 15, K = 1914, the ladders of
// H2O/aug-cc-pVTZ at 2 ranks; CH2 cc-pVTZ's at 2 ranks) and 0.92-0.99x at
// one (K = M), alternated call by call in one process.
#pragma once

#include <immintrin.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <vector>

namespace cyclocc::tensor {
namespace {

// op(B)[k][j]: B (K x N, ldb) or, with b_trans, B^T (B stored N x K).
inline double op_b(const double* B, std::int64_t ldb, bool b_trans, std::int64_t k, std::int64_t j) {
  return b_trans ? B[j * ldb + k] : B[k * ldb + j];
}

// The vectors of a build: 256-bit (the AVX2 build, and AVX-512VL's with 32
// registers) or 512-bit (the AVX-512 build, where a core has two 512-bit
// multiply-add units: twice the multiply-adds per instruction).
struct Ymm {
  using V = __m256d;
  static constexpr int width = 4;
  [[gnu::always_inline]] static V load(const double* t) { return _mm256_loadu_pd(t); }
  [[gnu::always_inline]] static void store(double* t, V v) { _mm256_storeu_pd(t, v); }
  [[gnu::always_inline]] static V broadcast(const double* a) { return _mm256_broadcast_sd(a); }
  [[gnu::always_inline]] static V fma(V x, V b, V c) { return _mm256_fmadd_pd(x, b, c); }
};
#ifdef __AVX512F__
struct Zmm {
  using V = __m512d;
  static constexpr int width = 8;
  [[gnu::always_inline]] static V load(const double* t) { return _mm512_loadu_pd(t); }
  [[gnu::always_inline]] static void store(double* t, V v) { _mm512_storeu_pd(t, v); }
  [[gnu::always_inline]] static V broadcast(const double* a) { return _mm512_set1_pd(*a); }
  [[gnu::always_inline]] static V fma(V x, V b, V c) { return _mm512_fmadd_pd(x, b, c); }
};
#endif

// One row of accumulators (or of Bp): NV vectors of L::width columns. Named
// members, not an array, so that GCC keeps them in registers.
template <class L, int NV>
struct Row {
  typename L::V c0, c1, c2, c3;
};

template <class L, int NV>
[[gnu::always_inline]] inline void load(Row<L, NV>& r, const double* t) {
  constexpr int w = L::width;
  r.c0 = L::load(t);
  if constexpr (NV > 1) r.c1 = L::load(t + w);
  if constexpr (NV > 2) r.c2 = L::load(t + 2 * w);
  if constexpr (NV > 3) r.c3 = L::load(t + 3 * w);
}

template <class L, int NV>
[[gnu::always_inline]] inline void store(const Row<L, NV>& r, double* t) {
  constexpr int w = L::width;
  L::store(t, r.c0);
  if constexpr (NV > 1) L::store(t + w, r.c1);
  if constexpr (NV > 2) L::store(t + 2 * w, r.c2);
  if constexpr (NV > 3) L::store(t + 3 * w, r.c3);
}

// r += a * b (a broadcast).
template <class L, int NV>
[[gnu::always_inline]] inline void multiply_add(Row<L, NV>& r, const double* a, const Row<L, NV>& b) {
  const typename L::V x = L::broadcast(a);
  r.c0 = L::fma(x, b.c0, r.c0);
  if constexpr (NV > 1) r.c1 = L::fma(x, b.c1, r.c1);
  if constexpr (NV > 2) r.c2 = L::fma(x, b.c2, r.c2);
  if constexpr (NV > 3) r.c3 = L::fma(x, b.c3, r.c3);
}

// t[r][:] += sum_{k < kc} a[r * lda + k] * bp[k][:] for the R rows r.
// The rows are written out one by one: as an array, or through std::tie and
// a fold over them, GCC 12 keeps the accumulators on the stack and the kernel
// runs at half the speed (bench_skinny). Not inlined: inside skinny() GCC ran
// out of integer registers and kept the loop counter on the stack, a
// store-to-load dependency per k (M = 240, N = 8, K = 1000 in cache: 19 ->
// 51 GFLOP/s out of line).
template <class L, int NV, int R>
[[gnu::noinline]] void rows_times_chunk(const double* a, std::int64_t lda, const double* bp, std::int64_t kc, double* t) {
  static_assert(R >= 1 && R <= 8);
  constexpr int W = L::width * NV;
  Row<L, NV> r0, r1, r2, r3, r4, r5, r6, r7, b;
  load(r0, t);
  if constexpr (R > 1) load(r1, t + W);
  if constexpr (R > 2) load(r2, t + 2 * W);
  if constexpr (R > 3) load(r3, t + 3 * W);
  if constexpr (R > 4) load(r4, t + 4 * W);
  if constexpr (R > 5) load(r5, t + 5 * W);
  if constexpr (R > 6) load(r6, t + 6 * W);
  if constexpr (R > 7) load(r7, t + 7 * W);
  for (std::int64_t k = 0; k < kc; ++k) {
    if ((k & 7) == 0)  // the next R rows' cache line at k (the next call's)
      for (int r = R; r < 2 * R; ++r) _mm_prefetch(reinterpret_cast<const char*>(a + r * lda + k), _MM_HINT_T1);
    load(b, bp + k * W);
    multiply_add(r0, a + k, b);
    if constexpr (R > 1) multiply_add(r1, a + lda + k, b);
    if constexpr (R > 2) multiply_add(r2, a + 2 * lda + k, b);
    if constexpr (R > 3) multiply_add(r3, a + 3 * lda + k, b);
    if constexpr (R > 4) multiply_add(r4, a + 4 * lda + k, b);
    if constexpr (R > 5) multiply_add(r5, a + 5 * lda + k, b);
    if constexpr (R > 6) multiply_add(r6, a + 6 * lda + k, b);
    if constexpr (R > 7) multiply_add(r7, a + 7 * lda + k, b);
  }
  store(r0, t);
  if constexpr (R > 1) store(r1, t + W);
  if constexpr (R > 2) store(r2, t + 2 * W);
  if constexpr (R > 3) store(r3, t + 3 * W);
  if constexpr (R > 4) store(r4, t + 4 * W);
  if constexpr (R > 5) store(r5, t + 5 * W);
  if constexpr (R > 6) store(r6, t + 6 * W);
  if constexpr (R > 7) store(r7, t + 7 * W);
}

// Rows per call: R x NV accumulators and NV vectors of Bp within the vector
// registers (16 with AVX2, 32 with AVX-512), one left for the broadcast.
// With 16, four vectors a row take three rows (17 registers: GCC reads Bp
// from L1 instead of keeping it), as measured faster than two.
template <int Regs>
constexpr int rows_for(int nv) {
  if constexpr (Regs >= 32) return nv == 4 ? 6 : 8;
  return nv == 4 ? 3 : nv == 3 ? 4 : nv == 2 ? 6 : 8;
}

// Rows of op(B) per chunk of W columns: a quarter of the L2 cache as the C
// library reports it, kept to 32-256 KB (a 256 KB chunk would fill the L2 of
// older cores); 256 KB where it reports none. Measured on Zen 4 only, with
// 1 MB of L2. (glibc answers from what it read at start-up: about 4 ns.)
inline std::int64_t chunk_rows(int W) {
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  const std::int64_t bytes = l2 > 0 ? std::clamp<std::int64_t>(l2 / 4, 32768, 262144) : 262144;
  return bytes / (8 * W);
}

template <class L, int NV, int Regs>
void skinny(std::int64_t M, std::int64_t N, std::int64_t K, double alpha, const double* A, std::int64_t lda,
            const double* B, std::int64_t ldb, bool b_trans, bool add, double* C, std::int64_t ldc) {
  constexpr int W = L::width * NV, R = rows_for<Regs>(NV);
  const std::int64_t kc = chunk_rows(W);
  constexpr std::int64_t P = 16 * R;     // rows of A per panel
  std::vector<double> bp(K * W, 0.0), t(P * W);
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t j = 0; j < N; ++j) bp[k * W + j] = op_b(B, ldb, b_trans, k, j);
  for (std::int64_t i0 = 0; i0 < M; i0 += P) {
    const std::int64_t rows = std::min(P, M - i0);
    std::fill(t.begin(), t.end(), 0.0);
    for (std::int64_t k0 = 0; k0 < K; k0 += kc) {
      const std::int64_t kk = std::min(kc, K - k0);
      const double* a = A + i0 * lda + k0;
      std::int64_t r = 0;
      for (; r + R <= rows; r += R) rows_times_chunk<L, NV, R>(a + r * lda, lda, bp.data() + k0 * W, kk, &t[r * W]);
      for (; r < rows; ++r) rows_times_chunk<L, NV, 1>(a + r * lda, lda, bp.data() + k0 * W, kk, &t[r * W]);
    }
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < N; ++j) {
        double& c = C[(i0 + r) * ldc + j];
        c = (add ? c : 0.0) + alpha * t[r * W + j];
      }
  }
}

// The other kernel, for short rows (K <= kRowsMaxK) and few columns: each row
// of A on its own, read as one stream, times the N columns of op(B) held
// transposed in bt (N rows of Kp doubles, Kp = K rounded up to 4, zero
// padded). Vectors run along k; two sets of N accumulators (k mod 8 below 4
// and above) keep 2N multiply-adds in flight, and the last 1-7 k are read
// under a mask. Reading A row by row, not R rows side by side, keeps the
// hardware prefetcher on one stream: with A out of cache (M = 37845, N = 5,
// K = 87, the closed-shell t1 <ov||vv> products of H2O/aug-cc-pVTZ) 1.3-1.8x
// faster than the panels above; slower from K of a few hundred on.
constexpr std::int64_t kRowsMaxK = 128;

// The row kernel also asks for A's cache line this far ahead (bytes): the
// hardware prefetcher alone kept A's stream at 9-12 GB/s from memory, with
// the N loads of op(B) per load of A. bench_skinny, M = 37845, N = 5, K = 87:
// 2.56 -> 1.83 ms; 512 B to 4 KB ahead measured 9.6 -> 13-13.6 GB/s in a
// standalone copy of the kernel, 4 KB the best.
constexpr int kRowsPrefetchBytes = 4096;

template <int N>
[[gnu::noinline]] void row_times_columns(const double* a, const double* bt, std::int64_t K, std::int64_t Kp, double* c,
                                         double alpha, bool add) {
  __m256d x[N], y[N];
  for (int j = 0; j < N; ++j) x[j] = y[j] = _mm256_setzero_pd();
  std::int64_t k = 0;
  const char* ahead = reinterpret_cast<const char*>(a) + kRowsPrefetchBytes;  // never faults
  for (; k + 8 <= K; k += 8) {
    _mm_prefetch(ahead + 8 * k, _MM_HINT_T0);  // one 64-byte line per 8 k
    const __m256d a0 = _mm256_loadu_pd(a + k), a1 = _mm256_loadu_pd(a + k + 4);
    for (int j = 0; j < N; ++j) {
      x[j] = _mm256_fmadd_pd(a0, _mm256_load_pd(bt + j * Kp + k), x[j]);
      y[j] = _mm256_fmadd_pd(a1, _mm256_load_pd(bt + j * Kp + k + 4), y[j]);
    }
  }
  if (k < K) _mm_prefetch(ahead + 8 * k, _MM_HINT_T0);
  for (; k < K; k += 4) {
    const std::int64_t left = K - k;
    const __m256i mask = _mm256_set_epi64x(left > 3 ? -1 : 0, left > 2 ? -1 : 0, left > 1 ? -1 : 0, -1);
    const __m256d a0 = _mm256_maskload_pd(a + k, mask);
    for (int j = 0; j < N; ++j) x[j] = _mm256_fmadd_pd(a0, _mm256_load_pd(bt + j * Kp + k), x[j]);
  }
  for (int j = 0; j < N; ++j) {
    const __m256d v = _mm256_add_pd(x[j], y[j]);
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
    c[j] = (add ? c[j] : 0.0) + alpha * _mm_cvtsd_f64(s);
  }
}

template <int N>
void rows_one_by_one(std::int64_t M, std::int64_t K, double alpha, const double* A, std::int64_t lda, const double* B,
                     std::int64_t ldb, bool b_trans, bool add, double* C, std::int64_t ldc) {
  const std::int64_t Kp = (K + 3) / 4 * 4;
  std::vector<double> store(N * Kp + 4, 0.0);  // bt, aligned to 32 bytes inside
  const std::size_t misalign = (reinterpret_cast<std::uintptr_t>(store.data()) / sizeof(double)) % 4;
  double* bt = store.data() + (4 - misalign) % 4;
  for (int j = 0; j < N; ++j)
    for (std::int64_t k = 0; k < K; ++k) bt[j * Kp + k] = op_b(B, ldb, b_trans, k, j);
  for (std::int64_t i = 0; i < M; ++i) row_times_columns<N>(A + i * lda, bt, K, Kp, C + i * ldc, alpha, add);
}

// C = beta C + alpha A op(B) for 1 <= N <= 8 columns by rows one by one.
inline void run_rows_one_by_one(std::int64_t M, std::int64_t N, std::int64_t K, double alpha, const double* A,
                                std::int64_t lda, const double* B, std::int64_t ldb, bool b_trans, bool add, double* C,
                                std::int64_t ldc) {
  switch (N) {
    case 1: return rows_one_by_one<1>(M, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
    case 2: return rows_one_by_one<2>(M, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
    case 3: return rows_one_by_one<3>(M, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
    case 4: return rows_one_by_one<4>(M, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
    case 5: return rows_one_by_one<5>(M, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
    case 6: return rows_one_by_one<6>(M, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
    case 7: return rows_one_by_one<7>(M, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
    case 8: return rows_one_by_one<8>(M, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
  }
}

// C = beta C + alpha A op(B) for 1 <= N <= 16 columns, beta 0 or 1, with
// vectors L.
template <class L, int Regs>
void run_skinny(std::int64_t M, std::int64_t N, std::int64_t K, double alpha, const double* A, std::int64_t lda,
                const double* B, std::int64_t ldb, bool b_trans, bool add, double* C, std::int64_t ldc) {
  switch ((N + L::width - 1) / L::width) {
    case 1: return skinny<L, 1, Regs>(M, N, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
    case 2: return skinny<L, 2, Regs>(M, N, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
    case 3:
      if constexpr (L::width == 4) return skinny<L, 3, Regs>(M, N, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
      break;
    case 4:
      if constexpr (L::width == 4) return skinny<L, 4, Regs>(M, N, K, alpha, A, lda, B, ldb, b_trans, add, C, ldc);
      break;
  }
}

}  // namespace
}  // namespace cyclocc::tensor
