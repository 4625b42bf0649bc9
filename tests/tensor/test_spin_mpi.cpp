// The spin-integrated layer against dense spin-orbital contractions, for the
// contraction shapes of CCSD and CCSDT, on 1 to 4 ranks.
#include <gtest/gtest.h>

#include <numeric>

#include "tensor/spin.hpp"
#include "tests/mpi_world.hpp"
#include "tests/tensor/spin_dense.hpp"

using namespace cyclocc::tensor;
using cyclocc::test::world;

namespace {

const Sym N = Sym::NS, A = Sym::AS;

struct Spec {
  std::string labels, spaces;
  std::vector<Sym> sym;
  int along = -1;  // all ranks along the group that holds this position (SpinTensor's `along`)
};

SpinDims dims() {
  SpinDims d;
  d.occ[0] = 3;
  d.occ[1] = 2;
  d.vir[0] = 4;
  d.vir[1] = 3;
  return d;
}

// Equal alpha and beta spaces; restricted (closed shell) or not.
SpinDims closed_dims(bool restricted) {
  SpinDims d = dims();
  d.occ[1] = d.occ[0];
  d.vir[1] = d.vir[0];
  d.restricted = restricted;
  return d;
}

double so_error(const SpinTensor& t, const dense::Array& ref) {
  const auto got = dense::to_spin_orbital(t);
  return dense::packed_error(dense::so_shape(t), ref, got);
}

void check(double alpha, const Spec& a, const Spec& b, double beta, const Spec& c) {
  Context ctx(world());
  SpinTensor X(ctx, dims(), a.spaces, a.sym, "X", a.along), Y(ctx, dims(), b.spaces, b.sym, "Y", b.along),
      Z(ctx, dims(), c.spaces, c.sym, "Z", c.along);
  std::uint64_t seed = 1;
  for (SpinTensor* t : {&X, &Y, &Z})
    for (const auto& k : t->block_keys()) t->block(k).fill_random(seed++);
  const auto xs = dense::to_spin_orbital(X), ys = dense::to_spin_orbital(Y), zs = dense::to_spin_orbital(Z);
  const auto lens = dense::so_lens(Z);
  const auto cls = dense::output_classes(c.labels, {{dense::so_shape(X), a.labels}, {dense::so_shape(Y), b.labels}});
  auto ref = dense::symmetrize(dense::so_shape(Z), dense::product(alpha, xs, a.labels, ys, b.labels, lens, c.labels), cls);
  for (std::size_t i = 0; i < ref.v.size(); ++i) ref.v[i] += beta * zs.v[i];
  contract(alpha, X, a.labels, Y, b.labels, beta, Z, c.labels);
  EXPECT_LT(so_error(Z, ref), 1e-12) << "Z[" << c.labels << "] += X[" << a.labels << "] Y[" << b.labels << "]";
}

void check_sum(double alpha, const Spec& a, double beta, const Spec& b) {
  Context ctx(world());
  SpinTensor X(ctx, dims(), a.spaces, a.sym, "X"), Z(ctx, dims(), b.spaces, b.sym, "Z");
  std::uint64_t seed = 100;
  for (SpinTensor* t : {&X, &Z})
    for (const auto& k : t->block_keys()) t->block(k).fill_random(seed++);
  const auto xs = dense::to_spin_orbital(X), zs = dense::to_spin_orbital(Z);
  dense::Array P(dense::so_lens(Z));
  dense::for_all(P.lens, [&](const std::vector<int>& x) {
    std::vector<int> y;
    for (char ch : a.labels) y.push_back(x[b.labels.find(ch)]);
    P(x) = alpha * xs(y);
  });
  auto ref = dense::symmetrize(dense::so_shape(Z), P, dense::output_classes(b.labels, {{dense::so_shape(X), a.labels}}));
  for (std::size_t i = 0; i < ref.v.size(); ++i) ref.v[i] += beta * zs.v[i];
  sum(alpha, X, a.labels, beta, Z, b.labels);
  EXPECT_LT(so_error(Z, ref), 1e-12) << "Z[" << b.labels << "] += X[" << a.labels << "]";

}

// Frequently used structures.
Spec T1(std::string l) { return {l, "vo", {N, N}}; }
Spec T2(std::string l) { return {l, "vvoo", {A, N, A, N}}; }
Spec T3(std::string l) { return {l, "vvvooo", {A, A, N, A, A, N}}; }
Spec F(std::string l, std::string sp) { return {l, sp, {N, N}}; }
Spec V(std::string l, std::string sp) {
  std::vector<Sym> s{sp[0] == sp[1] ? A : N, N, sp[2] == sp[3] ? A : N, N};
  return {l, sp, s};
}
Spec W(std::string l, std::string sp) { return {l, sp, {N, N, N, N}}; }
Spec scalar() { return {"", "", {}}; }
// The (T) window triples: abc | i | jk, with the ranks along i.
Spec Wt(std::string l) { return {l, "vvvooo", {A, A, N, N, A, N}, 3}; }

}  // namespace

