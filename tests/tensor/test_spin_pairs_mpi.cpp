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

// A tensor of random blocks (fill, from the seed).
SpinTensor random_tensor(Context& ctx, const SpinDims& d, const std::string& spaces, std::vector<Sym> sym,
                         const std::string& name, std::uint64_t seed, int along = -1) {
  SpinTensor x(ctx, d, spaces, std::move(sym), name, along);
  fill(x, seed);
  return x;
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
  const SpinTensor t2 = random_tensor(ctx, d, "vvoo", {A, N, A, N}, "t2", 11);
  const SpinTensor w = random_tensor(ctx, d, "ovvo", {N, N, N, N}, "w", 31, 2);
  SpinTensor wm(ctx, d, "ovvo", {N, N, N, N}, "w", 0);
  wm["mbej"] = w["mbej"];
  // t2 with the ranks along a: read whole even by rows ai, as its images swap a and b.
  SpinTensor ta(ctx, d, "vvoo", {A, N, A, N}, "t2", 0);
  ta["abij"] = t2["abij"];
  expect_elements(PairMatrix({{1.0, &ta, "aeim"}}, "ai", "em", Placement::rows, "T"), 1.0, t2, "aeim", "ai", "em");
  for (Placement at : {Placement::rows, Placement::whole}) {
    expect_elements(PairMatrix({{0.7, &t2, "aeim"}}, "ai", "em", at, "T"), 0.7, t2, "aeim", "ai", "em");
    // Pairs that join a lower index with an upper one, and columns before rows.
    expect_elements(PairMatrix({{1.0, &w, "mbej"}}, "em", "bj", at, "W"), 1.0, w, "mbej", "em", "bj");
    expect_elements(PairMatrix({{1.0, &wm, "mbej"}}, "em", "bj", at, "W"), 1.0, w, "mbej", "em", "bj");
    expect_elements(PairMatrix({{-2.0, &t2, "fbjn"}}, "bj", "fn", at, "Y"), -2.0, t2, "fbjn", "bj", "fn");
  }
}

// The element lists are worked out on each of the first two uses and kept
// from the second on: the same matrices from all three, on new numbers, and
// the same sums out of them (r_abij += P(ab)P(ij) W'[(bj),(ai)] = w_ibaj).
TEST_P(SpinPairs, KeptListsGiveTheSameResults) {
  Context ctx(world());
  const SpinDims d = dims(GetParam());
  SpinTensor t2(ctx, d, "vvoo", {A, N, A, N}, "t2"), w(ctx, d, "ovvo", {N, N, N, N}, "w", 1);
  SpinTensor r(ctx, d, "vvoo", {A, N, A, N}, "r"), s(ctx, d, "vvoo", {A, N, A, N}, "s");
  for (std::uint64_t use = 0; use < 3; ++use) {
    fill(t2, 100 * use + 1);
    fill(w, 100 * use + 50);
    const PairMatrix t({{0.5, &t2, "aeim"}}, "ai", "em", Placement::whole, "T");
    const PairMatrix wp({{1.0, &w, "mbej"}}, "bj", "em", Placement::rows, "W");
    expect_elements(t, 0.5, t2, "aeim", "ai", "em");
    expect_elements(wp, 1.0, w, "mbej", "bj", "em");
    r.set_zero();
    wp.add_to(1.0, r, "abij", "bj", "ai");
    s["abij"] = w["ibaj"];
    EXPECT_LT(dense::packed_error(dense::so_shape(r), dense::to_spin_orbital(s), dense::to_spin_orbital(r)), 1e-13)
        << "use " << use;
  }
}

TEST_P(SpinPairs, TermsAdd) {
  Context ctx(world());
  const SpinDims d = dims(GetParam());
  const SpinTensor t2 = random_tensor(ctx, d, "vvoo", {A, N, A, N}, "t2", 5);
  const SpinTensor u = random_tensor(ctx, d, "vvoo", {N, N, N, N}, "u", 9);
  const PairMatrix y({{0.5, &t2, "fbjn"}, {1.0, &u, "fbjn"}}, "fn", "bj", Placement::rows, "Y");
  SpinTensor s(ctx, d, "vvoo", {N, N, N, N}, "s");
  s["fbjn"] = 0.5 * t2["fbjn"];
  s["fbjn"] += u["fbjn"];
  expect_elements(y, 1.0, s, "fbjn", "fn", "bj");
}

