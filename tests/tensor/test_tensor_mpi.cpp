// The tensor layer against dense twins, on 1 to 4 ranks (DESIGN.md §5).
#include <gtest/gtest.h>
#include <functional>

#include "tensor/contract.hpp"
#include "tensor/expr.hpp"
#include "tensor/plan.hpp"
#include "tensor/remap.hpp"
#include "tests/mpi_world.hpp"
#include "tests/tensor/dense.hpp"

using namespace cyclocc::tensor;
using cyclocc::test::world;

namespace {

using dense::mk;

struct Operand {
  std::string labels;
  Shape shape;
};

// Alternative mappings to exercise redistribution: variant 0 is the default.
Mapping variant_mapping(Context& ctx, const Shape& s, int variant) {
  const int P = ctx.nranks();
  const auto groups = s.groups();
  if (variant == 0 || P == 1 || groups.empty()) return ctx.default_mapping(s);
  Mapping m;
  if (variant == 1) {  // everything on the last group
    const Group& g = groups.back();
    m.grid = {P};
    m.range = {Range{g.first, g.first + g.size}};
  } else if (variant == 2 && P == 4 && groups.size() >= 2) {  // 2 x 2 on the first two groups
    m.grid = {2, 2};
    m.range = {Range{groups[0].first, groups[0].first + groups[0].size},
               Range{groups[1].first, groups[1].first + groups[1].size}};
  } else {  // replicated
    m = Mapping::replicated(P);
  }
  return m;
}

// Checks C = beta C + alpha A B against the dense twin, and the words moved
// against the prediction; returns what the planner chose.
PlanInfo check_contract(double alpha, const Operand& a, const Operand& b, double beta, const Operand& c,
                        int variant = 0) {
  Context ctx(world());
  Tensor A(ctx, a.shape, variant_mapping(ctx, a.shape, variant), "A");
  Tensor B(ctx, b.shape, variant_mapping(ctx, b.shape, (variant + 1) % 4), "B");
  Tensor C(ctx, c.shape, variant_mapping(ctx, c.shape, (variant + 2) % 4), "C");
  A.fill_random(11);
  B.fill_random(12);
  C.fill_random(13);
  const auto Ad = dense::to_dense(A), Bd = dense::to_dense(B), Cd = dense::to_dense(C);
  auto X = dense::product(alpha, Ad, a.labels, Bd, b.labels, c.shape.lens, c.labels);
  auto ref = dense::symmetrize(c.shape, X, dense::output_classes(c.labels, {{a.shape, a.labels}, {b.shape, b.labels}}));
  for (std::size_t i = 0; i < ref.v.size(); ++i) ref.v[i] += beta * Cd.v[i];
  const PlanInfo info = plan_info(A, a.labels, B, b.labels, C, c.labels);
  contract(alpha, A, a.labels, B, b.labels, beta, C, c.labels);
  const auto rec = world().stats().last();
  const auto got = dense::to_dense(C);
  EXPECT_LT(dense::packed_error(c.shape, ref, got), 1e-12)
      << "C[" << c.labels << "] = A[" << a.labels << "] B[" << b.labels << "] variant " << variant << " mapping "
      << rec.mapping << " A " << A.mapping().str() << " B " << B.mapping().str() << " C " << C.mapping().str();
  EXPECT_EQ(rec.words, rec.predicted) << rec.name << " " << rec.mapping;
  return info;
}

void check_all_variants(double alpha, const Operand& a, const Operand& b, double beta, const Operand& c) {
  for (int v = 0; v < 4; ++v) check_contract(alpha, a, b, beta, c, v);
}

}  // namespace

TEST(Storage, PackedSizesAndRandomFillIndependentOfRanks) {
  Context ctx(world());
  const Shape s = mk({7, 7, 5, 5}, "ANAN");
  Tensor T(ctx, s, "T");
  EXPECT_EQ(s.packed_size(), 21 * 10);
  T.fill_random(5);
  const auto all = T.gather_all();
  ASSERT_EQ(static_cast<std::int64_t>(all.size()), s.packed_size());
  for (std::size_t k = 0; k < all.size(); ++k) EXPECT_EQ(all[k], random_value(5, static_cast<std::int64_t>(k)));
  // Every element lives on exactly one rank.
  const auto total = world().allreduce_sum(static_cast<std::int64_t>(T.data().size()));
  EXPECT_EQ(total, s.packed_size());
}

TEST(Storage, AntisymmetricTriplesHoldAboutOneThirtySixth) {
  Context ctx(world());
  const Shape s = mk({12, 12, 12, 6, 6, 6}, "AANAAN");
  EXPECT_EQ(s.packed_size(), 220 * 20);
  Tensor T(ctx, s);
  const auto mine = static_cast<double>(T.data().size());
  const double share = static_cast<double>(s.packed_size()) / ctx.nranks();
  EXPECT_LE(mine, 1.2 * share + 1) << "rank holds " << mine << " of packed " << s.packed_size();
}

TEST(Storage, OddAndZeroEdges) {
  Context ctx(world());
  for (int n : {0, 1, 2, 5, 7}) {
    const Shape s = mk({n, n, 3}, "ANN");
    Tensor T(ctx, s);
    T.fill_random(3);
    const auto all = T.gather_all();
    EXPECT_EQ(static_cast<std::int64_t>(all.size()), s.packed_size());
  }
}

TEST(Storage, WriteReadAndSlabRoundTrip) {
  Context ctx(world());
  const Shape s = mk({5, 5, 4, 3}, "ANNN");
  Tensor T(ctx, s);
  // Rank r writes the keys congruent to r; everyone reads everything back.
  std::vector<std::int64_t> keys;
  std::vector<double> vals;
  for (std::int64_t k = ctx.rank(); k < s.packed_size(); k += ctx.nranks()) {
    keys.push_back(k);
    vals.push_back(0.5 * static_cast<double>(k));
  }
  T.write(keys, vals);
  std::vector<std::int64_t> all(static_cast<std::size_t>(s.packed_size()));
  std::iota(all.begin(), all.end(), 0);
  const auto got = T.read(all);
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], 0.5 * static_cast<double>(k));
  // Export to slabs and import into another mapping.
  const auto slab = T.export_slab();
  EXPECT_EQ(static_cast<std::int64_t>(slab.size()), T.slab_begin(ctx.rank() + 1) - T.slab_begin(ctx.rank()));
  for (std::size_t i = 0; i < slab.size(); ++i) EXPECT_EQ(slab[i], 0.5 * static_cast<double>(T.slab_begin(ctx.rank()) + i));
  Tensor U(ctx, s, variant_mapping(ctx, s, 1));
  U.import_slab(slab);
  EXPECT_EQ(U.read(all), got);
}