TEST(Spin, BlocksConserveSpin) {
  EXPECT_EQ(spin_blocks("vvoo", {A, N, A, N}), (std::vector<std::string>{"aaaa", "abab", "bbbb"}));
  EXPECT_EQ(spin_blocks("ovov", {N, N, N, N}).size(), 6u);  // aaaa abab abba baab baba bbbb
  EXPECT_EQ(spin_blocks("vvvooo", {A, A, N, A, A, N}).size(), 4u);
}

TEST(Spin, CcsdEnergyAndSingles) {
  check(0.25, V("ijab", "oovv"), T2("abij"), 1.0, scalar());
  check(1.0, F("ia", "ov"), T1("ai"), 1.0, scalar());
  check(0.5, V("ijab", "oovv"), T1("ai"), 0.0, F("jb", "ov"));  // order-2 result
  check(1.0, F("ae", "vv"), T1("ei"), 1.0, T1("ai"));
  check(-1.0, F("mi", "oo"), T1("am"), 1.0, T1("ai"));
  check(1.0, F("me", "ov"), T2("aeim"), 1.0, T1("ai"));
  check(-1.0, T1("fn"), V("nafi", "ovvo"), 1.0, T1("ai"));
  check(-0.5, T2("efim"), V("maef", "ovvv"), 1.0, T1("ai"));
  check(-0.5, T2("aemn"), V("mnie", "ooov"), 1.0, T1("ai"));
}

TEST(Spin, CcsdDoubles) {
  check(0.5, V("abef", "vvvv"), T2("efij"), 1.0, T2("abij"));
  check(0.5, T2("abmn"), V("mnij", "oooo"), 1.0, T2("abij"));
  check(1.0, T2("aeim"), W("mbej", "ovvo"), 1.0, T2("abij"));
  check(1.0, F("be", "vv"), T2("aeij"), 1.0, T2("abij"));
  check(-1.0, F("mj", "oo"), T2("abim"), 1.0, T2("abij"));
  check(1.0, T1("ei"), V("abej", "vvvo"), 1.0, T2("abij"));
  check(-1.0, T1("am"), V("mbij", "ovoo"), 1.0, T2("abij"));
  check(0.5, T1("ai"), T1("bj"), 1.0, T2("abij"));
  check(0.25, V("mnef", "oovv"), T2("efij"), 0.0, V("mnij", "oooo"));
  check(1.0, T1("fj"), V("mbef", "ovvv"), 1.0, W("mbej", "ovvo"));
}

