// The spin-integrated CCSD against a dense spin-orbital twin (DESIGN.md §5),
// for RHF-like and UHF-like random integrals, on 1, 2 and 3 ranks.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <tuple>
#include <vector>

#include "chem/cc/ccsd.hpp"
#include "chem/cc/ccsdt.hpp"
#include "chem/cc/diagnostics.hpp"
#include "chem/cc/mo_integrals.hpp"
#include "chem/cc/solver.hpp"
#include "chem/cc/triples.hpp"
#include "tensor/contract.hpp"
#include "tests/cc/so_twin.hpp"
#include "tests/mpi_world.hpp"
#include "tests/tensor/spin_dense.hpp"

using namespace cyclocc;
using tensor::Sym;

namespace {

// Random (pq|rs) with the permutational symmetry of real integrals.
tensor::Tensor random_chemist(tensor::Context& ctx, int n1, int n2, bool braket, std::uint64_t seed) {
  const tensor::Shape s({n1, n1, n2, n2}, {Sym::SY, Sym::NS, Sym::SY, Sym::NS});
  tensor::Tensor r(ctx, s, "R");
  r.fill_random(seed);
  if (!braket) return r;
  tensor::Tensor x(ctx, s, "(pq|rs)");
  x["pqrs"] = 0.5 * r["pqrs"];
  x["pqrs"] += 0.5 * r["rspq"];
  return x;
}

struct Fixture {
  tensor::Context ctx;
  tensor::SpinDims d;
  std::array<std::vector<double>, 2> eo, ev;
  std::vector<tensor::Tensor> chem;  // aa, ab, bb
  cc::MoIntegrals mo;
  twin::System so;

  explicit Fixture(bool restricted, bool small = false, cc::VvvvNeeds needs = {})
      : ctx(test::world()),
        d(dims(restricted, small)),
        chem(make_chem(ctx, d, restricted)),
        mo(build(*this, restricted, needs)),
        so(make_so(*this)) {}

