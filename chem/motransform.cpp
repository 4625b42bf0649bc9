#include "chem/motransform.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "chem/fock.hpp"
#include "chem/integrals.hpp"
#include "tensor/contract.hpp"

namespace cyclocc::chem {

using tensor::Shape;
using tensor::Sym;
using tensor::Tensor;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Lexicographic rank of a pair a <= b among the pairs of [0, n) (SY packing).
std::int64_t pair_rank(std::int64_t a, std::int64_t b, std::int64_t n) { return a * n - a * (a - 1) / 2 + (b - a); }

struct ShellPair {
  int p, q;  // p >= q
  std::int64_t cost;
};

// Unique shell pairs (p >= q) above the Schwarz threshold, with a cost estimate.
std::vector<ShellPair> shell_pairs(const Basis& basis, const Eigen::MatrixXd& q) {
  std::vector<ShellPair> pairs;
  const int ns = static_cast<int>(basis.shells.size());
  const double qmax = ns ? q.maxCoeff() : 0.0;
  for (int p = 0; p < ns; ++p)
    for (int r = 0; r <= p; ++r)
      if (q(p, r) * qmax >= kSchwarzThreshold)
        pairs.push_back({p, r, static_cast<std::int64_t>(basis.shells[p].size() * basis.shells[r].size())});
  return pairs;
}

}  // namespace

Tensor ao_integrals(tensor::Context& ctx, const Basis& basis) {
  const int n = basis.nbf;
  const Shape shape({n, n, n, n}, {Sym::SY, Sym::NS, Sym::SY, Sym::NS});
  Tensor ao(ctx, shape, "(mn|ls)");
  const Eigen::MatrixXd q = schwarz_matrix(basis);
  const auto pairs = shell_pairs(basis, q);
  // Bra pairs to ranks: longest first, each to the least loaded rank, with
  // the number of ket pairs (pair index <= bra) times the work per function.
  std::vector<int> order(pairs.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::int64_t> cost(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) cost[i] = pairs[i].cost * static_cast<std::int64_t>(i + 1);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[a] > cost[b]; });
  std::vector<std::int64_t> load(ctx.nranks(), 0);
  std::vector<int> mine;
  for (int i : order) {
    const int r = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    load[r] += cost[i];
    if (r == ctx.rank()) mine.push_back(i);
  }
  libint2::Engine engine(libint2::Operator::coulomb, basis.max_nprim, basis.max_l, 0);
  engine.set_precision(kPrimitivePrecision);
  const auto& sh = basis.shells;
  const std::int64_t npair = static_cast<std::int64_t>(n) * (n + 1) / 2;
  std::vector<std::int64_t> keys;
  std::vector<double> vals;
  for (int bi : mine) {
    const ShellPair& b = pairs[bi];
    for (int ki = 0; ki <= bi; ++ki) {
      const ShellPair& k = pairs[ki];
      if (q(b.p, b.q) * q(k.p, k.q) < kSchwarzThreshold) continue;
      engine.compute(sh[b.p], sh[b.q], sh[k.p], sh[k.q]);
      const double* eri = engine.results()[0];
      if (eri == nullptr) continue;
      const int o1 = basis.shell_offset[b.p], o2 = basis.shell_offset[b.q];
      const int o3 = basis.shell_offset[k.p], o4 = basis.shell_offset[k.q];
      const int n1 = static_cast<int>(sh[b.p].size()), n2 = static_cast<int>(sh[b.q].size());
      const int n3 = static_cast<int>(sh[k.p].size()), n4 = static_cast<int>(sh[k.q].size());
      for (int f1 = 0; f1 < n1; ++f1)
        for (int f2 = 0; f2 < n2; ++f2) {
          const int m = o1 + f1, v = o2 + f2;
          if (b.p == b.q && v > m) continue;
          const std::int64_t bra = pair_rank(std::min(m, v), std::max(m, v), n);
          for (int f3 = 0; f3 < n3; ++f3)
            for (int f4 = 0; f4 < n4; ++f4) {
              const int l = o3 + f3, s = o4 + f4;
              if (k.p == k.q && s > l) continue;
              const std::int64_t ket = pair_rank(std::min(l, s), std::max(l, s), n);
              if (bi == ki && ket > bra) continue;
              const double x = eri[((f1 * n2 + f2) * n3 + f3) * n4 + f4];
              keys.push_back(bra * npair + ket);
              vals.push_back(x);
              if (ket != bra) {
                keys.push_back(ket * npair + bra);
                vals.push_back(x);
              }
            }
        }
    }
  }
  ao.write(keys, vals);
  return ao;
}

ActiveSpace active_space(const ScfResult& scf, int frozen) {
  ActiveSpace s;
  const int nmo[2] = {static_cast<int>(scf.C_alpha.cols()), static_cast<int>(scf.C_beta.cols())};
  const int nocc[2] = {scf.n_alpha, scf.n_beta};
  for (int k = 0; k < 2; ++k) {
    if (frozen > nocc[1]) throw std::invalid_argument("frozen core larger than the beta occupied space");
    s.frozen[k] = frozen;
    s.occ[k] = nocc[k] - frozen;
    s.vir[k] = nmo[k] - nocc[k];
  }
  return s;
}