TEST(Storage, RedistributeDotNormTransform) {
  Context ctx(world());
  const Shape s = mk({6, 6, 5, 5}, "ANAN");
  Tensor T(ctx, s), U(ctx, s, variant_mapping(ctx, s, 3));
  T.fill_random(1);
  U.fill_random(1);
  const auto all = T.gather_all();
  double ss = 0;
  for (double v : all) ss += v * v;
  EXPECT_NEAR(T.dot(U), ss, 1e-12 * ss);
  EXPECT_NEAR(T.norm2(), std::sqrt(ss), 1e-12);
  // dots: several at once, one of another mapping, against plain sums over
  // the canonical arrays (more elements than one of its chunks).
  {
    const Shape big = mk({12, 11, 9, 8}, "NNNN");
    Tensor X(ctx, big), Y(ctx, big), Z(ctx, big, variant_mapping(ctx, big, 2));
    X.fill_random(5);
    Y.fill_random(6);
    Z.fill_random(7);
    const auto x = X.gather_all(), y = Y.gather_all(), z = Z.gather_all();
    double xy = 0, xz = 0, xx = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      xy += x[i] * y[i];
      xz += x[i] * z[i];
      xx += x[i] * x[i];
    }
    const std::vector<double> d = X.dots({&Y, &Z, &X});
    ASSERT_EQ(d.size(), 3u);
    EXPECT_NEAR(d[0], xy, 1e-12 * xx);
    EXPECT_NEAR(d[1], xz, 1e-12 * xx);
    EXPECT_NEAR(d[2], xx, 1e-12 * xx);
    EXPECT_GT(std::abs(xy), 1.0);
  }
  U.redistribute(variant_mapping(ctx, s, 1));
  EXPECT_EQ(U.gather_all(), all);
  // transform sees global indices: set each element to a function of them.
  T.transform([](const int* x, double& v) { v = x[0] + 10 * x[1] + 100 * x[2] + 1000 * x[3]; });
  const auto got = T.gather_all();
  int x[4];
  for (std::size_t k = 0; k < got.size(); ++k) {
    packed_unindex(s, static_cast<std::int64_t>(k), x);
    EXPECT_EQ(got[k], x[0] + 10 * x[1] + 100 * x[2] + 1000 * x[3]);
  }
}

// Repeated redistributions run from kept index lists (Context::program_budget);
// the first run and the kept runs must equal the walk that keeps nothing, for
// permutations, replicated sources and destinations, and partial sums.
TEST(Storage, KeptRemapProgramsMatchTheWalk) {
  Context keep(world()), walk(world());
  walk.set_program_budget(0);
  const Shape s = mk({6, 6, 5, 4}, "ANNN");
  // s with the groups (ab), c, d reordered (single elements move), and s
  // itself (stretches of consecutive elements move).
  const std::vector<std::pair<Shape, std::vector<int>>> targets = {{mk({5, 4, 6, 6}, "NNAN"), {2, 3, 0, 1}},
                                                                    {s, {0, 1, 2, 3}}};
  const int P = world().size();
  for (const auto& [t, perm] : targets)
    for (int from = 0; from < 4; ++from)
      for (int to = 0; to < 4; ++to)
        for (bool partial : {false, true}) {
          if (partial && from != 3) continue;  // partial sums live in replicated sources
          auto run = [&, &t = t, &perm = perm](Context& ctx, int times) {
            Tensor X(ctx, s, variant_mapping(ctx, s, from));
            X.fill_random(7);
            if (partial)
              for (double& v : X.data()) v *= 1 + ctx.rank();  // a different partial sum on every rank
            Tensor Y(ctx, t, variant_mapping(ctx, t, to));
            for (int k = 0; k < times; ++k) remap(X, Y, perm, 0.5 + k, partial);
            return Y.gather_all();
          };
          const auto once = run(walk, 1), twice = run(walk, 2);
          EXPECT_EQ(run(keep, 1), once) << from << " -> " << to << " partial " << partial;
          EXPECT_EQ(run(keep, 2), twice) << from << " -> " << to << " partial " << partial;
        }
  if (P > 1) {
    EXPECT_GT(keep.program_bytes(), 0);
    EXPECT_EQ(walk.program_bytes(), 0);
  }
}

// A kept remap in which no rank sends anything (here a reordering of the
// indices that no grid dimension distributes) runs without an exchange; one
// that moves data still exchanges on every call.
TEST(Storage, KeptLocalRemapsRunWithoutAnExchange) {
  Context ctx(world());
  const int P = ctx.nranks();
  const Shape s = mk({6, 5, 4, 3}, "NNNN"), t = mk({6, 5, 3, 4}, "NNNN");
  const Mapping on_first = Mapping::along(P, 0, 1);
  Tensor X(ctx, s, on_first);
  X.fill_random(5);
  Tensor local(ctx, t, on_first), moved(ctx, t, Mapping::along(P, 1, 2));
  const std::vector<int> swap_last = {0, 1, 3, 2};
  auto exchanges_of = [&](Tensor& Y) {
    const std::int64_t before = ctx.comm().exchanges();
    for (int k = 0; k < 4; ++k) remap(X, Y, swap_last, 1.0);  // kept from the second call on
    return ctx.comm().exchanges() - before;
  };
  // The walk's first call always exchanges; the kept program's calls do not.
  EXPECT_EQ(exchanges_of(local), P > 1 ? 1 : 0);
  EXPECT_EQ(exchanges_of(moved), P > 1 ? 4 : 0);
  Context walk(world());
  walk.set_program_budget(0);
  Tensor Xw(walk, s, on_first), Yw(walk, t, on_first);
  Xw.fill_random(5);
  for (int k = 0; k < 4; ++k) remap(Xw, Yw, swap_last, 1.0);
  EXPECT_EQ(local.gather_all(), Yw.gather_all());
  EXPECT_EQ(moved.gather_all(), Yw.gather_all());
}

