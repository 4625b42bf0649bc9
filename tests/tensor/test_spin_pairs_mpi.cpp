// Pair matrices (tensor/spin_pairs.hpp) against plain loops over spin
// orbitals: their elements, and the open-shell ring product
// r_abij += P(ab)P(ij) sum_em t_im^ae (w_mbej - sum_nf y_fbjn v_mnef), on 1 to 4 ranks.
#include <gtest/gtest.h>

#include "tensor/spin_pairs.hpp"
#include "tests/mpi_world.hpp"
#include "tests/tensor/spin_dense.hpp"

using namespace cyclocc::tensor;
using cyclocc::test::world;

namespace {

const Sym N = Sym::NS, A = Sym::AS;

SpinDims dims(int occ_beta) {
  SpinDims d;
  d.occ[0] = 3;
  d.occ[1] = occ_beta;
  d.vir[0] = 4;
  d.vir[1] = 5;
  return d;
}

void fill(SpinTensor& x, std::uint64_t seed) {
  for (const auto& k : x.block_keys()) x.block(k).fill_random(seed++);
}

// The spin-orbital index of orbital i of spin s in a space (alpha first).
int so_index(const SpinDims& d, char space, int spin, int i) { return spin == 0 ? i : d.len(space, 'a') + i; }

using Placement = PairMatrix::Placement;

// The documented order of a class's pairs: by the rank that holds their rows
// (p modulo P), then (class 0) alpha before beta, then p, then q.
TEST(SpinPairsOrder, PairsGoByRankThenSpinThenPThenQ) {
  Context ctx(world());
  const SpinDims d = dims(2);  // vo pairs: alpha 4 x 3, beta 5 x 2
  SpinTensor t2(ctx, d, "vvoo", {A, N, A, N}, "t2");
  const PairMatrix m({{1.0, &t2, "aeim"}}, "ai", "em", Placement::rows, "T");
  const int P = ctx.nranks();
  const std::vector<std::vector<std::array<int, 4>>> parts = {  // per class: spin p, spin q, n_p, n_q
      {{0, 0, 4, 3}, {1, 1, 5, 2}},
      {{1, 0, 5, 3}},
      {{0, 1, 4, 2}}};
  for (int c = 0; c < 3; ++c) {
    int k = 0;
    for (int r = 0; r < P; ++r)
      for (const auto& part : parts[c])
        for (int p = r; p < part[2]; p += P)
          for (int q = 0; q < part[3]; ++q, ++k) {
            const auto got = m.pair(0, c, k);
            EXPECT_EQ(got.spin[0], part[0]);
            EXPECT_EQ(got.spin[1], part[1]);
            EXPECT_EQ(got.index[0], p);
            EXPECT_EQ(got.index[1], q);
          }
    EXPECT_EQ(m.count(0, c), k);
  }
  EXPECT_EQ(m.count(0, 0), 22);
  EXPECT_EQ(m.count(0, 1), 15);
  EXPECT_EQ(m.count(0, 2), 8);
}

class SpinPairs : public ::testing::TestWithParam<int> {};

// Every element of every class of m equals alpha * x[labels] at the spin
// orbitals of its pairs.
void expect_elements(const PairMatrix& m, double alpha, const SpinTensor& x, const std::string& labels,
                     const std::string& rows, const std::string& cols) {
  const auto xs = dense::to_spin_orbital(x);
  const SpinDims& d = m.dims();
  int checked = 0;
  for (int c = 0; c < 3; ++c) {
    const int nr = m.count(0, c), nc = m.count(1, m.col_class(c));
    const auto got = m.gather(c);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(nr) * nc);
    for (int r = 0; r < nr; ++r)
      for (int k = 0; k < nc; ++k) {
        const auto p = m.pair(0, c, r), q = m.pair(1, m.col_class(c), k);
        std::vector<int> at(4);
        for (int j = 0; j < 2; ++j) {
          at[labels.find(rows[j])] = so_index(d, m.row_spaces()[j], p.spin[j], p.index[j]);
          at[labels.find(cols[j])] = so_index(d, m.col_spaces()[j], q.spin[j], q.index[j]);
        }
        EXPECT_NEAR(got[r * nc + k], alpha * xs(at), 1e-14) << "class " << c << " (" << r << ", " << k << ")";
        ++checked;
      }
  }
  EXPECT_GT(checked, 0);
}