  static tensor::SpinDims dims(bool restricted, bool small) {
    tensor::SpinDims d;
    d.occ[0] = small ? 2 : 3;
    d.occ[1] = restricted ? d.occ[0] : d.occ[0] - 1;
    d.vir[0] = small ? 3 : 4;
    d.vir[1] = restricted ? d.vir[0] : d.vir[0] + 1;
    d.restricted = restricted;
    return d;
  }
  static std::vector<tensor::Tensor> make_chem(tensor::Context& ctx, const tensor::SpinDims& d, bool restricted) {
    const int na = d.occ[0] + d.vir[0], nb = d.occ[1] + d.vir[1];
    std::vector<tensor::Tensor> c;
    c.push_back(random_chemist(ctx, na, na, true, 1));
    c.push_back(restricted ? c[0] : random_chemist(ctx, na, nb, false, 2));
    c.push_back(restricted ? c[0] : random_chemist(ctx, nb, nb, true, 3));
    return c;
  }
  static cc::MoIntegrals build(Fixture& f, bool restricted, cc::VvvvNeeds needs) {
    for (int s = 0; s < 2; ++s) {
      f.eo[s].clear();
      f.ev[s].clear();
      for (int i = 0; i < f.d.occ[s]; ++i) f.eo[s].push_back(-1.0 - 0.3 * i - (restricted ? 0 : 0.05 * s));
      for (int a = 0; a < f.d.vir[s]; ++a) f.ev[s].push_back(0.4 + 0.2 * a + (restricted ? 0 : 0.03 * s));
    }
    return cc::build_mo_integrals(f.ctx, f.d, f.eo, f.ev, cc::chemist_slices(f.chem[0], f.chem[1], f.chem[2], f.d),
                                  needs);
  }
  static twin::System make_so(Fixture& f) {
    const dense::Array aa = dense::to_dense(f.chem[0]), ab = dense::to_dense(f.chem[1]),
                       bb = dense::to_dense(f.chem[2]);
    // (pq|rs) with pq beta and rs alpha is (rs|pq) of the alpha-beta tensor.
    dense::Array ba(std::vector<int>{ab.lens[2], ab.lens[3], ab.lens[0], ab.lens[1]});
    dense::for_all(ba.lens, [&](const std::vector<int>& x) { ba(x) = ab({x[2], x[3], x[0], x[1]}); });
    const dense::Array* c[2][2] = {{&aa, &ab}, {&ba, &bb}};
    return twin::make_system(f.d, f.eo, f.ev, c);
  }
};

// Index of a spin orbital of a space in the twin's numbering.
int so_index(const twin::System& s, char space, int k) { return space == 'o' ? k : s.no + k; }

void expect_block_matches(const twin::System& so, const tensor::SpinTensor& t) {
  const auto got = dense::to_spin_orbital(t);
  double err = 0;
  dense::for_all(got.lens, [&](const std::vector<int>& x) {
    const double ref = so.V(so_index(so, t.spaces()[0], x[0]), so_index(so, t.spaces()[1], x[1]),
                            so_index(so, t.spaces()[2], x[2]), so_index(so, t.spaces()[3], x[3]));
    err = std::max(err, std::abs(ref - got(x)));
  });
  EXPECT_LT(err, 1e-13) << t.name();
}

twin::Amps twin_amps(const cc::Amplitudes& t) {
  twin::Amps a{dense::to_spin_orbital(t.t1), dense::to_spin_orbital(t.t2), {}};
  if (t.t3) a.t3 = dense::to_spin_orbital(*t.t3);
  return a;
}

void random_amplitudes(cc::Amplitudes& t, std::uint64_t seed = 40) {
  std::vector<tensor::SpinTensor*> all{&t.t1, &t.t2};
  if (t.t3) all.push_back(&*t.t3);
  for (tensor::SpinTensor* x : all) {
    if (x->order() == 6 && x->dims().restricted) {
      dense::closed_shell_triples(*x, seed);
      x->scale(0.2);
      continue;
    }
    for (const auto& k : x->block_keys()) {
      x->block(k).fill_random(seed++);
      x->block(k).scale(0.2);
    }
    if (x->dims().restricted) x->flip_symmetrize();
  }
}

// The T1 and D1 diagnostics against plain loops over the spin-orbital t1:
// T1 = sqrt(sum (t_i^a)^2 / (2 N)); D1, restricted only, the largest
// singular value of the alpha block t_i^a (power iteration on t t^T).
void expect_singles_diagnostics(const Fixture& f, const cc::Amplitudes& t, const twin::Amps& ta) {
  const int no = f.so.no, nv = f.so.nv;
  double sum = 0;
  for (int a = 0; a < nv; ++a)
    for (int i = 0; i < no; ++i) sum += ta.t1({a, i}) * ta.t1({a, i});
  const cc::SinglesDiagnostics d = cc::singles_diagnostics(t);
  EXPECT_NEAR(d.t1, std::sqrt(sum / (2.0 * no)), 1e-14);
  ASSERT_EQ(d.d1.has_value(), f.d.restricted);
  if (!d.d1) return;
  const int o = f.d.occ[0], v = f.d.vir[0];  // alpha spin orbitals come first in each space
  std::vector<double> x(o, 1.0), y(o);
  double lambda = 0;
  for (int step = 0; step < 2000; ++step) {
    for (int i = 0; i < o; ++i) {
      y[i] = 0;
      for (int j = 0; j < o; ++j)
        for (int a = 0; a < v; ++a) y[i] += ta.t1({a, i}) * ta.t1({a, j}) * x[j];
    }
    double norm = 0;
    for (double yi : y) norm += yi * yi;
    norm = std::sqrt(norm);
    lambda = norm;
    for (int i = 0; i < o; ++i) x[i] = y[i] / norm;
  }
  EXPECT_NEAR(*d.d1, std::sqrt(lambda), 1e-12);
}

// needs {false, true}: an unrestricted <vv||vv> for the ladder alone, built
// a window of rows at a time with all ranks along f (or ef).
void check_ccsd(bool restricted, cc::VvvvNeeds needs = {}) {
  Fixture f(restricted, false, needs);
  for (const tensor::SpinTensor* b : {&f.mo.oooo, &f.mo.ooov, &f.mo.oovv, &f.mo.ovov, &f.mo.ovvv, &*f.mo.vvvv})
    expect_block_matches(f.so, *b);
  for (const auto& k : f.mo.vvvv->block_keys()) {  // built by rows: along the pair ef, or f alone
    if (needs.blocks) break;
    const auto along = tensor::Mapping::along(f.ctx.nranks(), k[2] == k[3] ? 2 : 3, 4).normalized();
    EXPECT_TRUE(f.mo.vvvv->block(k).mapping().normalized() == along) << k;
  }
  cc::Amplitudes t(f.ctx, f.d, false), r(f.ctx, f.d, false);
  random_amplitudes(t);
  const twin::Amps ta = twin_amps(t);
  EXPECT_NEAR(cc::ccsd_energy(f.mo, t), twin::energy(f.so, ta), 1e-12);
  const cc::PairEnergies pairs = cc::pair_energies(f.mo, t);
  const auto [same, opposite] = twin::pair_energies(f.so, ta);
  EXPECT_NEAR(pairs.same_spin, same, 1e-12);
  EXPECT_NEAR(pairs.opposite_spin, opposite, 1e-12);
  EXPECT_GT(std::abs(same), 1e-3);  // both parts are there to be wrong
  EXPECT_GT(std::abs(opposite), 1e-3);
  expect_singles_diagnostics(f, t, ta);
  cc::ccsd_rhs(f.mo, t, r);
  twin::Amps ref{dense::Array(ta.t1.lens), dense::Array(ta.t2.lens), {}};
  twin::ccsd_rhs(f.so, ta, ref);
  const twin::Amps got = twin_amps(r);
  double e1 = 0, e2 = 0;
  for (std::size_t i = 0; i < got.t1.v.size(); ++i) e1 = std::max(e1, std::abs(got.t1.v[i] - ref.t1.v[i]));
  for (std::size_t i = 0; i < got.t2.v.size(); ++i) e2 = std::max(e2, std::abs(got.t2.v[i] - ref.t2.v[i]));
  EXPECT_LT(e1, 1e-12);
  EXPECT_LT(e2, 1e-12);
}

// Checks every block of `got` (flipped images and the all-alpha block
// included) against f applied element by element to the same blocks of `in`.
void expect_blockwise(const cc::Amplitudes& got, const std::vector<const cc::Amplitudes*>& in,
                      const std::function<double(const std::vector<double>&)>& f) {
  auto tensors = [](const cc::Amplitudes& x) { return std::vector<const cc::SpinTensor*>{&x.t1, &x.t2, &*x.t3}; };
  const auto out = tensors(got);
  for (std::size_t n = 0; n < out.size(); ++n)
    for (const auto& k : out[n]->block_keys()) {
      const auto gv = out[n]->block(k).gather_all();
      std::vector<std::vector<double>> iv;
      for (const cc::Amplitudes* x : in) iv.push_back(tensors(*x)[n]->block(k).gather_all());
      double err = 0;
      std::vector<double> args(in.size());
      for (std::size_t i = 0; i < gv.size(); ++i) {
        for (std::size_t j = 0; j < in.size(); ++j) args[j] = iv[j][i];
        err = std::max(err, std::abs(gv[i] - f(args)));
      }
      EXPECT_LT(err, 1e-14) << out[n]->name() << " " << k;
    }
}

}  // namespace