// A kept program skips the exchange of counts, so every rank must keep (and
// run) the programs of the same remaps: each rank charges the budget alike
// even where the ranks hold unequal shares, and with the budget running out
// part-way every rank stops keeping at the same remap.
TEST(Storage, EveryRankKeepsTheSamePrograms) {
  const int P = world().size();
  for (std::int64_t budget : {std::int64_t{256} << 20, std::int64_t{20000}}) {
    Context ctx(world());
    ctx.set_program_budget(budget);
    for (int n : {5, 7, 9, 11}) {
      const Shape s = mk({n, n + 1, 3}, "NNN"), t = mk({3, n + 1, n}, "NNN");
      Tensor X(ctx, s, variant_mapping(ctx, s, 0)), Y(ctx, t, variant_mapping(ctx, t, 1));
      X.fill_random(n);
      for (int k = 0; k < 3; ++k) remap(X, Y, {2, 1, 0}, 1.0);
      const auto x = X.gather_all(), y = Y.gather_all();
      double err = 0;
      for (int a = 0; a < n; ++a)
        for (int b = 0; b <= n; ++b)
          for (int c = 0; c < 3; ++c) err = std::max(err, std::abs(y[(c * (n + 1) + b) * n + a] - 3 * x[(a * (n + 1) + b) * 3 + c]));
      EXPECT_LT(err, 1e-14) << "n " << n;
      const std::int64_t bytes = ctx.program_bytes();
      EXPECT_EQ(world().allreduce_max(bytes), -world().allreduce_max(-bytes)) << "n " << n << " budget " << budget;
    }
    if (P > 1 && budget > 20000) {
      EXPECT_GT(ctx.program_bytes(), 0);
    }
  }
}

TEST(Summation, PermutationsUnpackingAndAntisymmetrisation) {
  Context ctx(world());
  struct Case {
    Operand a, b;
  };
  const std::vector<Case> cases = {
      {{"ij", mk({5, 7}, "NN")}, {"ji", mk({7, 5}, "NN")}},
      {{"abij", mk({5, 5, 4, 4}, "ANAN")}, {"ijab", mk({4, 4, 5, 5}, "ANAN")}},
      {{"jiba", mk({4, 4, 5, 5}, "ANAN")}, {"ijab", mk({4, 4, 5, 5}, "ANAN")}},
      {{"abij", mk({5, 5, 4, 4}, "ANAN")}, {"aibj", mk({5, 4, 5, 4}, "NNNN")}},
      {{"aibj", mk({5, 4, 5, 4}, "NNNN")}, {"abij", mk({5, 5, 4, 4}, "ANAN")}},
      {{"abc", mk({6, 6, 6}, "NAN")}, {"abc", mk({6, 6, 6}, "AAN")}},
      {{"cab", mk({6, 6, 6}, "ANN")}, {"abc", mk({6, 6, 6}, "AAN")}},
      {{"ab", mk({7, 7}, "NN")}, {"ab", mk({7, 7}, "SN")}},
  };
  for (const Case& cs : cases) {
    for (int v = 0; v < 4; ++v) {
      Tensor A(ctx, cs.a.shape, variant_mapping(ctx, cs.a.shape, v));
      Tensor B(ctx, cs.b.shape, variant_mapping(ctx, cs.b.shape, (v + 1) % 4));
      A.fill_random(2);
      B.fill_random(3);
      const auto Ad = dense::to_dense(A), Bd = dense::to_dense(B);
      // X[lb] = A[la] as a dense relabelling, then the §8 rule on B's symmetry.
      dense::Array X(cs.b.shape.lens);
      dense::for_all(cs.b.shape.lens, [&](const std::vector<int>& x) {
        std::vector<int> y;
        for (char c : cs.a.labels) y.push_back(x[cs.b.labels.find(c)]);
        X(x) = -0.5 * Ad(y);
      });
      auto ref = dense::symmetrize(cs.b.shape, X, dense::output_classes(cs.b.labels, {{cs.a.shape, cs.a.labels}}));
      for (std::size_t i = 0; i < ref.v.size(); ++i) ref.v[i] += 2.0 * Bd.v[i];
      sum(-0.5, A, cs.a.labels, 2.0, B, cs.b.labels);
      EXPECT_LT(dense::packed_error(cs.b.shape, ref, dense::to_dense(B)), 1e-13)
          << cs.b.labels << " += " << cs.a.labels << " variant " << v;
    }
  }
}

TEST(Contraction, MatrixProducts) {
  for (int n : {1, 2, 5, 7}) {
    check_all_variants(1.0, {"ik", mk({n, 3}, "NN")}, {"kj", mk({3, 5}, "NN")}, 0.0, {"ij", mk({n, 5}, "NN")});
    check_all_variants(0.7, {"ki", mk({4, n}, "NN")}, {"jk", mk({2, 4}, "NN")}, 1.0, {"ij", mk({n, 2}, "NN")});
    check_all_variants(1.0, {"ik", mk({n, 5}, "NN")}, {"kj", mk({5, 3}, "NN")}, 1.0, {"ji", mk({3, n}, "NN")});
  }
}

TEST(Contraction, ParticleParticleLadder) {
  // Z[abij] += 0.5 V[abef] T[efij], same spin (packed) and opposite spin.
  check_all_variants(0.5, {"abef", mk({7, 7, 7, 7}, "ANAN")}, {"efij", mk({7, 7, 5, 5}, "ANAN")}, 1.0,
                     {"abij", mk({7, 7, 5, 5}, "ANAN")});
  check_all_variants(1.0, {"abef", mk({7, 6, 7, 6}, "NNNN")}, {"efij", mk({7, 6, 5, 4}, "NNNN")}, 1.0,
                     {"abij", mk({7, 6, 5, 4}, "NNNN")});
}