TEST(Spin, CcsdtTriples) {
  check(1.0, W("bcek", "vvvo"), T2("aeij"), 1.0, T3("abcijk"));
  check(-1.0, W("mcjk", "ovoo"), T2("abim"), 1.0, T3("abcijk"));
  check(0.5, V("abef", "vvvv"), T3("efcijk"), 1.0, T3("abcijk"));
  check(0.5, V("mnij", "oooo"), T3("abcmnk"), 1.0, T3("abcijk"));
  check(1.0, W("amie", "voov"), T3("ebcmjk"), 1.0, T3("abcijk"));
  check(1.0, F("ce", "vv"), T3("abeijk"), 1.0, T3("abcijk"));
  check(1.0, F("me", "ov"), T3("abeijm"), 1.0, T2("abij"));
  check(0.5, V("amef", "vovv"), T3("efbimj"), 1.0, T2("abij"));
  check(0.25, V("mnef", "oovv"), T3("aefimn"), 1.0, T1("ai"));
}

TEST(Spin, Summations) {
  check_sum(1.0, T2("abij"), 1.0, T2("abij"));
  check_sum(-1.0, T2("baij"), 2.0, T2("abij"));
  check_sum(1.0, V("ijab", "oovv"), 0.0, T2("abij"));
  check_sum(1.0, V("mbej", "ovvo"), 0.0, W("mbej", "ovvo"));
  check_sum(1.0, W("baij", "vvoo"), 1.0, T2("abij"));
  check_sum(-1.0, W("jbia", "ovov"), 1.0, W("bjia", "voov"));
  check_sum(0.5, T3("abcijk"), 1.0, T3("abcijk"));
}

namespace {

// Restricted (closed-shell) spin tensors: only one block of each flipped pair
// is computed. Checked against the general path on flip-symmetric inputs.
struct Term {
  double alpha;
  Spec a, b;
  double beta = 1.0;
};

void check_restricted(const std::vector<Term>& terms, const Spec& c) {
  const Spec a = terms.front().a, b = terms.front().b;
  Context ctx(world());
  const SpinDims r = closed_dims(true), g = closed_dims(false);
  SpinTensor Xr(ctx, r, a.spaces, a.sym, "X", a.along), Yr(ctx, r, b.spaces, b.sym, "Y", b.along),
      Zr(ctx, r, c.spaces, c.sym, "Z", c.along);
  std::uint64_t seed = 7;
  for (SpinTensor* t : {&Xr, &Yr, &Zr}) {
    if (t->order() == 6) {
      dense::closed_shell_triples(*t, seed);
      continue;
    }
    for (const auto& k : t->block_keys()) t->block(k).fill_random(seed++);
    t->flip_symmetrize();
  }
  SpinTensor Xg(ctx, g, a.spaces, a.sym, "X", a.along), Yg(ctx, g, b.spaces, b.sym, "Y", b.along),
      Zg(ctx, g, c.spaces, c.sym, "Z", c.along);
  for (auto [from, to] : {std::pair{&Xr, &Xg}, {&Yr, &Yg}, {&Zr, &Zg}})
    for (const auto& k : from->block_keys()) to->block(k).data() = from->block(k).data();
  for (const Term& t : terms) {
    if (t.a.spaces != a.spaces || t.b.spaces != b.spaces) throw std::invalid_argument("check_restricted: operands differ");
    contract(t.alpha, Xr, t.a.labels, Yr, t.b.labels, t.beta, Zr, c.labels);
    contract(t.alpha, Xg, t.a.labels, Yg, t.b.labels, t.beta, Zg, c.labels);
  }
  for (const auto& k : Zr.block_keys()) {
    const auto got = Zr.block(k).gather_all(), ref = Zg.block(k).gather_all();
    double err = 0;
    for (std::size_t i = 0; i < got.size(); ++i) err = std::max(err, std::abs(got[i] - ref[i]));
    EXPECT_LT(err, 1e-12) << "block " << k << " of Z[" << c.labels << "] += X[" << a.labels << "] Y[" << b.labels << "]";
  }
}

void check_restricted(double alpha, const Spec& a, const Spec& b, const Spec& c) {
  check_restricted({{alpha, a, b}}, c);
}

}  // namespace

