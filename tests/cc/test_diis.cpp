// AmplitudeDiis where every error is parallel to the last: amplitudes with a
// single unknown, as for H2 in a minimal basis (one t2, and t1 = 0 by
// symmetry). Two-electron CCSD is full CI, a standard first test; DIIS must
// not stall on it (the system of three or more such errors is singular).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <deque>
#include <optional>
#include <utility>

#include "chem/cc/diis.hpp"
#include "tests/mpi_world.hpp"

using namespace cyclocc;

namespace {

// A closed shell with one occupied and one virtual orbital.
tensor::SpinDims one_pair() {
  tensor::SpinDims d;
  d.occ[0] = d.occ[1] = 1;
  d.vir[0] = d.vir[1] = 1;
  d.restricted = true;
  return d;
}

// Every stored amplitude of `out` becomes f(the same amplitude of `in`).
template <class F>
void each(const cc::Amplitudes& in, cc::Amplitudes& out, F&& f) {
  auto apply = [&](const tensor::SpinTensor& x, tensor::SpinTensor& y, bool doubles) {
    for (const auto& key : x.computed_keys()) {
      const auto& a = x.block(key).data();
      auto& b = y.write_block(key).data();
      for (std::size_t i = 0; i < a.size(); ++i) b[i] = f(a[i], doubles);
    }
  };
  apply(in.t1, out.t1, false);
  apply(in.t2, out.t2, true);
  if (in.t3 && out.t3) apply(*in.t3, *out.t3, true);
}

// A contraction with a nonlinear term, like the CC equations: the fixed point
// of x -> 0.3 + 0.4 x + 0.2 x^2 is (3 - sqrt(3)) / 2; t1 stays zero.
double step(double x, bool doubles) { return doubles ? 0.3 + 0.4 * x + 0.2 * x * x : 0.0; }

// The solver's loop (chem/cc/solver.cpp): the iterations until the change
// is below 1e-12, and the distance of the result from the fixed point.
std::pair<int, double> solve(int vectors) {
  tensor::Context ctx(test::world());
  cc::Amplitudes t(ctx, one_pair(), false);
  cc::Amplitudes next = cc::Amplitudes::zeros_like(t), change = cc::Amplitudes::zeros_like(t);
  cc::AmplitudeDiis diis(vectors);
  int iterations = 0;
  for (double dt = 1.0; dt > 1e-12 && iterations < 100; ++iterations) {
    each(t, next, step);
    change = next;
    change.axpy(-1.0, t);
    dt = change.norm2();
    diis.extrapolate(next, change);
    std::swap(t, next);
  }
  cc::Amplitudes exact = cc::Amplitudes::zeros_like(t);
  each(t, exact, [](double, bool doubles) { return doubles ? (3.0 - std::sqrt(3.0)) / 2.0 : 0.0; });
  exact.axpy(-1.0, t);
  return {iterations, exact.norm2()};
}

TEST(AmplitudeDiis, ConvergesWhenAllErrorsAreParallel) {
  const auto [plain, plain_error] = solve(0);  // Jacobi steps only: linear convergence, factor 0.65
  EXPECT_GT(plain, 40);
  EXPECT_LT(plain_error, 1e-11);
  // One vector extrapolates to itself: DIIS is off, and stores nothing.
  EXPECT_EQ(solve(1).first, plain);
  {
    tensor::Context ctx(test::world());
    cc::Amplitudes t(ctx, one_pair(), false);
    cc::AmplitudeDiis one(1);
    one.extrapolate(t, t);
    EXPECT_EQ(one.size(), 0);
  }
  for (int vectors : {2, 8, 100}) {
    const auto [n, error] = solve(vectors);
    EXPECT_LE(n, 10) << vectors << " vectors";  // the secant method: superlinear
    EXPECT_LT(error, 1e-11) << vectors << " vectors";
  }
}

// Small dimensions, closed-shell (restricted) and open-shell.
std::pair<tensor::SpinDims, tensor::SpinDims> restricted_and_open() {
  tensor::SpinDims restricted;
  restricted.occ[0] = restricted.occ[1] = 3;
  restricted.vir[0] = restricted.vir[1] = 4;
  restricted.restricted = true;
  tensor::SpinDims open = restricted;
  open.occ[1] = 2;
  open.vir[1] = 5;
  open.restricted = false;
  return {restricted, open};
}

// extrapolate returns <error|error>, the overlap the solver takes the
// change's norm from: over every block (a restricted T2 counts its derived
// same-spin block too) of T1, T2 and, where there are triples, T3, for each
// new pair, and nothing when DIIS is off.
TEST(AmplitudeDiis, ReturnsTheErrorsSquaredNorm) {
  const auto [restricted, open] = restricted_and_open();
  for (const auto& [d, triples] : {std::pair(restricted, false), std::pair(open, false), std::pair(restricted, true),
                                    std::pair(open, true)}) {
    tensor::Context ctx(test::world());
    cc::Amplitudes t(ctx, d, triples), e(ctx, d, triples);
    cc::AmplitudeDiis diis(3), off(1);
    double x = 0.1;
    auto next = [&](double, bool) { return x = std::fmod(x * 7.31 + 0.17, 1.0) - 0.4; };
    for (int k = 0; k < 5; ++k) {
      each(t, t, next);
      each(e, e, next);
      const double norm2 = e.dot(e);
      const std::optional<double> self = diis.extrapolate(t, e);
      ASSERT_TRUE(self.has_value());
      EXPECT_NEAR(*self, norm2, 1e-14 * norm2) << "pair " << k << (d.restricted ? ", restricted" : ", open shell")
                                                << (triples ? ", with T3" : "");
      EXPECT_FALSE(off.extrapolate(t, e).has_value());
    }
  }
}

// The extrapolation against the plain DIIS system (Pulay 1980), solved here
// from dot products of copies: minimise |sum c_i e_i| with sum c_i = 1 over
// the last n pairs. Run past a full history, so that the overlaps kept from
// earlier calls (and the dropping of the oldest pair) are what is checked.
TEST(AmplitudeDiis, ExtrapolatesAsThePlainDiisSystem) {
  const auto [restricted, open] = restricted_and_open();
  constexpr int kVectors = 3;
  for (const auto& d : {restricted, open}) {
    tensor::Context ctx(test::world());
    cc::Amplitudes t(ctx, d, false), e(ctx, d, false);
    cc::AmplitudeDiis diis(kVectors);
    std::deque<cc::Amplitudes> vs, es;
    double x = 0.3;
    auto next = [&](double, bool) { return x = std::fmod(x * 5.17 + 0.29, 1.0) - 0.45; };
    for (int k = 0; k < 7; ++k) {
      each(t, t, next);
      each(e, e, next);
      vs.push_back(t);
      es.push_back(e);
      if (static_cast<int>(vs.size()) > kVectors) {
        vs.pop_front();
        es.pop_front();
      }
      diis.extrapolate(t, e);
      const int n = static_cast<int>(vs.size());
      if (n < 2) continue;
      Eigen::MatrixXd b = Eigen::MatrixXd::Zero(n + 1, n + 1);
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) b(i, j) = es[i].dot(es[j]);
        b(i, n) = b(n, i) = -1.0;
      }
      Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n + 1);
      rhs(n) = -1.0;
      const Eigen::VectorXd c = b.fullPivLu().solve(rhs);
      cc::Amplitudes expected = cc::Amplitudes::zeros_like(t);
      for (int i = 0; i < n; ++i) expected.axpy(c(i), vs[i]);
      expected.axpy(-1.0, t);
      EXPECT_LT(expected.norm2(), 1e-12 * t.norm2())
          << "pair " << k << (d.restricted ? ", restricted" : ", open shell");
    }
  }
}

}  // namespace