// Symmetric contracted groups stay folded (packed e <= f, weighted on the
// diagonal): the closed-shell ladder's halves, and a group of three.
TEST(Contraction, SymmetricContractedGroups) {
  check_all_variants(1.0, {"efi", mk({6, 6, 4}, "SNN")}, {"efj", mk({6, 6, 5}, "SNN")}, 0.0, {"ij", mk({4, 5}, "NN")});
  check_all_variants(0.5, {"abef", mk({6, 6, 7, 7}, "SNSN")}, {"efij", mk({7, 7, 4, 3}, "SNNN")}, 1.0,
                     {"abij", mk({6, 6, 4, 3}, "SNNN")});
  // ... with tau and R symmetric (antisymmetric) in ij as well.
  check_all_variants(0.5, {"abef", mk({6, 6, 7, 7}, "SNSN")}, {"efij", mk({7, 7, 4, 4}, "SNSN")}, 1.0,
                     {"abij", mk({6, 6, 4, 4}, "SNSN")});
  check_all_variants(0.5, {"abef", mk({6, 6, 7, 7}, "ANAN")}, {"efij", mk({7, 7, 4, 4}, "ANAN")}, 1.0,
                     {"abij", mk({6, 6, 4, 4}, "ANAN")});
  check_all_variants(1.0, {"efgi", mk({5, 5, 5, 3}, "SSNN")}, {"jefg", mk({4, 5, 5, 5}, "NSSN")}, 1.0,
                     {"ij", mk({3, 4}, "NN")});
  // Only one operand symmetric: the group is unpacked as before.
  check_all_variants(1.0, {"efi", mk({6, 6, 4}, "SNN")}, {"efj", mk({6, 6, 5}, "NNN")}, 0.0, {"ij", mk({4, 5}, "NN")});
}

// The diagonal weights of a folded symmetric group are worked out once per
// layout and kept in the context: later calls, with new values and with
// other tensors of the same layout, still weight the diagonal.
TEST(Contraction, SymmetricContractedGroupsKeptWeights) {
  Context ctx(world());
  const Shape sv = mk({6, 6, 7, 7}, "SNSN"), st = mk({7, 7, 4, 4}, "SNSN"), sr = mk({6, 6, 4, 4}, "SNSN");
  Tensor V(ctx, sv, "V"), T(ctx, st, "T"), U(ctx, st, "U");
  V.fill_random(3);
  for (int call = 0; call < 3; ++call) {
    Tensor& t = call == 2 ? U : T;
    t.fill_random(20 + call);
    Tensor R(ctx, sr, "R");
    contract(0.5, V, "abef", t, "efij", 0.0, R, "abij");
    auto X = dense::product(0.5, dense::to_dense(V), "abef", dense::to_dense(t), "efij", sr.lens, "abij");
    const auto ref = dense::symmetrize(sr, X, dense::output_classes("abij", {{sv, "abef"}, {st, "efij"}}));
    EXPECT_LT(dense::packed_error(sr, ref, dense::to_dense(R)), 1e-12) << "call " << call;
  }
}

TEST(Contraction, RingWithBrokenSymmetry) {
  check_all_variants(1.0, {"amie", mk({6, 4, 4, 6}, "NNNN")}, {"ebmj", mk({6, 6, 4, 4}, "ANAN")}, 1.0,
                     {"abij", mk({6, 6, 4, 4}, "ANAN")});
  check_all_variants(-1.0, {"mbej", mk({4, 5, 6, 3}, "NNNN")}, {"aeim", mk({7, 6, 2, 4}, "NNNN")}, 1.0,
                     {"abij", mk({7, 5, 2, 3}, "NNNN")});
}

TEST(Contraction, DesignConventionTau) {
  // DESIGN.md §8: Tau[abij] += 0.5 T1[ai] T1[bj] gives t_i^a t_j^b - t_j^a t_i^b.
  Context ctx(world());
  const int v = 5, o = 3;
  Tensor T1(ctx, mk({v, o}, "NN"), "T1");
  Tensor Tau(ctx, mk({v, v, o, o}, "ANAN"), "Tau");
  T1.fill_random(7);
  Tau["abij"] += 0.5 * T1["ai"] * T1["bj"];
  const auto t = dense::to_dense(T1);
  const auto tau = dense::to_dense(Tau);
  for (int a = 0; a < v; ++a)
    for (int b = 0; b < v; ++b)
      for (int i = 0; i < o; ++i)
        for (int j = 0; j < o; ++j)
          EXPECT_NEAR(tau({a, b, i, j}), t({a, i}) * t({b, j}) - t({a, j}) * t({b, i}), 1e-14);
}

TEST(Contraction, DesignConventionTriples) {
  // Z3[abcijk] += W[bcek] T2[aeij] gives P(a/bc) P(k/ij) of the product.
  Context ctx(world());
  const int v = 5, o = 4;
  Tensor W(ctx, mk({v, v, v, o}, "ANNN"), "W");
  Tensor T2(ctx, mk({v, v, o, o}, "ANAN"), "T2");
  Tensor Z3(ctx, mk({v, v, v, o, o, o}, "AANAAN"), "Z3");
  W.fill_random(1);
  T2.fill_random(2);
  Z3["abcijk"] += W["bcek"] * T2["aeij"];
  const auto w = dense::to_dense(W), t = dense::to_dense(T2), z = dense::to_dense(Z3);
  auto X = [&](int a, int b, int c, int i, int j, int k) {
    double s = 0;
    for (int e = 0; e < v; ++e) s += w({b, c, e, k}) * t({a, e, i, j});
    return s;
  };
  for (int a = 0; a < v; ++a)
    for (int b = a + 1; b < v; ++b)
      for (int c = b + 1; c < v; ++c)
        for (int i = 0; i < o; ++i)
          for (int j = i + 1; j < o; ++j)
            for (int k = j + 1; k < o; ++k) {
              // P(a/bc) = 1 - (ab) - (ac); P(k/ij) = 1 - (ik) - (jk).
              const int A3[3][3] = {{a, b, c}, {b, a, c}, {c, b, a}};
              const int I3[3][3] = {{i, j, k}, {k, j, i}, {i, k, j}};
              double ref = 0;
              for (int p = 0; p < 3; ++p)
                for (int q = 0; q < 3; ++q)
                  ref += (p ? -1 : 1) * (q ? -1 : 1) * X(A3[p][0], A3[p][1], A3[p][2], I3[q][0], I3[q][1], I3[q][2]);
              EXPECT_NEAR(z({a, b, c, i, j, k}), ref, 1e-12);
            }
}