TEST(Spin, RestrictedMatchesGeneral) {
  check_restricted(0.5, V("abef", "vvvv"), T2("efij"), T2("abij"));
  check_restricted(1.0, T2("aeim"), W("mbej", "ovvo"), T2("abij"));
  check_restricted(0.5, T1("ai"), T1("bj"), T2("abij"));
  check_restricted(1.0, W("bcek", "vvvo"), T2("aeij"), T3("abcijk"));
  check_restricted(1.0, W("amie", "voov"), T3("ebcmjk"), T3("abcijk"));
  check_restricted(0.25, V("mnef", "oovv"), T3("aefimn"), T1("ai"));
}

// Restricted T2(abab) is its own flipped partner (Z(abij) = Z(baji)): its
// terms come in mirror pairs, of which only one is computed.
TEST(Spin, RestrictedMirrorPairsMatchGeneral) {
  check_restricted(1.0, F("be", "vv"), T2("aeij"), T2("abij"));
  check_restricted(-1.0, F("mj", "oo"), T2("abim"), T2("abij"));
  check_restricted(1.0, T1("ei"), V("abej", "vvvo"), T2("abij"));
  check_restricted(-1.0, T1("am"), V("mbij", "ovoo"), T2("abij"));
  check_restricted(0.5, T2("abmn"), V("mnij", "oooo"), T2("abij"));
  check_restricted(1.0, F("me", "ov"), T3("abeijm"), T2("abij"));
  check_restricted(0.5, V("amef", "vovv"), T3("efbimj"), T2("abij"));
  check_restricted(-0.5, V("mnie", "ooov"), T3("abemnj"), T2("abij"));
}

// The pending halves of several contractions are added once, before the
// block is scaled or read.
TEST(Spin, RestrictedMirrorHalvesAddUpAcrossContractions) {
  check_restricted({{1.0, T2("aeim"), W("mbej", "ovvo")},
                    {-1.0, T2("ebmj"), W("maei", "ovvo")},
                    {0.5, T2("aeim"), W("mbej", "ovvo"), 0.5},
                    {2.0, T2("aeim"), W("mbej", "ovvo"), 0.0}},
                   T2("abij"));
  check_restricted({{1.0, T2("aeim"), W("mbej", "ovvo")}, {1.0, T2("aeim"), W("mbej", "ovvo"), -2.0}}, T2("abij"));
}

namespace {

// Block contractions issued into Z(abab) by one spin-orbital contraction.
int contractions_into_abab(bool restricted, double alpha, const Spec& a, const Spec& b, const Spec& c) {
  Context ctx(world());
  SpinDims d = dims();
  d.occ[1] = d.occ[0];
  d.vir[1] = d.vir[0];
  d.restricted = restricted;
  SpinTensor X(ctx, d, a.spaces, a.sym, "X"), Y(ctx, d, b.spaces, b.sym, "Y"), Z(ctx, d, c.spaces, c.sym, "Z");
  world().stats().clear();
  contract(alpha, X, a.labels, Y, b.labels, 1.0, Z, c.labels);
  int n = 0;
  for (const auto& [op, total] : world().stats().totals())
    if (op.rfind("contract ", 0) == 0 && op.find("Z(abab)[") != std::string::npos) n += total.calls;
  return n;
}

}  // namespace

TEST(Spin, RestrictedMirrorPairsHalveTheContractions) {
  // The ring term: six spin cases into Z(abab), three mirror pairs.
  EXPECT_EQ(contractions_into_abab(false, 1.0, T2("aeim"), W("mbej", "ovvo"), T2("abij")), 6);
  EXPECT_EQ(contractions_into_abab(true, 1.0, T2("aeim"), W("mbej", "ovvo"), T2("abij")), 3);
  // The particle ladder is its own mirror image: nothing to halve.
  EXPECT_EQ(contractions_into_abab(false, 0.5, V("abef", "vvvv"), T2("efij"), T2("abij")), 1);
  EXPECT_EQ(contractions_into_abab(true, 0.5, V("abef", "vvvv"), T2("efij"), T2("abij")), 1);
}