namespace {

// The active columns of C (frozen orbitals dropped) as a tensor [N, n].
Tensor coefficients(tensor::Context& ctx, const Eigen::MatrixXd& C, int frozen, const char* name) {
  const int n = static_cast<int>(C.rows()), m = static_cast<int>(C.cols()) - frozen;
  Tensor c(ctx, Shape({n, m}, {}), name);
  c.transform([&](const int* x, double& v) { v = C(x[0], frozen + x[1]); });
  return c;
}

// (mu nu|r s) with r, s of one spin: SY(mu nu), SY(r s).
Tensor half_transform(const Tensor& ao, const Tensor& c) {
  tensor::Context& ctx = ao.ctx();
  const int n = ao.shape().lens[0], m = c.shape().lens[1];
  Tensor x1(ctx, Shape({n, n, n, m}, {Sym::SY, Sym::NS, Sym::NS, Sym::NS}), "(mn|ls)");
  x1["mnls"] = ao["mnlt"] * c["ts"];
  Tensor x2(ctx, Shape({n, n, m, m}, {Sym::SY, Sym::NS, Sym::SY, Sym::NS}), "(mn|rs)");
  // The product is symmetric in r, s but not structurally: the declared SY
  // adds the swapped term, so take half (contract.hpp conventions).
  x2["mnrs"] = 0.5 * x1["mnls"] * c["lr"];
  return x2;
}

// (p q|r s) with p, q from c and r, s already transformed in `half`.
Tensor bra_transform(const Tensor& half, const Tensor& c) {
  tensor::Context& ctx = half.ctx();
  const int n = half.shape().lens[0], m1 = c.shape().lens[1], m2 = half.shape().lens[2];
  Tensor y1(ctx, Shape({n, m1, m2, m2}, {Sym::NS, Sym::NS, Sym::SY, Sym::NS}), "(mq|rs)");
  y1["mqrs"] = half["mnrs"] * c["nq"];
  Tensor y2(ctx, Shape({m1, m1, m2, m2}, {Sym::SY, Sym::NS, Sym::SY, Sym::NS}), "(pq|rs)");
  y2["pqrs"] = 0.5 * y1["mqrs"] * c["mp"];
  return y2;
}

std::array<std::vector<double>, 2> energies(const ScfResult& scf, const ActiveSpace& s, bool occupied) {
  std::array<std::vector<double>, 2> e;
  const Eigen::VectorXd* eps[2] = {&scf.eps_alpha, &scf.eps_beta};
  for (int k = 0; k < 2; ++k) {
    const int first = occupied ? s.frozen[k] : s.frozen[k] + s.occ[k];
    const int count = occupied ? s.occ[k] : s.vir[k];
    for (int i = 0; i < count; ++i) e[k].push_back((*eps[k])(first + i));
  }
  return e;
}

}  // namespace

cc::MoIntegrals transform_integrals(tensor::Context& ctx, const Basis& basis, const ScfResult& scf,
                                    const ActiveSpace& space, const par::Log& log, TransformStats* stats) {
  const bool restricted = scf.reference == "rhf";
  double t0 = now();
  const Tensor ao = ao_integrals(ctx, basis);
  const double t1 = now();
  log.print("MO transform: AO integrals %.2f s\n", t1 - t0);
  const Tensor ca = coefficients(ctx, scf.C_alpha, space.frozen[0], "C_a");
  const Tensor cb = coefficients(ctx, restricted ? scf.C_alpha : scf.C_beta, space.frozen[1], "C_b");
  const Tensor half_a = half_transform(ao, ca);
  const Tensor aa = bra_transform(half_a, ca);
  std::optional<Tensor> half_b, ab, bb;
  if (!restricted) {
    half_b.emplace(half_transform(ao, cb));
    ab.emplace(bra_transform(*half_b, ca));
    bb.emplace(bra_transform(*half_b, cb));
  }
  const double t2 = now();
  log.print("MO transform: quarter transformations %.2f s\n", t2 - t1);
  tensor::SpinDims d;
  d.restricted = restricted;
  for (int k = 0; k < 2; ++k) {
    d.occ[k] = space.occ[k];
    d.vir[k] = space.vir[k];
  }
  cc::ChemistIntegrals chem{&aa, restricted ? &aa : &*ab, restricted ? &aa : &*bb};
  cc::MoIntegrals mo = cc::build_mo_integrals(ctx, d, energies(scf, space, true), energies(scf, space, false), chem);
  const double t3 = now();
  log.print("MO transform: spin blocks %.2f s\n", t3 - t2);
  if (stats) *stats = TransformStats{t1 - t0, t2 - t1, t3 - t2};
  return mo;
}

}  // namespace cyclocc::chem