// The solver's updates of restricted amplitudes (axpy, multiply by the
// denominators with the change, DIIS's combination, dot): every block, flipped images and the
// all-alpha block included, comes out as the same update of the same block,
// and the dot counts every unique spin-orbital amplitude once.
TEST(Ccsd, RestrictedAmplitudeUpdatesMatchTheSpinOrbitalOnes) {
  Fixture f(true);
  cc::Amplitudes a(f.ctx, f.d, true), b(f.ctx, f.d, true);
  random_amplitudes(a, 40);
  random_amplitudes(b, 90);
  const cc::Amplitudes inv = cc::inverse_denominators(a, f.mo);
  cc::Amplitudes c = a;
  c.axpy(0.3, b);
  c.multiply(inv);
  expect_blockwise(c, {&a, &b, &inv}, [](const std::vector<double>& x) { return (x[0] + 0.3 * x[1]) * x[2]; });
  cc::Amplitudes n = a, d = cc::Amplitudes::zeros_like(a);
  n.multiply_and_difference(inv, b, d);
  expect_blockwise(n, {&a, &inv}, [](const std::vector<double>& x) { return x[0] * x[1]; });
  expect_blockwise(d, {&a, &inv, &b}, [](const std::vector<double>& x) { return x[0] * x[1] - x[2]; });
  cc::Amplitudes m = cc::Amplitudes::zeros_like(a);
  m.combine({0.3, -1.2, 0.5}, {&a, &b, &c});
  expect_blockwise(m, {&a, &b, &c}, [](const std::vector<double>& x) { return 0.3 * x[0] - 1.2 * x[1] + 0.5 * x[2]; });
  // Each unique amplitude appears (n!)^2 times in the spin-orbital array (n = 1, 2, 3).
  const twin::Amps A = twin_amps(a), C = twin_amps(c);
  double dot = 0;
  for (const auto& [x, y, copies] : {std::tuple{&C.t1, &A.t1, 1.0}, {&C.t2, &A.t2, 4.0}, {&C.t3, &A.t3, 36.0}})
    for (std::size_t i = 0; i < x->v.size(); ++i) dot += x->v[i] * y->v[i] / copies;
  EXPECT_NEAR(c.dot(a), dot, 1e-12 * std::abs(dot));
  EXPECT_GT(std::abs(dot), 1e-3);
}