TEST(Spin, RanksAlongOneIndex) {
  check(1.0, T2("aejk"), V("iebc", "ovvv"), 1.0, Wt("abcijk"));
  check(-1.0, T2("bcim"), V("jkma", "ooov"), 1.0, Wt("abcijk"));
  check(1.0, T1("ai"), V("jkbc", "oovv"), 1.0, Wt("abcijk"));
  check_restricted(1.0, T2("aejk"), V("iebc", "ovvv"), Wt("abcijk"));
  check_restricted(-1.0, T2("bcim"), V("jkma", "ooov"), Wt("abcijk"));
}

// <vv||vv> with the ranks along position 3: in each block, the group that
// holds it, the pair ef where e and f share a spin and f alone where they
// do not. The ladder through it matches the dense product.
TEST(Spin, RanksAlongTheGroupThatHoldsAPosition) {
  Context ctx(world());
  const SpinTensor v(ctx, dims(), "vvvv", {A, N, A, N}, "V", 3);
  for (const auto& k : v.block_keys()) {
    const auto along = Mapping::along(world().size(), k[2] == k[3] ? 2 : 3, 4).normalized();
    EXPECT_TRUE(v.block(k).mapping().normalized() == along) << k << " " << v.block(k).mapping().str();
  }
  check(0.5, Spec{"abef", "vvvv", {A, N, A, N}, 3}, T2("efij"), 1.0, T2("abij"));
}

TEST(Spin, FlipWeightsCountEachFlippedPairOnce) {
  Context ctx(world());
  const SpinDims r = closed_dims(true);
  for (const Spec& s : {T2("abij"), V("mbej", "ovvo"), T1("ai")}) {
    SpinTensor X(ctx, r, s.spaces, s.sym, "X");
    std::uint64_t seed = 3;
    for (const auto& k : X.block_keys()) X.block(k).fill_random(seed++);
    X.flip_symmetrize();
    double weighted = 0, all = 0;
    int zeros = 0;
    for (const auto& k : X.block_keys()) {
      const int w = X.flip_weight(k);
      zeros += w == 0;
      all += X.block(k).dot(X.block(k));
      if (w > 0) weighted += w * X.block(k).dot(X.block(k));
    }
    EXPECT_NEAR(weighted, all, 1e-12 * all) << s.spaces;
    EXPECT_NEAR(X.dot(X), all, 1e-12 * all) << s.spaces;
    EXPECT_GT(zeros, 0) << s.spaces;
    // dots: each against its own dot, with another flip-symmetric tensor.
    SpinTensor Y(ctx, r, s.spaces, s.sym, "Y");
    for (const auto& k : Y.block_keys()) Y.block(k).fill_random(seed++);
    Y.flip_symmetrize();
    const std::vector<double> d = X.dots({&Y, &X, &Y});
    ASSERT_EQ(d.size(), 3u);
    double xy = 0;
    for (const auto& k : X.block_keys()) xy += X.block(k).dot(Y.block(k));
    EXPECT_NEAR(d[0], xy, 1e-12 * all) << s.spaces;
    EXPECT_NEAR(d[1], all, 1e-12 * all) << s.spaces;
    EXPECT_EQ(d[2], d[0]) << s.spaces;
    EXPECT_GT(std::abs(xy), 1e-3) << s.spaces;
  }
}