// T[(ai),(em)] = t_im^ae is symmetric (t_im^ae = t_mi^ea), and so is
// V[(em),(fn)] = <mn||ef>: the open-shell ring terms (ccsd.cpp) rely on it.
TEST_P(SpinPairs, AmplitudeAndIntegralPairMatricesAreSymmetric) {
  Context ctx(world());
  const SpinDims d = dims(GetParam());
  const SpinTensor t2 = random_tensor(ctx, d, "vvoo", {A, N, A, N}, "t2", 7);
  const SpinTensor v = random_tensor(ctx, d, "oovv", {A, N, A, N}, "v", 8);
  for (const PairMatrix& m : {PairMatrix({{1.0, &t2, "aeim"}}, "ai", "em", Placement::whole, "T"),
                              PairMatrix({{1.0, &v, "mnef"}}, "em", "fn", Placement::rows, "V")})
    for (int c = 0; c < 3; ++c) {
      const auto x = m.gather(c), xt = m.gather(m.col_class(c));
      const int nr = m.count(0, c), nc = m.count(1, m.col_class(c));
      ASSERT_EQ(m.col_class(m.col_class(c)), c);
      for (int r = 0; r < nr; ++r)
        for (int k = 0; k < nc; ++k) EXPECT_EQ(x[r * nc + k], xt[k * nr + r]) << "class " << c;
    }
}