TEST(Ccsd, RhfLikeResidualMatchesSpinOrbitalTwin) { check_ccsd(true); }
TEST(Ccsd, UhfLikeResidualMatchesSpinOrbitalTwin) { check_ccsd(false); }
TEST(Ccsd, UhfLikeLadderIntegralsByRowsMatchSpinOrbitalTwin) { check_ccsd(false, {false, true}); }

// An iteration whose residual (or energy) is not a finite number ends the
// solver at once: it is dropped, without a hook call (no checkpoint of it),
// and the amplitudes, energy and count are those of the iteration before,
// bit for bit those of a run stopped there.
TEST(Ccsd, SolverDropsAnIterationThatIsNotFinite) {
  Fixture f(true);
  // The amplitudes carry triples, which the CCSD equations leave as they
  // find them: a NaN there changes no energy, only |dT| sees it.
  auto run = [&](int bad_rhs, int bad_energy, int max_iterations, cc::Amplitudes& t, int& hooked,
                 bool in_triples = false) {
    int rhs_calls = 0, energy_calls = 0;
    cc::Equations eq{[&](const cc::Amplitudes& x, cc::Amplitudes& r) {
                       cc::ccsd_rhs(f.mo, x, r);
                       if (++rhs_calls != bad_rhs) return;
                       tensor::SpinTensor& z = in_triples ? *r.t3 : r.t1;
                       z.write_block(z.computed_keys().front()).transform([](const int* i, double& v) {
                         if (i[0] == 0 && i[1] == 1) v = std::nan("");
                       });
                     },
                     [&](const cc::Amplitudes& x) {
                       const double e = cc::ccsd_energy(f.mo, x);
                       return ++energy_calls == bad_energy ? HUGE_VAL : e;
                     }};
    hooked = 0;
    return cc::solve(eq, f.mo, t, {1e-14, max_iterations, 8}, 0, [&](const cc::Amplitudes&, const cc::Iteration&) {
      ++hooked;
      return false;
    });
  };
  cc::Amplitudes guess(f.ctx, f.d, true);
  cc::mp2_amplitudes(f.mo, guess);
  const double guess_energy = cc::ccsd_energy(f.mo, guess);
  int hooked = 0;
  cc::Amplitudes two = guess;
  const auto ref = run(0, 0, 2, two, hooked);
  ASSERT_EQ(ref.diverged_at, 0);
  ASSERT_EQ(ref.iterations, 2);
  // The third residual (call 3; its singles, or its triples alone), or the
  // third iteration's energy (call 4, after the guess's), is not finite.
  for (const auto& [bad_rhs, bad_energy, in_triples] :
       {std::tuple{3, 0, false}, std::tuple{3, 0, true}, std::tuple{0, 4, false}}) {
    cc::Amplitudes t = guess;
    const auto res = run(bad_rhs, bad_energy, 10, t, hooked, in_triples);
    EXPECT_EQ(res.diverged_at, 3);
    EXPECT_EQ(res.iterations, 2);
    EXPECT_EQ(hooked, 2);
    EXPECT_FALSE(res.converged);
    EXPECT_EQ(res.energy, ref.energy);
    EXPECT_EQ(res.seconds.size(), 2u);
    cc::Amplitudes d = t;
    d.axpy(-1.0, two);
    EXPECT_EQ(d.norm2(), 0.0) << bad_rhs << " " << bad_energy << " " << in_triples;
  }
  // The first iteration: the guess stands.
  cc::Amplitudes t = guess;
  const auto res = run(1, 0, 10, t, hooked);
  EXPECT_EQ(res.diverged_at, 1);
  EXPECT_EQ(res.iterations, 0);
  EXPECT_EQ(hooked, 0);
  EXPECT_EQ(res.energy, guess_energy);
  cc::Amplitudes d = t;
  d.axpy(-1.0, guess);
  EXPECT_EQ(d.norm2(), 0.0);
}

