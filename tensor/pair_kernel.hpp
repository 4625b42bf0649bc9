// (internal) contract_both_orders' kernel (pair_product.hpp), written once
// and compiled twice: for AVX2 (16 vector registers) in pair_product.cpp and
// for AVX-512VL (32) in pair_kernel_avx512.cpp, both with 256-bit vectors
// from GCC's vector extensions. Included only by those two files.
//
// For one v x v block a (row-major, in cache after its first pass) and b
// (v x O, row-major) it forms
//   p = a b     rows of a against columns of b, one row at a time (one
//               stream from memory: several rows at once read slower here),
//               its elements four at a time against b transposed (bt, O x v),
//               summed across the lanes at the end;
//   q = a^T b   columns of a, 4 NC at a time, accumulated over the rows f of a
//               with b[f][j] broadcast (O x NC accumulators).
// Both read a row by row with unit stride; the first pass brings the block
// in from memory, the second finds it in L2.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace cyclocc::tensor {
namespace {

// Four doubles; loads and stores need not be aligned.
using v4 = double __attribute__((vector_size(32), aligned(8)));

inline v4 load4(const double* x) { return *reinterpret_cast<const v4*>(x); }
inline v4 splat(double s) { return v4{s, s, s, s}; }

// How far past the next rows to prefetch (doubles).
constexpr std::int64_t kAhead = 64;

// p[e + r][j] += sum_f a[e + r][f] bt[j][f] for r < R, j < O (v >= 4). The
// last four elements of a row, if v is not a multiple of 4, overlap the
// chunk before; the lanes counted there are masked.
template <int R, int O>
void p_rows(std::int64_t v, std::int64_t e, const double* a, const double* bt, double* p) {
  v4 acc[R][O] = {};
  auto chunk = [&](std::int64_t f, v4 mask) {
    v4 x[R];
    for (int r = 0; r < R; ++r) x[r] = load4(a + (e + r) * v + f) * mask;
    for (int j = 0; j < O; ++j) {
      const v4 bj = load4(bt + j * v + f);
      for (int r = 0; r < R; ++r) acc[r][j] += x[r] * bj;
    }
  };
  const v4 all = splat(1.0);
  const std::int64_t end = v / 4 * 4;
  for (std::int64_t f = 0; f < end; f += 4) {
    chunk(f, all);
    // The next R rows (or the next block's first), from memory: a prefetch
    // never faults, so past the end of the blocks is harmless.
    if (f % 8 == 0)
      for (int r = 0; r < R; ++r) __builtin_prefetch(a + (e + R + r) * v + f + kAhead);
  }
  if (end < v) {
    const std::int64_t done = 4 - (v - end);  // lanes of the overlapping chunk already counted
    v4 mask = all;
    for (int l = 0; l < done; ++l) mask[l] = 0.0;
    chunk(v - 4, mask);
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < O; ++j) p[(e + r) * O + j] += acc[r][j][0] + acc[r][j][1] + acc[r][j][2] + acc[r][j][3];
}

// q[e + c][j] += sum_f a[f][e + c] b[f][j] for first <= c < 4 NC, j < O
// (columns before `first` belong to the chunk before).
template <int NC, int O>
void q_columns(std::int64_t v, std::int64_t e, const double* a, const double* b, double* q, int first = 0) {
  v4 acc[O][NC] = {};
  for (std::int64_t f = 0; f < v; ++f) {
    v4 x[NC];
    for (int c = 0; c < NC; ++c) x[c] = load4(a + f * v + e + 4 * c);
    for (int j = 0; j < O; ++j) {
      const v4 s = splat(b[f * O + j]);
      for (int c = 0; c < NC; ++c) acc[j][c] += s * x[c];
    }
  }
  for (int j = 0; j < O; ++j)
    for (int c = 0; c < NC; ++c)
      for (int l = c == 0 ? first : 0; l < 4; ++l) q[(e + 4 * c + l) * O + j] += acc[j][c][l];
}

// Column vectors per pass of q_columns whose accumulators fit `regs` vector registers.
constexpr int columns_for(int o, int regs) {
  return o * 4 + 4 <= regs - 2 ? 4 : o * 2 + 2 <= regs - 2 ? 2 : 1;
}

// One block (v >= 4): p += a b, q += a^T b (bt = b transposed).
template <int O, int Regs>
void block_both_ways(std::int64_t v, const double* a, const double* b, const double* bt, double* p, double* q) {
  constexpr int NC = columns_for(O, Regs);
  for (std::int64_t e = 0; e < v; ++e) p_rows<1, O>(v, e, a, bt, p);
  std::int64_t e = 0;
  for (; e + 4 * NC <= v; e += 4 * NC) q_columns<NC, O>(v, e, a, b, q);
  for (; e + 4 <= v; e += 4) q_columns<1, O>(v, e, a, b, q);
  if (e < v) q_columns<1, O>(v, v - 4, a, b, q, static_cast<int>(4 - (v - e)));
}

template <int O, int Regs>
void blocks_of(std::int64_t n, std::int64_t v, const double* a, const double* b, const double* bt, double* p,
               double* q) {
  for (std::int64_t x = 0; x < n; ++x)
    block_both_ways<O, Regs>(v, a + x * v * v, b, bt, p + x * v * O, q + x * v * O);
}

// n consecutive blocks a (v x v each); b is v x o, bt o x v; p, q are n v x o.
template <int Regs>
void blocks_both_ways(std::int64_t n, std::int64_t v, std::int64_t o, const double* a, const double* b,
                      const double* bt, double* p, double* q) {
  switch (o) {
    case 1: return blocks_of<1, Regs>(n, v, a, b, bt, p, q);
    case 2: return blocks_of<2, Regs>(n, v, a, b, bt, p, q);
    case 3: return blocks_of<3, Regs>(n, v, a, b, bt, p, q);
    case 4: return blocks_of<4, Regs>(n, v, a, b, bt, p, q);
    case 5: return blocks_of<5, Regs>(n, v, a, b, bt, p, q);
    case 6: return blocks_of<6, Regs>(n, v, a, b, bt, p, q);
    case 7: return blocks_of<7, Regs>(n, v, a, b, bt, p, q);
    case 8: return blocks_of<8, Regs>(n, v, a, b, bt, p, q);
    case 9: return blocks_of<9, Regs>(n, v, a, b, bt, p, q);
    case 10: return blocks_of<10, Regs>(n, v, a, b, bt, p, q);
    case 11: return blocks_of<11, Regs>(n, v, a, b, bt, p, q);
    case 12: return blocks_of<12, Regs>(n, v, a, b, bt, p, q);
    case 13: return blocks_of<13, Regs>(n, v, a, b, bt, p, q);
    case 14: return blocks_of<14, Regs>(n, v, a, b, bt, p, q);
    case 15: return blocks_of<15, Regs>(n, v, a, b, bt, p, q);
    case 16: return blocks_of<16, Regs>(n, v, a, b, bt, p, q);
    default: throw std::invalid_argument("both_orders_blocks: at most 16 columns");
  }
}

}  // namespace
}  // namespace cyclocc::tensor