// The ring product through pair matrices against plain loops over spin
// orbitals, and against the same terms written with the spin layer's
// contract(): W'[(bj),(em)] = w_mbej + 1/2 sum_fn y_fbjn v_mnef,
// R'[(bj),(ai)] = sum_em W'[(bj),(em)] x_aeim, r += 1/4 P(ab)P(ij) R' twice:
// once with the operands that the products read by rows held by rows, once whole.
void expect_ring_product(const SpinDims& d) {
  Context ctx(world());
  const SpinTensor x = random_tensor(ctx, d, "vvoo", {A, N, A, N}, "x", 1);
  const SpinTensor w = random_tensor(ctx, d, "ovvo", {N, N, N, N}, "w", 101, 1);
  const SpinTensor v = random_tensor(ctx, d, "oovv", {A, N, A, N}, "v", 201);
  const SpinTensor y = random_tensor(ctx, d, "vvoo", {N, N, N, N}, "y", 301);
  SpinTensor r = random_tensor(ctx, d, "vvoo", {A, N, A, N}, "r", 401);
  const auto xs = dense::to_spin_orbital(x), ws = dense::to_spin_orbital(w), vs = dense::to_spin_orbital(v),
             ys = dense::to_spin_orbital(y), r0 = dense::to_spin_orbital(r);
  SpinTensor r2 = SpinTensor::zeros_like(r, "r2");
  r2["abij"] = r["abij"];

  const PairMatrix vp({{1.0, &v, "mnef"}}, "fn", "em", Placement::whole, "V");
  const PairMatrix xp({{1.0, &x, "aeim"}}, "em", "ai", Placement::whole, "X");
  for (Placement at : {Placement::rows, Placement::whole}) {
    PairMatrix wp({{1.0, &w, "mbej"}}, "bj", "em", Placement::rows, "W");
    wp.add_product(0.5, PairMatrix({{1.0, &y, "fbjn"}}, "bj", "fn", at, "Y"), vp);
      PairMatrix::product(1.0, wp, xp, "R").add_to(0.25, r, "abij", "bj", "ai");
  }

  // Plain loops: W = w + 1/2 y v, R_aibj = sum_em x_aeim W_mbej, r += 1/2 P(ab)P(ij) R.
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

TEST_P(SpinPairs, RingProductEqualsTheSpinOrbitalLoops) { expect_ring_product(dims(GetParam())); }

// Two alpha virtuals and one beta: from 3 ranks on, some ranks hold no rows
// of a class, and at 2 ranks class 1 has rows on one rank only.
TEST_P(SpinPairs, RingProductWithRanksWithoutRows) {
  SpinDims d = dims(GetParam());
  d.vir[0] = 2;
  d.vir[1] = 1;
  expect_ring_product(d);
}

// Matrices of the same spaces whose classes meet otherwise (W' maps class d
// to d, R' = W' X maps d to -d) keep lists of their own when added to the
// same tensor at the same positions, used three times each so that both keep
// them; and a whole matrix adds each element once.
TEST_P(SpinPairs, ClassPairingsKeepTheirOwnLists) {
  Context ctx(world());
  const SpinDims d = dims(GetParam());
  SpinTensor x(ctx, d, "vvoo", {A, N, A, N}, "x"), w(ctx, d, "ovvo", {N, N, N, N}, "w", 1);
  SpinTensor r(ctx, d, "vvoo", {A, N, A, N}, "r"), s(ctx, d, "vvoo", {A, N, A, N}, "s");
  auto expect_equal = [&](const std::string& what) {
    EXPECT_LT(dense::packed_error(dense::so_shape(r), dense::to_spin_orbital(s), dense::to_spin_orbital(r)), 1e-12)
        << what;
  };
  for (std::uint64_t use = 0; use < 3; ++use) {
    fill(x, 10 * use + 1);
    fill(w, 10 * use + 2);
    const PairMatrix wp({{1.0, &w, "mbej"}}, "bj", "em", Placement::rows, "W");
    const PairMatrix ww({{1.0, &w, "mbej"}}, "bj", "em", Placement::whole, "W");
    const PairMatrix xp({{1.0, &x, "aeim"}}, "em", "ai", Placement::whole, "X");
    const PairMatrix rp = PairMatrix::product(1.0, wp, xp, "R");
    ASSERT_NE(wp.col_class(1), rp.col_class(1));
    s["abij"] = w["ibaj"];
    for (const PairMatrix* m : {&wp, &ww}) {
      r.set_zero();
      m->add_to(1.0, r, "abij", "bj", "ai");
      expect_equal("W' " + std::to_string(static_cast<int>(m->placement())) + ", use " + std::to_string(use));
    }
    r.set_zero();
    rp.add_to(1.0, r, "abij", "bj", "ai");
    s["abij"] = x["aeim"] * w["mbej"];
    expect_equal("R', use " + std::to_string(use));
  }
}

// A product of two whole matrices is held by rows, each rank's rows of the
// whole product.
TEST_P(SpinPairs, ProductOfWholeMatricesIsTheRankRows) {
  Context ctx(world());
  const SpinDims d = dims(GetParam());
  const SpinTensor x = random_tensor(ctx, d, "vvoo", {A, N, A, N}, "x", 21);
  const SpinTensor w = random_tensor(ctx, d, "ovvo", {N, N, N, N}, "w", 22);
  const PairMatrix wp({{1.0, &w, "mbej"}}, "bj", "em", Placement::whole, "W");
  const PairMatrix xp({{1.0, &x, "aeim"}}, "em", "ai", Placement::whole, "X");
  const PairMatrix p = PairMatrix::product(2.0, wp, xp, "P");
  for (int c = 0; c < 3; ++c) {
    const auto a = wp.gather(c), got = p.gather(c);
    const int k = wp.col_class(c);
    const auto b = xp.gather(k);
    const int nr = wp.count(0, c), nk = wp.count(1, k), nc = xp.count(1, xp.col_class(k));
    for (int i = 0; i < nr; ++i)
      for (int j = 0; j < nc; ++j) {
        double s = 0;
        for (int q = 0; q < nk; ++q) s += a[i * nk + q] * b[q * nc + j];
        EXPECT_NEAR(got[i * nc + j], 2.0 * s, 1e-12) << "class " << c;
      }
  }
}

TEST_P(SpinPairs, RefusesWhatItCannotRepresent) {
  Context ctx(world());
  const SpinDims d = dims(GetParam());
  const SpinTensor t2 = random_tensor(ctx, d, "vvoo", {A, N, A, N}, "t2", 3);
  // A pair of two upper indices is not a particle-hole pair.
  EXPECT_THROW(PairMatrix({{1.0, &t2, "abij"}}, "ab", "ij", Placement::rows, "X"), std::invalid_argument);
  EXPECT_THROW(PairMatrix({{1.0, &t2, "abij"}}, "ax", "bj", Placement::rows, "X"), std::invalid_argument);
  EXPECT_THROW(PairMatrix({{1.0, &t2, "aeim"}}, "ai", "am", Placement::rows, "X"), std::invalid_argument);
  SpinDims closed = d;
  closed.occ[1] = closed.occ[0];
  closed.vir[1] = closed.vir[0];
  closed.restricted = true;
  SpinTensor rc(ctx, closed, "vvoo", {A, N, A, N}, "r");
  const PairMatrix m({{1.0, &t2, "aeim"}}, "ai", "em", Placement::rows, "T");
  EXPECT_THROW(m.add_to(1.0, rc, "abij", "ai", "bj"), std::invalid_argument);
  // Products need the placements they are made for: b whole.
  EXPECT_THROW(PairMatrix::product(1.0, m, m, "R"), std::invalid_argument);
  // Factors of other orbital counts (one more alpha virtual here).
  SpinDims wider = d;
  wider.vir[0] += 1;
  const SpinTensor u2 = random_tensor(ctx, wider, "vvoo", {A, N, A, N}, "u2", 4);
  const PairMatrix w({{1.0, &u2, "ebmj"}}, "em", "bj", Placement::whole, "W");
  const PairMatrix mw({{1.0, &t2, "ebmj"}}, "em", "bj", Placement::whole, "M");
  EXPECT_NO_THROW(PairMatrix::product(1.0, m, mw, "R"));
  EXPECT_THROW(PairMatrix::product(1.0, m, w, "R"), std::invalid_argument);
  const PairMatrix mu({{1.0, &u2, "aeim"}}, "ai", "em", Placement::rows, "U");
  EXPECT_THROW(PairMatrix::product(1.0, mu, mw, "R"), std::invalid_argument);
  // Factors of another Context.
  Context other(world());
  const SpinTensor o2 = random_tensor(other, d, "vvoo", {A, N, A, N}, "o2", 5);
  const PairMatrix mo({{1.0, &o2, "ebmj"}}, "em", "bj", Placement::whole, "O");
  EXPECT_THROW(PairMatrix::product(1.0, m, mo, "R"), std::invalid_argument);
}

// With 2 beta occupied orbitals every class has pairs; with none (one open-shell
// atom), the classes with a beta occupied orbital are empty.
INSTANTIATE_TEST_SUITE_P(BetaOccupied, SpinPairs, ::testing::Values(2, 0));

}  // namespace