TEST_P(SpinPairs, ElementsAreThoseOfTheSpinOrbitalTensor) {
  Context ctx(world());
  const SpinDims d = dims(GetParam());
  // w with the ranks along e (read in place for rows "em") and along m (gathered).
  SpinTensor t2(ctx, d, "vvoo", {A, N, A, N}, "t2"), w(ctx, d, "ovvo", {N, N, N, N}, "w", 2),
      wm(ctx, d, "ovvo", {N, N, N, N}, "w", 0);
  fill(t2, 11);
  fill(w, 31);
  wm["mbej"] = w["mbej"];
  for (Placement at : {Placement::rows, Placement::whole}) {
    expect_elements(PairMatrix({{0.7, &t2, "aeim"}}, "ai", "em", at, "T"), 0.7, t2, "aeim", "ai", "em");
    // Pairs that join a lower index with an upper one, and columns before rows.
    expect_elements(PairMatrix({{1.0, &w, "mbej"}}, "em", "bj", at, "W"), 1.0, w, "mbej", "em", "bj");
    expect_elements(PairMatrix({{1.0, &wm, "mbej"}}, "em", "bj", at, "W"), 1.0, w, "mbej", "em", "bj");
    expect_elements(PairMatrix({{-2.0, &t2, "fbjn"}}, "bj", "fn", at, "Y"), -2.0, t2, "fbjn", "bj", "fn");
  }
}

TEST_P(SpinPairs, TermsAdd) {
  Context ctx(world());
  const SpinDims d = dims(GetParam());
  SpinTensor t2(ctx, d, "vvoo", {A, N, A, N}, "t2"), u(ctx, d, "vvoo", {N, N, N, N}, "u");
  fill(t2, 5);
  fill(u, 9);
  const PairMatrix y({{0.5, &t2, "fbjn"}, {1.0, &u, "fbjn"}}, "fn", "bj", Placement::rows, "Y");
  SpinTensor s(ctx, d, "vvoo", {N, N, N, N}, "s");
  s["fbjn"] = 0.5 * t2["fbjn"];
  s["fbjn"] += u["fbjn"];
  expect_elements(y, 1.0, s, "fbjn", "fn", "bj");
}

// T[(ai),(em)] = t_im^ae is symmetric (t_im^ae = t_mi^ea): the open-shell
// ring terms (ccsd.cpp) use T for T^T.
TEST_P(SpinPairs, AmplitudePairMatrixIsSymmetric) {
  Context ctx(world());
  SpinTensor t2(ctx, dims(GetParam()), "vvoo", {A, N, A, N}, "t2");
  fill(t2, 7);
  const PairMatrix t({{1.0, &t2, "aeim"}}, "ai", "em", Placement::whole, "T");
  for (int c = 0; c < 3; ++c) {
    const auto m = t.gather(c), mt = t.gather(t.col_class(c));
    const int nr = t.count(0, c), nc = t.count(1, t.col_class(c));
    ASSERT_EQ(t.col_class(t.col_class(c)), c);
    for (int r = 0; r < nr; ++r)
      for (int k = 0; k < nc; ++k) EXPECT_EQ(m[r * nc + k], mt[k * nr + r]) << "class " << c;
  }
}