TEST(Contraction, TriplesShapes) {
  check_all_variants(1.0, {"bcek", mk({5, 5, 5, 4}, "ANNN")}, {"aeij", mk({5, 5, 4, 4}, "ANAN")}, 1.0,
                     {"abcijk", mk({5, 5, 5, 4, 4, 4}, "AANAAN")});
  check_all_variants(0.5, {"abef", mk({6, 6, 6, 6}, "ANAN")}, {"efcijk", mk({6, 6, 6, 3, 3, 3}, "AANAAN")}, 1.0,
                     {"abcijk", mk({6, 6, 6, 3, 3, 3}, "AANAAN")});
  check_all_variants(0.25, {"mnij", mk({4, 4, 4, 4}, "ANAN")}, {"abcmnk", mk({5, 5, 5, 4, 4, 4}, "AANAAN")}, 1.0,
                     {"abcijk", mk({5, 5, 5, 4, 4, 4}, "AANAAN")});
  check_all_variants(1.0, {"amie", mk({5, 3, 3, 5}, "NNNN")}, {"ebcmjk", mk({5, 5, 5, 3, 3, 3}, "AANAAN")}, 1.0,
                     {"abcijk", mk({5, 5, 5, 3, 3, 3}, "AANAAN")});
}

// Spin blocks of the CCSDT ring term T3(aab) += W T3: the output's groups
// broken by the product, and the operand's, are packed where no rank boundary
// splits them, so they move packed (C''' and packed operands in plan.hpp).
TEST(Contraction, BrokenGroupsMovePacked) {
  const Operand t3_aab{"abcijk", mk({5, 5, 4, 3, 3, 2}, "ANNANN")};
  int packed_outputs = 0, packed_operands = 0;
  for (int v = 0; v < 4; ++v) {
    const auto same = check_contract(1.0, {"bmje", mk({5, 3, 3, 5}, "NNNN")}, {"eacmik", mk({5, 5, 4, 3, 3, 2}, "ANNANN")},
                                     1.0, t3_aab, v);
    const auto opposite = check_contract(1.0, {"bmje", mk({5, 2, 3, 4}, "NNNN")},
                                         {"aecimk", mk({5, 4, 4, 3, 2, 2}, "NANNAN")}, 1.0, t3_aab, v);
    const auto ladder = check_contract(1.0, {"acef", mk({5, 4, 5, 4}, "NNNN")},
                                       {"ebfijk", mk({5, 5, 4, 3, 3, 2}, "ANNANN")}, 1.0, t3_aab, v);
    for (const auto& p : {same, opposite, ladder}) {
      packed_outputs += p.packed_output;
      packed_operands += p.packed_operands;
    }
  }
  if (world().size() > 1) {
    EXPECT_GT(packed_outputs, 0);
    EXPECT_GT(packed_operands, 0);
  }
}

// Few columns and many rows: the local dgemm runs in slabs of rows
// (contract.cpp, kGemmRows), here 861 ab pairs by 3 ij pairs on one rank.
TEST(Contraction, ManyRowsFewColumns) {
  check_all_variants(0.5, {"abef", mk({42, 42, 12, 12}, "ANAN")}, {"efij", mk({12, 12, 3, 3}, "ANAN")}, 1.0,
                     {"abij", mk({42, 42, 3, 3}, "ANAN")});
  check_all_variants(1.0, {"aefb", mk({42, 12, 12, 42}, "NANN")}, {"jief", mk({3, 3, 12, 12}, "ANAN")}, 1.0,
                     {"abij", mk({42, 42, 3, 3}, "ANAN")});
}

// Column counts around the kernels' width of 4 (3 mod 4 get a zero column
// more when K >= 512), with B either way round.
TEST(Contraction, ColumnCountsAroundTheKernelWidth) {
  for (int n : {3, 4, 15, 63}) {
    check_all_variants(0.7, {"ik", mk({40, 600}, "NN")}, {"kj", mk({600, n}, "NN")}, 1.0, {"ij", mk({40, n}, "NN")});
    check_all_variants(1.0, {"ki", mk({600, 13}, "NN")}, {"jk", mk({n, 600}, "NN")}, 0.0, {"ij", mk({13, n}, "NN")});
    check_all_variants(1.0, {"hik", mk({2, 5, 600}, "NNN")}, {"hkj", mk({2, 600, n}, "NNN")}, 1.0,
                       {"hij", mk({2, 5, n}, "NNN")});
  }
}

TEST(Contraction, ScalarsBatchesAndSymmetric) {
  check_all_variants(0.25, {"ijab", mk({4, 4, 6, 6}, "ANAN")}, {"abij", mk({6, 6, 4, 4}, "ANAN")}, 1.0,
                     {"", mk({}, "")});
  check_all_variants(1.0, {"ai", mk({5, 4}, "NN")}, {"ai", mk({5, 4}, "NN")}, 0.0, {"ai", mk({5, 4}, "NN")});
  check_all_variants(1.0, {"ai", mk({5, 4}, "NN")}, {"bi", mk({6, 4}, "NN")}, 1.0, {"abi", mk({5, 6, 4}, "NNN")});
  check_all_variants(1.0, {"ik", mk({6, 5}, "NN")}, {"jk", mk({6, 5}, "NN")}, 1.0, {"ij", mk({6, 6}, "SN")});
  check_all_variants(1.0, {"ab", mk({6, 6}, "AN")}, {"c", mk({6}, "N")}, 1.0, {"abc", mk({6, 6, 6}, "AAN")});
  check_all_variants(1.0, {"ief", mk({4, 6, 6}, "NAN")}, {"jef", mk({5, 6, 6}, "NAN")}, 1.0, {"ij", mk({4, 5}, "NN")});
  check_all_variants(1.0, {"fe", mk({6, 6}, "AN")}, {"ef", mk({6, 6}, "NN")}, 1.0, {"", mk({}, "")});
}