TEST(Ccsd, Mp2AmplitudesAndEnergy) {
  Fixture f(false);
  cc::Amplitudes t(f.ctx, f.d, false);
  cc::mp2_amplitudes(f.mo, t);
  // E_MP2 = 1/4 sum |<ij||ab>|^2 / D_ij^ab over spin orbitals.
  double ref = 0;
  const int o = f.so.no, v = f.so.nv;
  for (int i = 0; i < o; ++i)
    for (int j = 0; j < o; ++j)
      for (int a = 0; a < v; ++a)
        for (int b = 0; b < v; ++b) {
          const double x = f.so.V(i, j, o + a, o + b);
          ref += 0.25 * x * x / (f.so.eps[i] + f.so.eps[j] - f.so.eps[o + a] - f.so.eps[o + b]);
        }
  EXPECT_NEAR(cc::ccsd_energy(f.mo, t), ref, 1e-13);
  EXPECT_LT(std::abs(ref), 1e3);
  EXPECT_GT(std::abs(ref), 1e-3);
}

namespace {
// n choose 3.
long triples_of(long n) { return n * (n - 1) * (n - 2) / 6; }

// The progress calls of one (T): increasing, at most about 100, the last at
// the total, and the same on every rank (they are collective points).
class ProgressCalls {
 public:
  cc::TriplesProgress callback() {
    return [this](long done, long total) { calls_.emplace_back(done, total); };
  }
  void check(const tensor::Context& ctx, long total) const {
    ASSERT_FALSE(calls_.empty());
    EXPECT_EQ(calls_.back(), std::make_pair(total, total));
    EXPECT_LE(calls_.size(), 101u);
    for (std::size_t k = 1; k < calls_.size(); ++k) EXPECT_GT(calls_[k].first, calls_[k - 1].first);
    double signature = 0;
    for (std::size_t k = 0; k < calls_.size(); ++k) signature += double(k + 1) * double(calls_[k].first);
    EXPECT_EQ(ctx.sum_over_ranks(signature), ctx.nranks() * signature);
    EXPECT_EQ(ctx.sum_over_ranks(double(calls_.size())), ctx.nranks() * double(calls_.size()));
  }