// The ring product through pair matrices against plain loops over spin
// orbitals, and against the same terms written with the spin layer's
// contract(): W = w + 1/2 V Y, R = X^T W (X[(em),(ai)] = x_aeim), r += 1/2 P(ab)P(ij) R.
TEST_P(SpinPairs, RingProductEqualsTheSpinOrbitalLoops) {
  Context ctx(world());
  const SpinDims d = dims(GetParam());
  SpinTensor x(ctx, d, "vvoo", {A, N, A, N}, "x"), w(ctx, d, "ovvo", {N, N, N, N}, "w", 2),
      v(ctx, d, "oovv", {A, N, A, N}, "v"), y(ctx, d, "vvoo", {N, N, N, N}, "y"), r(ctx, d, "vvoo", {A, N, A, N}, "r");
  fill(x, 1);
  fill(w, 101);
  fill(v, 201);
  fill(y, 301);
  fill(r, 401);
  const auto xs = dense::to_spin_orbital(x), ws = dense::to_spin_orbital(w), vs = dense::to_spin_orbital(v),
             ys = dense::to_spin_orbital(y), r0 = dense::to_spin_orbital(r);
  SpinTensor r2 = SpinTensor::zeros_like(r, "r2");
  r2["abij"] = r["abij"];

  PairMatrix wp({{1.0, &w, "mbej"}}, "em", "bj", Placement::rows, "W");
  wp.add_product(0.5, PairMatrix({{1.0, &v, "mnef"}}, "em", "fn", Placement::rows, "V"),
                 PairMatrix({{1.0, &y, "fbjn"}}, "fn", "bj", Placement::whole, "Y"));
  for (Placement at : {Placement::rows, Placement::whole}) {
    const PairMatrix xp({{1.0, &x, "aeim"}}, "em", "ai", at, "X");
    PairMatrix::transposed_product(1.0, xp, wp, "R").add_to(0.25, r, "abij", "ai", "bj");
  }

  // Plain loops: W = w + 1/2 v y, R_aibj = sum_em x_aeim W_mbej, r += 1/2 P(ab)P(ij) R.
  const int o = dense::so_len(d, 'o'), nv = dense::so_len(d, 'v');
  dense::Array wd = ws, rd({nv, o, nv, o});
  for (int m = 0; m < o; ++m)
    for (int b = 0; b < nv; ++b)
      for (int e = 0; e < nv; ++e)
        for (int j = 0; j < o; ++j)
          for (int n = 0; n < o; ++n)
            for (int f = 0; f < nv; ++f) wd({m, b, e, j}) += 0.5 * vs({m, n, e, f}) * ys({f, b, j, n});
  for (int a = 0; a < nv; ++a)
    for (int i = 0; i < o; ++i)
      for (int b = 0; b < nv; ++b)
        for (int j = 0; j < o; ++j)
          for (int e = 0; e < nv; ++e)
            for (int m = 0; m < o; ++m) rd({a, i, b, j}) += xs({a, e, i, m}) * wd({m, b, e, j});
  dense::Array ref = r0;
  for (int a = 0; a < nv; ++a)
    for (int b = 0; b < nv; ++b)
      for (int i = 0; i < o; ++i)
        for (int j = 0; j < o; ++j)
          ref({a, b, i, j}) += 0.5 * (rd({a, i, b, j}) - rd({b, i, a, j}) - rd({a, j, b, i}) + rd({b, j, a, i}));
  EXPECT_LT(dense::packed_error(dense::so_shape(r), ref, dense::to_spin_orbital(r)), 1e-12);

  // The same with the spin layer's block products.
  SpinTensor wb = SpinTensor::zeros_like(w, "W");
  wb["mbej"] = w["mbej"];
  wb["mbej"] += 0.5 * y["fbjn"] * v["mnef"];
  r2["abij"] += 0.5 * x["aeim"] * wb["mbej"];
  EXPECT_LT(dense::packed_error(dense::so_shape(r), dense::to_spin_orbital(r2), dense::to_spin_orbital(r)), 1e-12);
}

TEST_P(SpinPairs, RefusesWhatItCannotRepresent) {
  Context ctx(world());
  const SpinDims d = dims(GetParam());
  SpinTensor t2(ctx, d, "vvoo", {A, N, A, N}, "t2");
  fill(t2, 3);
  // A pair of two upper indices is not a particle-hole pair.
  EXPECT_THROW(PairMatrix({{1.0, &t2, "abij"}}, "ab", "ij", Placement::rows, "X"), std::invalid_argument);
  EXPECT_THROW(PairMatrix({{1.0, &t2, "abij"}}, "ax", "bj", Placement::rows, "X"), std::invalid_argument);
  SpinDims closed = d;
  closed.occ[1] = closed.occ[0];
  closed.vir[1] = closed.vir[0];
  closed.restricted = true;
  SpinTensor rc(ctx, closed, "vvoo", {A, N, A, N}, "r");
  const PairMatrix m({{1.0, &t2, "aeim"}}, "ai", "em", Placement::rows, "T");
  EXPECT_THROW(m.add_to(1.0, rc, "abij", "ai", "bj"), std::invalid_argument);
  // Products need the placements they are made for.
  const PairMatrix whole({{1.0, &t2, "aeim"}}, "ai", "em", Placement::whole, "T");
  EXPECT_THROW(PairMatrix::transposed_product(1.0, m, whole, "R"), std::invalid_argument);
}

// With 2 beta occupied orbitals every class has pairs; with none (one open-shell
// atom), the classes with a beta occupied orbital are empty.
INSTANTIATE_TEST_SUITE_P(BetaOccupied, SpinPairs, ::testing::Values(2, 0));

}  // namespace