// A free group that comes first in C and in the operand holding it, as a in
// C[abij] += T[aeij] F[be], can be a batch index of that operand and C only:
// one dgemm per local value of a, on T and C as stored (plan.cpp, build_plan).
// F either way round and on either side, few and many columns, a packed pair.
TEST(Contraction, LeadingFreeGroupAsBatch) {
  const Shape t = mk({20, 20, 6, 5}, "NNNN"), f = mk({20, 20}, "NN");
  for (int v = 0; v < 4; ++v) {
    check_contract(1.0, {"aeij", t}, {"be", f}, 1.0, {"abij", t}, v);
    check_contract(0.5, {"eb", f}, {"aeij", t}, 0.0, {"abij", t}, v);
    check_contract(1.0, {"aeij", mk({20, 20, 2, 1}, "NNNN")}, {"be", f}, 1.0, {"abij", mk({20, 20, 2, 1}, "NNNN")}, v);
    check_contract(1.0, {"abie", mk({12, 12, 5, 9}, "ANNN")}, {"ej", mk({9, 4}, "NN")}, 1.0,
                   {"abij", mk({12, 12, 5, 4}, "ANNN")}, v);
  }
  // On one rank nothing moves, and the batch saves rearranging T and C.
  if (world().size() == 1) {
    EXPECT_NE(check_contract(1.0, {"aeij", t}, {"be", f}, 1.0, {"abij", t}).mapping.find("batch=a"), std::string::npos);
    EXPECT_NE(check_contract(1.0, {"eb", f}, {"aeij", t}, 1.0, {"abij", t}).mapping.find("batch=a"), std::string::npos);
  }
}

TEST(Storage, SlicesOfSymmetricGroups) {
  Context ctx(world());
  const int o = 3, v = 4, n = o + v;
  for (Sym sym : {Sym::SY, Sym::AS}) {
    const Shape s({n, n, n}, {sym, Sym::NS, Sym::NS});
    Tensor X(ctx, s, variant_mapping(ctx, s, 1));
    X.fill_random(9);
    const auto xd = dense::to_dense(X);
    // occupied-virtual, virtual-occupied and virtual-virtual pieces of the pair.
    const std::vector<std::pair<std::vector<int>, Shape>> cuts = {
        {{0, o, 1}, Shape({o, v, 2}, {})},
        {{o, 0, 0}, Shape({v, o, n}, {})},
        {{o, o, 2}, Shape({v, v, 5}, {sym, Sym::NS, Sym::NS})},
    };
    for (const auto& [off, ys] : cuts) {
      const Tensor Y = X.slice(off, ys);
      const auto yd = dense::to_dense(Y);
      dense::for_all(ys.lens, [&](const std::vector<int>& y) {
        EXPECT_EQ(yd(y), xd({off[0] + y[0], off[1] + y[1], off[2] + y[2]}));
      });
    }
  }
}

// Tensor::add_rows against the dense arrays: rows 2 and 3 of a pair (SY, AS
// or unpaired) gain part's, the other stored elements keep their values.
TEST(Storage, RowsAddedAWindowAtATime) {
  Context ctx(world());
  const int n = 5, m = 4, P = ctx.nranks();
  for (Sym pair : {Sym::SY, Sym::AS, Sym::NS})
    for (Sym rest : {Sym::SY, Sym::AS, Sym::NS})
      for (const Mapping& map : {Mapping::along(P, 2, 4), Mapping::replicated(P)})
        for (int first : {2, 3}) {  // rows 3 and 4: the last (a pair's last row, empty when AS)
          Tensor W(ctx, Shape({n, n, m, m}, {pair, Sym::NS, rest, Sym::NS}), map);
          Tensor part(ctx, Shape({2, n, m, m}, {Sym::NS, Sym::NS, rest, Sym::NS}), map);
          W.fill_random(3);
          part.fill_random(5);
          const auto before = dense::to_dense(W), pd = dense::to_dense(part);
          W.add_rows(0.5, part, first);
          const auto after = dense::to_dense(W);
          dense::for_all({n, n, m, m}, [&](const std::vector<int>& x) {
            auto canonical = [](Sym s, int i, int j) { return s == Sym::NS || (s == Sym::SY ? i <= j : i < j); };
            if (!canonical(pair, x[0], x[1]) || !canonical(rest, x[2], x[3])) return;
            const bool row = x[0] >= first && x[0] < first + 2;
            const double added = row ? 0.5 * pd({x[0] - first, x[1], x[2], x[3]}) : 0.0;
            EXPECT_DOUBLE_EQ(after(x), before(x) + added);
          });
        }
  {
    // add_rows writes: a later sum with beta = 0 into a new tensor replaces
    // what add_rows put there rather than adding to it.
    const Shape s({n, n, m, m}, {Sym::SY, Sym::NS, Sym::SY, Sym::NS});
    Tensor W(ctx, s, Mapping::along(P, 2, 4)), X(ctx, s, Mapping::along(P, 2, 4));
    Tensor part(ctx, Shape({2, n, m, m}, {Sym::NS, Sym::NS, Sym::SY, Sym::NS}), Mapping::along(P, 2, 4));
    part.fill_random(5);
    X.fill_random(7);
    W.add_rows(1.0, part, 0);
    sum(1.0, X, "abcd", 0.0, W, "abcd");
    EXPECT_EQ(W.gather_all(), X.gather_all());
  }
  Tensor W(ctx, Shape({n, n, m, m}, {Sym::SY, Sym::NS, Sym::SY, Sym::NS}), Mapping::along(P, 2, 4));
  Tensor part(ctx, Shape({2, n, m, m}, {Sym::NS, Sym::NS, Sym::SY, Sym::NS}), Mapping::along(P, 2, 4));
  EXPECT_THROW(W.add_rows(1.0, part, 4), std::invalid_argument);  // rows 4 and 5 of 5
  Tensor other(ctx, Shape({2, n, m, m}, {Sym::NS, Sym::NS, Sym::AS, Sym::NS}), Mapping::along(P, 2, 4));
  EXPECT_THROW(W.add_rows(1.0, other, 0), std::invalid_argument);
  if (P > 1) {
    Tensor moved(ctx, part.shape(), Mapping::replicated(P));
    EXPECT_THROW(W.add_rows(1.0, moved, 0), std::invalid_argument);
    // Both split along the first index: its rows lie on other ranks.
    Tensor rows_split(ctx, Shape({n, n, m, m}, {Sym::NS, Sym::NS, Sym::SY, Sym::NS}), Mapping::along(P, 0, 1));
    Tensor part_split(ctx, part.shape(), Mapping::along(P, 0, 1));
    EXPECT_THROW(rows_split.add_rows(1.0, part_split, 0), std::invalid_argument);
  }
}

