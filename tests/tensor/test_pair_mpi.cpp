// contract_both_orders (tensor/pair_product.hpp) against plain loops and
// against two calls of the general contraction, on 1 to 4 ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tensor/contract.hpp"
#include "tensor/pair_product.hpp"
#include "tests/mpi_world.hpp"
#include "tests/tensor/dense.hpp"

using namespace cyclocc::tensor;
using cyclocc::test::world;

namespace {

using dense::mk;

double max_diff(const Tensor& x, const Tensor& y) {
  const auto a = x.gather_all(), b = y.gather_all();
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

// P and Q through the one pass against two contract() calls, and P against
// the dense product; `pass` says whether the one pass should be taken.
void check(const Shape& sa, const std::string& la, const Shape& sb, const std::string& lb, const std::string& lc,
           bool constant, bool pass) {
  Context ctx(world());
  Tensor A(ctx, sa, "A"), B(ctx, sb, "B");
  A.fill_random(21);
  B.fill_random(22);
  A.set_constant(constant);
  EXPECT_EQ(both_orders_fit(A, la, B, lb, lc), pass) << sa.str();
  std::string swapped = la;
  std::swap(swapped[la.size() - 1], swapped[la.size() - 2]);
  for (int call = 0; call < 2; ++call) {  // the second call finds A's moved copy kept (if constant)
    const auto pq = contract_both_orders(-0.7, A, la, B, lb, lc, "P", "Q");
    EXPECT_EQ(world().stats().last().mapping.rfind("whole blocks", 0) == 0, pass);
    Tensor p2(ctx, pq.p.shape(), "P2"), q2(ctx, pq.q.shape(), "Q2");
    contract(-0.7, A, la, B, lb, 0.0, p2, lc);
    contract(-0.7, A, swapped, B, lb, 0.0, q2, lc);
    EXPECT_LT(max_diff(pq.p, p2), 1e-12) << sa.str() << " call " << call;
    EXPECT_LT(max_diff(pq.q, q2), 1e-12) << sa.str() << " call " << call;
    const auto ref = dense::product(-0.7, dense::to_dense(A), la, dense::to_dense(B), lb, pq.p.shape().lens, lc);
    EXPECT_LT(dense::packed_error(pq.p.shape(), ref, dense::to_dense(pq.p)), 1e-12);
  }
}

}  // namespace

TEST(BothOrders, KernelMatchesPlainLoops) {
  // Every build, every column count, rows and columns around the vector width.
  ASSERT_FALSE(skinny_gemm_isas().empty());
  for (SkinnyIsa isa : skinny_gemm_isas())
    for (std::int64_t v : {4, 5, 6, 7, 8, 13, 17, 31}) {
      for (std::int64_t o = 1; o <= 16; ++o) {
        const std::int64_t n = 3;
        std::vector<double> a(n * v * v), b(v * o), bt(o * v), p(n * v * o, 0.5), q(n * v * o, -0.5);
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = random_value(1, static_cast<std::int64_t>(i));
        for (std::int64_t f = 0; f < v; ++f)
          for (std::int64_t j = 0; j < o; ++j) bt[j * v + f] = b[f * o + j] = random_value(2, f * o + j);
        both_orders_blocks(isa, n, v, o, a.data(), b.data(), bt.data(), p.data(), q.data());
        double err = 0;
        for (std::int64_t x = 0; x < n; ++x)
          for (std::int64_t e = 0; e < v; ++e)
            for (std::int64_t j = 0; j < o; ++j) {
              double sp = 0.5, sq = -0.5;
              for (std::int64_t f = 0; f < v; ++f) {
                sp += a[(x * v + e) * v + f] * b[f * o + j];
                sq += a[(x * v + f) * v + e] * b[f * o + j];
              }
              err = std::max({err, std::abs(p[(x * v + e) * o + j] - sp), std::abs(q[(x * v + e) * o + j] - sq)});
            }
        EXPECT_LT(err, 1e-12) << "isa " << int(isa) << " v " << v << " o " << o;
      }
    }
}

TEST(BothOrders, ClosedShellShape) {
  // P_mbej = sum_f <mb|ef> t_j^f and Q_mbej = sum_f <mb|fe> t_j^f.
  for (bool constant : {false, true}) check(mk({3, 11, 11, 11}, "NNNN"), "mbef", mk({11, 3}, "NN"), "fj", "mbej", constant, true);
}

TEST(BothOrders, LeadingIndicesOfAnyShape) {
  check(mk({9, 7, 7}, "NNN"), "xef", mk({7, 5}, "NN"), "fj", "xej", true, true);
  check(mk({6, 6, 5, 5}, "ANNN"), "abef", mk({5, 8}, "NN"), "fj", "abej", true, true);
  check(mk({4, 4, 4, 9, 9}, "SNNNN"), "abcef", mk({9, 2}, "NN"), "fj", "abcej", false, true);
}

TEST(BothOrders, TwoContractionsWhereThePassDoesNotApply) {
  check(mk({3, 11, 11, 11}, "NNNN"), "mbef", mk({11, 9}, "NN"), "fj", "mbej", true, false);  // more than 8 columns
  check(mk({3, 5, 3, 3}, "NNNN"), "mbef", mk({3, 2}, "NN"), "fj", "mbej", true, false);       // v < 4
  check(mk({3, 6, 6, 6}, "NNAN"), "mbef", mk({6, 6}, "NN"), "fj", "mbej", true, false);       // e < f packed
}