// Restricted T2's dot products read only its computed mixed block: the
// same-spin blocks' share comes from it (x.y - x^s.y, spin.cpp) without
// filling them, and equals their dot products once they are filled.
TEST(Spin, RestrictedT2DotsLeaveTheSameSpinBlocksUnfilled) {
  Context ctx(world());
  const SpinDims r = closed_dims(true);
  const Spec s = T2("abij");
  std::uint64_t seed = 11;
  auto make = [&](const char* name) {
    SpinTensor full(ctx, r, s.spaces, s.sym, name);
    for (const auto& k : full.block_keys()) full.block(k).fill_random(seed++);
    full.flip_symmetrize();  // flip-symmetric, every block filled
    SpinTensor computed(ctx, r, s.spaces, s.sym, name);
    for (const auto& k : computed.computed_keys()) computed.write_block(k).data() = full.block(k).data();
    return std::pair{std::move(full), std::move(computed)};
  };
  const auto [fx, x] = make("X");
  const auto [fy, y] = make("Y");
  double xy = 0, xx = 0, same_spin = 0;
  for (const auto& k : fx.block_keys()) {
    const double d = fx.block(k).dot(fy.block(k));
    xy += d;
    xx += fx.block(k).dot(fx.block(k));
    if (k == "aaaa" || k == "bbbb") same_spin += d;
  }
  ASSERT_GT(std::abs(same_spin), 1e-3);
  const std::int64_t words = x.local_words() + y.local_words();
  const std::vector<double> d = x.dots({&y, &x});
  EXPECT_EQ(x.local_words() + y.local_words(), words);  // nothing filled
  EXPECT_NEAR(d[0], xy, 1e-12 * xx);
  EXPECT_NEAR(d[1], xx, 1e-12 * xx);
  const SpinTensor::SpinParts parts = x.dot_by_spin(y);
  EXPECT_NEAR(parts.one_spin, same_spin, 1e-12 * xx);
  EXPECT_NEAR(parts.mixed, xy - same_spin, 1e-12 * xx);
  // A constant tensor (the integrals) against another: the other is swapped.
  SpinTensor c = x;
  c.set_constant(true);
  const std::vector<double> dc = c.dots({&y});
  EXPECT_NEAR(dc[0], xy, 1e-12 * xx);
  // Filled, the same-spin blocks hold what the dot products assumed.
  SpinTensor filled = x;
  filled.fill_derived();
  EXPECT_GT(filled.local_words(), x.local_words());
  for (const auto& k : {"aaaa", "bbbb"}) {
    Tensor diff = Tensor::zeros_like(fx.block(k));
    sum(1.0, filled.block(k), "abcd", 0.0, diff, "abcd");
    sum(-1.0, fx.block(k), "abcd", 1.0, diff, "abcd");
    EXPECT_LT(std::sqrt(diff.dot(diff)), 1e-12 * std::sqrt(xx)) << k;
  }
}

// The computed blocks: restricted, those not filled from a flipped partner
// (T1 aa; T2 abab, its all-alpha block being derived from it too); otherwise all.
TEST(Spin, ComputedKeysLeaveOutTheDerivedBlocks) {
  Context ctx(world());
  const Spec t1 = T1("ai"), t2 = T2("abij");
  for (bool restricted : {true, false}) {
    const SpinDims d = closed_dims(restricted);
    SpinTensor X1(ctx, d, t1.spaces, t1.sym, "T1"), X2(ctx, d, t2.spaces, t2.sym, "T2");
    using Keys = std::vector<std::string>;
    const Keys t1_keys = restricted ? Keys{"aa"} : Keys{"aa", "bb"};
    const Keys t2_keys = restricted ? Keys{"abab"} : Keys{"aaaa", "abab", "bbbb"};
    EXPECT_EQ(X1.computed_keys(), t1_keys);
    EXPECT_EQ(X2.computed_keys(), t2_keys);
  }
}