// Z_ae = T_fm V_mafe with V away from its default mapping: the product that
// the two tests below prepare again and again.
struct VProduct {
  const Shape sv = mk({4, 5, 6, 6}, "NNAN"), st = mk({6, 4}, "NN"), sz = mk({5, 6}, "NN");
  Context ctx{world()};
  Tensor V{ctx, sv, variant_mapping(ctx, sv, 1), "V"}, T{ctx, st, "T"}, Z{ctx, sz, "Z"};
  VProduct() {
    V.fill_random(1);
    T.fill_random(2);
  }
  // Runs the product, checks it against the dense one, returns its record.
  cyclocc::par::OpRecord run(const std::string& when) {
    contract(1.0, T, "fm", V, "mafe", 0.0, Z, "ae");
    const cyclocc::par::OpRecord rec = world().stats().last();
    EXPECT_EQ(rec.words, rec.predicted) << when;
    const auto ref = dense::product(1.0, dense::to_dense(T), "fm", dense::to_dense(V), "mafe", sz.lens, "ae");
    EXPECT_LT(dense::packed_error(sz, ref, dense::to_dense(Z)), 1e-12) << when;
    return rec;
  }
};

TEST(Contraction, ConstantOperandsKeepTheirPreparedCopies) {
  VProduct p;
  p.V.set_constant(true);
  for (int pass = 0; pass < 3; ++pass) p.run("pass " + std::to_string(pass));
  // Writing V ends its constancy, so the kept copies are not used any more.
  for (double& x : p.V.data()) x *= 2;
  EXPECT_FALSE(p.V.constant());
  p.run("after a write");
}

namespace {

// The plan of R_abij += V_abef tau_efij; with `spread`, checks that no
// rank's copy of V, if the plan copies it, holds more than 1.5/P of it.
std::shared_ptr<const ContractionPlan> plan_ladder(Context& ctx, const Tensor& V, const Tensor& tau, const Tensor& R,
                                                   bool spread) {
  const int P = world().size();
  const auto plan = plan_contraction(V, "abef", tau, "efij", R, "abij");
  const OperandPlan& vp = plan->swapped ? plan->b : plan->a;
  const auto copy = ctx.layout(vp.mat_shape, vp.mat_map);
  for (int r = 0; r < P && spread && !vp.alias; ++r)
    EXPECT_LE(copy->local_size(r), 1.5 * V.shape().packed_size() / P) << "rank " << r << " plan " << plan->mapping;
  return plan;
}

}  // namespace

// The ladder's shape, R_abij += V_abef tau_efij with V constant and all ranks
// along f, and as many occupied orbitals as ranks: a plan over j would keep
// V whole on every rank, for free in the cost model. Under the limit on kept
// copies (Context::set_kept_copy_words; here 0 words) V's copies count as
// moved at every use, and are: the plan does not make V whole on every rank
// (it reads V where it lies or moves it spread over the ranks, none holding
// more than 1.5/P of it), and a moved V moves again at the next call. At 1
// and 2 ranks the plans happen not to replicate V either way.
TEST(Contraction, LargeConstantOperandsAreNotMadeWholeOnEveryRank) {
  const int P = world().size(), v = 6;
  for (const std::int64_t limit : {std::int64_t{0}, std::int64_t{1} << 24}) {
    Context ctx(world());
    ctx.set_kept_copy_words(limit);
    const Shape sv = mk({v, v, v, v}, "NNNN"), st = mk({v, v, P, P}, "NNNN"), sr = mk({v, v, P, P}, "NNNN");
    Tensor V(ctx, sv, Mapping::along(P, 3, 4), "V"), tau(ctx, st, "tau"), R(ctx, sr, "R");
    V.fill_random(5);
    tau.fill_random(6);
    V.set_constant(true);
    const auto plan = plan_ladder(ctx, V, tau, R, limit == 0);
    const OperandPlan& vp = plan->swapped ? plan->b : plan->a;
    std::int64_t words[2] = {0, 0};
    for (int call = 0; call < 2; ++call) {
      R.set_zero();
      contract(1.0, V, "abef", tau, "efij", 0.0, R, "abij");
      words[call] = world().stats().last().words;
      EXPECT_EQ(words[call], world().stats().last().predicted);
      const auto ref = dense::product(1.0, dense::to_dense(V), "abef", dense::to_dense(tau), "efij", sr.lens, "abij");
      EXPECT_LT(dense::packed_error(sr, ref, dense::to_dense(R)), 1e-12) << "limit " << limit << " call " << call;
    }
    if (limit == 0 && !vp.alias) {
      EXPECT_EQ(words[1], words[0]) << plan->mapping;  // nothing kept
    }
    if (limit > 0 && !vp.alias) {
      EXPECT_LT(words[1], words[0]) << plan->mapping;  // V's copy kept
    }
  }
}

// The closed-shell ladder, R+_abij += V+_abef tau+_efij over packed pairs,
// V+ constant and all ranks along ef, with a multiple of P pairs ij (as
// H2O/aug-cc-pVTZ's 15 at 3 ranks). Splitting ij keeps a light copy of V
// whole on every rank, free in words; the plan must count that each rank then
// reads all of it, and read V where it lies instead.
TEST(Contraction, LightConstantCopiesAreNotReadWholeOnEveryRank) {
  // V has 820 pairs ef, 30-140 times tau's 6-28 pairs ij (H2O/aug-cc-pVTZ:
  // 3828 and 15): reading V outweighs moving tau or R, as in the iterations.
  const int P = world().size(), v = 40, o = P == 3 ? 5 : P == 4 ? 7 : 3;  // o(o+1)/2 pairs, a multiple of P
  Context ctx(world());
  const Shape sv = mk({v, v, v, v}, "SNSN"), st = mk({v, v, o, o}, "SNSN"), sr = mk({v, v, o, o}, "SNSN");
  Tensor V(ctx, sv, Mapping::along(P, 2, 4), "V+"), tau(ctx, st, Mapping::along(P, 0, 2), "tau+"), R(ctx, sr, "R+");
  V.fill_random(7);
  tau.fill_random(8);
  V.set_constant(true);
  plan_ladder(ctx, V, tau, R, true);
  // (The product itself is checked against dense loops on this shape in
  // SymmetricContractedGroups' ladder cases.)
  contract(1.0, V, "abef", tau, "efij", 0.0, R, "abij");
  EXPECT_EQ(world().stats().last().words, world().stats().last().predicted);
}