 private:
  std::vector<std::pair<long, long>> calls_;
};

void check_triples(bool restricted) {
  Fixture f(restricted);
  cc::Amplitudes t(f.ctx, f.d, false);
  random_amplitudes(t);
  const double ref = twin::triples(f.so, twin_amps(t));
  EXPECT_GT(std::abs(ref), 1e-6);
  const int nocc = std::max(f.d.occ[0], f.d.occ[1]);
  for (int window : {0, 1, 2, 5}) {  // 0: one orbital per rank
    ProgressCalls calls;
    const double e = cc::triples_correction(f.mo, t, cc::TriplesOptions{window, false, calls.callback()});
    EXPECT_NEAR(e, ref, 1e-12 * std::max(1.0, std::abs(ref))) << "window " << window;
    const int step = window > 0 ? window : f.ctx.nranks();
    calls.check(f.ctx, (nocc + step - 1) / step);  // batches of the first occupied index
  }
  // The per-triple kernels: closed-shell (restricted only) and spin cases
  // (any), dealing out i >= j >= k of the orbitals and i < j < k of the spin
  // orbitals.
  if (restricted) {
    ProgressCalls calls;
    EXPECT_NEAR(cc::closed_shell_triples(f.mo, t, calls.callback()), ref, 1e-12 * std::max(1.0, std::abs(ref)));
    calls.check(f.ctx, triples_of(f.d.occ[0] + 2));
  }
  ProgressCalls calls;
  EXPECT_NEAR(cc::spin_case_triples(f.mo, t, calls.callback()), ref, 1e-12 * std::max(1.0, std::abs(ref)));
  calls.check(f.ctx, triples_of(f.d.occ[0] + f.d.occ[1]));
  // A caller that stops at a progress point stops every rank there; the
  // ranks stay in step for what follows.
  for (const bool per_triple : {true, false}) {
    cc::TriplesOptions opt{0, per_triple, [](long, long) { throw std::runtime_error("stop"); }};
    EXPECT_THROW(cc::triples_correction(f.mo, t, opt), std::runtime_error);
  }
  EXPECT_NEAR(cc::triples_correction(f.mo, t), ref, 1e-12 * std::max(1.0, std::abs(ref)));
}
}  // namespace

TEST(Triples, RhfLikeMatchesSpinOrbitalTwin) { check_triples(true); }

// The memory the app reports for the per-triple kernels, counted by hand.
TEST(Triples, PerTripleWordsCountTheLocalCopies) {
  tensor::SpinDims r;
  r.occ[0] = r.occ[1] = 2;
  r.vir[0] = r.vir[1] = 3;
  r.restricted = true;
  // o v^3 + o^3 v + 3 o^2 v^2 + o v + 2 v^3 = 54 + 24 + 108 + 6 + 54
  EXPECT_EQ(cc::per_triple_words(r, 2), 246.0);
  tensor::SpinDims u;
  u.occ[0] = 2, u.occ[1] = 1;
  u.vir[0] = 3, u.vir[1] = 4;
  // Spin-conserving blocks: <ov||vv> 54+64+96+96+36+36 = 382 (and half of it
  // again while spread over 2 ranks), <oo||ov> 72, <oo||vv> 148, T2 twice
  // 2 x 148, T1 6 + 4, three 4^3 work arrays.
  EXPECT_EQ(cc::per_triple_words(u, 2), 382 * 1.5 + 72 + 148 + 296 + 10 + 192);
}
TEST(Triples, UhfLikeMatchesSpinOrbitalTwin) { check_triples(false); }

namespace {
double max_diff(const dense::Array& a, const dense::Array& b) {
  double e = 0;
  for (std::size_t i = 0; i < a.v.size(); ++i) e = std::max(e, std::abs(a.v[i] - b.v[i]));
  return e;
}

void check_ccsdt(bool restricted) {
  Fixture f(restricted, true);
  cc::Amplitudes t(f.ctx, f.d, true), r(f.ctx, f.d, true);
  random_amplitudes(t);
  const twin::Amps ta = twin_amps(t);
  cc::ccsdt_rhs(f.mo, t, r);
  twin::Amps ref;
  twin::ccsdt_rhs(f.so, ta, ref);
  const twin::Amps got = twin_amps(r);
  EXPECT_LT(max_diff(got.t1, ref.t1), 1e-12);
  EXPECT_LT(max_diff(got.t2, ref.t2), 1e-12);
  EXPECT_LT(max_diff(got.t3, ref.t3), 1e-12);
  double norm = 0;
  for (double v : ref.t3.v) norm = std::max(norm, std::abs(v));
  EXPECT_GT(norm, 1e-3);
}
}  // namespace

TEST(Ccsdt, RhfLikeResidualMatchesSpinOrbitalTwin) { check_ccsdt(true); }
TEST(Ccsdt, UhfLikeResidualMatchesSpinOrbitalTwin) { check_ccsdt(false); }