// Restricted, a derived block takes no memory until it is first read: then
// it is allocated and filled from its partner (T2's bbbb as the flipped
// aaaa, which is made from abab), the same values as when every block was
// written. A constant tensor's derived blocks are constant once allocated.
TEST(Spin, DerivedBlocksAreAllocatedWhenFirstRead) {
  Context ctx(world());
  const Spec t2 = T2("abij");
  const SpinDims r = closed_dims(true);
  SpinTensor X(ctx, r, t2.spaces, t2.sym, "X");
  SpinTensor probe(ctx, r, t2.spaces, t2.sym, "probe");
  auto words = [](const SpinTensor& t, const std::string& k) {
    return static_cast<std::int64_t>(t.block(k).data().size());
  };
  const std::int64_t abab = words(probe, "abab"), aaaa = words(probe, "aaaa"), bbbb = words(probe, "bbbb");
  EXPECT_EQ(X.local_words(), abab);  // the computed block alone
  X.write_block("abab").fill_random(11);
  EXPECT_EQ(X.local_words(), abab);
  X.set_constant(true);
  const SpinTensor& cx = X;
  const Tensor& b = cx.block("bbbb");  // made from aaaa, made from abab
  EXPECT_EQ(X.local_words(), abab + aaaa + bbbb);
  EXPECT_TRUE(b.constant());
  EXPECT_TRUE(cx.block("aaaa").constant());
  EXPECT_EQ(words(X, "bbbb"), bbbb);
  // The same tensor with every block written and then filled from abab
  // (constant too: a constant tensor's fill may sum in another order).
  SpinTensor Y(ctx, r, t2.spaces, t2.sym, "Y");
  for (const auto& k : Y.block_keys()) Y.block(k).fill_random(5);
  Y.write_block("abab").data() = X.block("abab").data();
  Y.set_constant(true);
  const std::vector<double> want = Y.block("bbbb").gather_all(), got = b.gather_all();
  ASSERT_EQ(got.size(), want.size());
  double norm = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k], want[k]) << k;
    norm += got[k] * got[k];
  }
  EXPECT_GT(norm, 1e-3);
  EXPECT_EQ(X.dot(X), Y.dot(Y));
  // A block that is not there is an error, as before.
  EXPECT_THROW(cx.block("abba"), std::out_of_range);
  EXPECT_THROW(X.block("aabb"), std::out_of_range);
}

TEST(Spin, SpatialBlocksNameTheClosedShellBlocks) {
  Context ctx(world());
  const SpinDims r = closed_dims(true);
  const Spec t1 = T1("ai"), t2 = T2("abij"), w = V("mbej", "ovvo");
  SpinTensor X1(ctx, r, t1.spaces, t1.sym, "T1"), X2(ctx, r, t2.spaces, t2.sym, "T2"), W(ctx, r, w.spaces, w.sym, "W");
  EXPECT_EQ(&spatial_block(X1), &X1.block("aa"));
  EXPECT_EQ(&spatial_block(X2), &X2.block("abab"));
  EXPECT_EQ(&spatial_block(W, Pairing::exchanged), &W.block("abba"));
  EXPECT_EQ(&spatial_write_block(W), &W.block("abab"));
  EXPECT_EQ(&spatial_write_block(W, Pairing::exchanged), &W.block("abba"));
  EXPECT_THROW(spatial_block(X1, Pairing::exchanged), std::invalid_argument);
  // The mirror half reaches the block as X + X(ba,ji) when it is next read.
  X2.set_zero();
  Tensor& half = spatial_mirror_half(X2);
  half.fill_random(7);
  const Tensor h = half;
  const Tensor& b = spatial_block(X2);
  const auto full = b.gather_all(), part = h.gather_all();
  const int v = r.vir[0], o = r.occ[0];
  auto at = [&](int a, int bb, int i, int j) { return ((a * v + bb) * o + i) * o + j; };
  for (int a = 0; a < v; ++a)
    for (int bb = 0; bb < v; ++bb)
      for (int i = 0; i < o; ++i)
        for (int j = 0; j < o; ++j)
          EXPECT_NEAR(full[at(a, bb, i, j)], part[at(a, bb, i, j)] + part[at(bb, a, j, i)], 1e-14);
  // An open-shell tensor has no spatial block.
  SpinTensor U(ctx, dims(), t2.spaces, t2.sym, "U");
  EXPECT_THROW(spatial_block(U), std::invalid_argument);
}