// A held tensor reuses its prepared copies as a constant does, but the
// planner plans for it as for any tensor, and every kind of write drops them.
TEST(Contraction, HeldOperandsReuseTheirPreparedCopiesUntilWritten) {
  VProduct p;
  Tensor& V = p.V;
  const std::string plan = plan_info(p.T, "fm", V, "mafe", p.Z, "ae").mapping;
  auto expect_product = [&](const std::string& when) {
    const cyclocc::par::OpRecord rec = p.run(when);
    EXPECT_EQ(rec.mapping, plan) << when;
    return rec.words;
  };
  V.hold_prepared(true);
  const std::int64_t first = expect_product("first");
  EXPECT_LE(expect_product("again"), first);
  EXPECT_FALSE(V.constant());
  EXPECT_FALSE(Tensor(V).keeps_prepared());  // a copy is another tensor
  const std::vector<std::pair<std::string, std::function<void()>>> writes = {
      {"data()", [&] { for (double& x : V.data()) x *= 2; }},
      {"scale", [&] { V.scale(-0.5); }},
      {"transform", [&] { V.transform([](const int* i, double& x) { x += i[0]; }); }},
      {"fill_random", [&] { V.fill_random(7); }},
      {"write", [&] { V.write({0, 3}, {1.5, -2.0}); }},
      {"import_slab", [&] {
         auto slab = V.export_slab();
         for (double& x : slab) x = 1.0 - x;
         V.import_slab(slab);
       }},
      {"set_zero", [&] { V.set_zero(); }},
  };
  for (const auto& [name, write] : writes) {
    V.hold_prepared(true);
    expect_product("held before " + name);
    write();
    EXPECT_FALSE(V.keeps_prepared()) << name;
    expect_product("after " + name);
  }
}

// A sum that rearranges a constant tensor keeps the rearranged copy and
// later only adds it; a write to the source ends its constancy and drops the
// copy. A held tensor keeps none (its sums happen once while it is held).
TEST(Sum, ConstantSourcesKeepTheirRearrangedCopyUntilWritten) {
  Context ctx(world());
  const Shape sv = mk({4, 5, 6, 6}, "NNAN"), ss = mk({5, 6, 6, 4}, "NANN");
  Tensor V(ctx, sv, variant_mapping(ctx, sv, 1), "V"), S(ctx, ss, "S");
  V.fill_random(3);
  auto expect_sum = [&](const std::string& when) {
    S.fill_random(4);
    const auto before = dense::to_dense(S);
    sum(-2.0, V, "mafe", 1.0, S, "afem");  // S_afem += -2 V_mafe
    const auto v = dense::to_dense(V), after = dense::to_dense(S);
    dense::for_all(ss.lens, [&](const std::vector<int>& x) {
      EXPECT_NEAR(after(x), before(x) - 2.0 * v({x[3], x[0], x[1], x[2]}), 1e-14) << when;
    });
    return world().stats().last().words;
  };
  V.set_constant(true);
  const std::int64_t first = expect_sum("first");
  EXPECT_EQ(expect_sum("again"), 0);  // the kept copy lies as S does
  V.scale(3.0);
  EXPECT_FALSE(V.constant());
  EXPECT_EQ(expect_sum("after a write"), first);
  V.set_constant(true);
  expect_sum("constant again");
  EXPECT_EQ(expect_sum("constant again, twice"), 0);
  V.set_constant(false);
  V.hold_prepared(true);
  EXPECT_EQ(expect_sum("held"), first);
  EXPECT_EQ(expect_sum("held, twice"), first);
}

namespace {

// The flops the statistics record for one contraction, summed over the ranks.
double recorded_flops(const Operand& a, const Operand& b, const Operand& c) {
  Context ctx(world());
  Tensor A(ctx, a.shape, "A"), B(ctx, b.shape, "B"), C(ctx, c.shape, "C");
  A.fill_random(1);
  B.fill_random(2);
  contract(1.0, A, a.labels, B, b.labels, 0.0, C, c.labels);
  return world().stats().last().flops * world().size();
}

double choose2(double n) { return n * (n - 1) / 2; }

}  // namespace

TEST(Contraction, UsefulFlopsFollowTheFormula) {
  // 2 x distinct elements of C x distinct contracted tuples (tensor/README.md).
  EXPECT_DOUBLE_EQ(recorded_flops({"abef", mk({7, 7, 7, 7}, "ANAN")}, {"efij", mk({7, 7, 5, 5}, "ANAN")},
                                  {"abij", mk({7, 7, 5, 5}, "ANAN")}),
                   2 * choose2(7) * choose2(5) * choose2(7));
  // Output antisymmetry the product lacks still counts each element once.
  EXPECT_DOUBLE_EQ(recorded_flops({"ai", mk({7, 5}, "NN")}, {"bj", mk({7, 5}, "NN")}, {"abij", mk({7, 7, 5, 5}, "ANAN")}),
                   2 * choose2(7) * choose2(5));
  // A contracted pair antisymmetric in one operand only is counted packed.
  EXPECT_DOUBLE_EQ(recorded_flops({"efi", mk({7, 7, 5}, "ANN")}, {"efj", mk({7, 7, 4}, "NNN")}, {"ij", mk({5, 4}, "NN")}),
                   2 * 5 * 4 * choose2(7));
  // Non-symmetric everywhere: the plain matrix-product count.
  EXPECT_DOUBLE_EQ(recorded_flops({"ik", mk({3, 6}, "NN")}, {"kj", mk({6, 2}, "NN")}, {"ij", mk({3, 2}, "NN")}),
                   2 * 3 * 2 * 6);
}