namespace {
// The k largest packed elements of t by a dense sort (ties by index tuple).
std::vector<Tensor::Element> dense_largest(const Tensor& t, int k) {
  const dense::Array a = dense::to_dense(t);
  std::vector<Tensor::Element> all;
  dense::for_all(t.shape().lens, [&](const std::vector<int>& x) {
    if (is_packed(t.shape(), x.data())) all.push_back({x, a(x)});
  });
  std::sort(all.begin(), all.end(), [](const Tensor::Element& x, const Tensor::Element& y) {
    return std::abs(x.value) != std::abs(y.value) ? std::abs(x.value) > std::abs(y.value) : x.index < y.index;
  });
  all.resize(std::min<std::size_t>(all.size(), k));
  return all;
}
}  // namespace

// Tensor::largest and SpinTensor::largest against a dense sort, with ties
// (equal magnitudes of both signs) and k beyond the size; every rank gets
// the same list.
TEST(Spin, LargestElements) {
  Context ctx(world());
  for (const bool restricted : {false, true}) {
    SpinTensor t(ctx, closed_dims(restricted), "vvoo", {A, N, A, N}, "T");
    std::uint64_t seed = 5;
    for (const auto& k : t.computed_keys()) t.write_block(k).fill_random(seed++);
    Tensor& b = t.write_block(t.computed_keys().back());
    b.transform([](const int* x, double& v) {
      if (x[0] == 1 && x[2] == 0) v = (x[1] % 2 ? -1.0 : 1.0) * 7.0;  // ties above every random value
    });
    for (const auto& k : t.computed_keys()) {
      for (int count : {1, 4, 9, 100000}) {
        const auto got = t.block(k).largest(count);
        const auto want = dense_largest(t.block(k), count);
        ASSERT_EQ(got.size(), want.size()) << k << " " << count;
        for (std::size_t n = 0; n < want.size(); ++n) {
          EXPECT_EQ(got[n].index, want[n].index) << k << " " << n;
          EXPECT_EQ(got[n].value, want[n].value) << k << " " << n;
        }
      }
    }
    // Over the computed blocks: their lists merged by magnitude.
    std::vector<SpinTensor::Element> want;
    for (const auto& k : t.computed_keys())
      for (const auto& e : dense_largest(t.block(k), 6)) want.push_back({k, e.index, e.value});
    std::stable_sort(want.begin(), want.end(), [](const auto& x, const auto& y) {
      return std::abs(x.value) > std::abs(y.value);
    });
    want.resize(6);
    const auto got = t.largest(6);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t n = 0; n < want.size(); ++n) {
      EXPECT_EQ(got[n].spins, want[n].spins) << n;
      EXPECT_EQ(got[n].index, want[n].index) << n;
      EXPECT_EQ(got[n].value, want[n].value) << n;
    }
    EXPECT_EQ(std::abs(got[0].value), 7.0);
  }
  // Small tensors are held whole on several ranks: each element is listed once.
  for (const auto& lens : std::vector<std::vector<int>>{{1, 1}, {1, 2}, {2, 1}, {0, 3}}) {
    Tensor small(ctx, Shape(lens, {N, N}), "small");
    small.fill_random(9);
    const auto got = small.largest(5);
    const auto want = dense_largest(small, 5);
    ASSERT_EQ(got.size(), want.size()) << lens[0] << "x" << lens[1];
    for (std::size_t n = 0; n < want.size(); ++n) EXPECT_EQ(got[n].index, want[n].index);
    EXPECT_TRUE(small.largest(0).empty());
  }
}
