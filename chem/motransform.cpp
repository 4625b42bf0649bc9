#include "chem/motransform.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
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

namespace {

// Bra pairs to ranks: longest first, each to the least loaded rank, with the
// number of ket pairs (pair index <= bra) times the work per function.
std::vector<int> my_bra_pairs(const std::vector<ShellPair>& pairs, int nranks, int rank) {
  std::vector<int> order(pairs.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::int64_t> cost(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) cost[i] = pairs[i].cost * static_cast<std::int64_t>(i + 1);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[a] > cost[b]; });
  std::vector<std::int64_t> load(nranks, 0);
  std::vector<int> mine;
  for (int i : order) {
    const int r = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    load[r] += cost[i];
    if (r == rank) mine.push_back(i);
  }
  return mine;
}

// The AO integrals of one bra shell pair with every ket pair up to it, as
// canonical keys of the (mn|ls) tensor (SY in both pairs, bra and ket both
// ways round) and their values, appended to keys and vals.
class BraPairIntegrals {
 public:
  BraPairIntegrals(const Basis& basis, const std::vector<ShellPair>& pairs, const Eigen::MatrixXd& q)
      : basis_(basis), pairs_(pairs), q_(q), engine_(libint2::Operator::coulomb, basis.max_nprim, basis.max_l, 0) {
    engine_.set_precision(kPrimitivePrecision);
  }

  void append(int bi, std::vector<std::int64_t>& keys, std::vector<double>& vals) {
    const auto& sh = basis_.shells;
    const std::int64_t n = basis_.nbf, npair = n * (n + 1) / 2;
    const ShellPair& b = pairs_[bi];
    for (int ki = 0; ki <= bi; ++ki) {
      const ShellPair& k = pairs_[ki];
      if (q_(b.p, b.q) * q_(k.p, k.q) < kSchwarzThreshold) continue;
      engine_.compute(sh[b.p], sh[b.q], sh[k.p], sh[k.q]);
      const double* eri = engine_.results()[0];
      if (eri == nullptr) continue;
      const int o1 = basis_.shell_offset[b.p], o2 = basis_.shell_offset[b.q];
      const int o3 = basis_.shell_offset[k.p], o4 = basis_.shell_offset[k.q];
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

 private:
  const Basis& basis_;
  const std::vector<ShellPair>& pairs_;
  const Eigen::MatrixXd& q_;
  libint2::Engine engine_;
};

}  // namespace

Tensor ao_integrals(tensor::Context& ctx, const Basis& basis, std::size_t batch,
                    const std::function<void(double)>& round_done) {
  const int n = basis.nbf;
  const Shape shape({n, n, n, n}, {Sym::SY, Sym::NS, Sym::SY, Sym::NS});
  Tensor ao(ctx, shape, "(mn|ls)");
  const Eigen::MatrixXd q = schwarz_matrix(basis);
  const auto pairs = shell_pairs(basis, q);
  const std::vector<int> mine = my_bra_pairs(pairs, ctx.nranks(), ctx.rank());
  BraPairIntegrals integrals(basis, pairs, q);
  // Sent to their owners in rounds of about `batch` values per rank, so that
  // the values in flight (16 bytes each here, about three times that inside
  // write()) stay a bounded buffer instead of a multiple of the tensor.
  std::vector<std::int64_t> keys;
  std::vector<double> vals;
  std::size_t next = 0;
  do {
    keys.clear();
    vals.clear();
    while (next < mine.size() && keys.size() < batch) integrals.append(mine[next++], keys, vals);
    ao.write(keys, vals, 1.0, 1.0);  // adds to the zeros and the earlier rounds
    if (round_done) round_done(mine.empty() ? 1.0 : static_cast<double>(next) / static_cast<double>(mine.size()));
  } while (ctx.comm().any(next < mine.size()));
  return ao;
}

double transform_peak_bytes(int nbf, const ActiveSpace& space, bool restricted, cc::VvvvNeeds needs, int nranks) {
  const double N = nbf, p = N * (N + 1) / 2;  // AO pairs
  const double o = std::max(space.occ[0], space.occ[1]), v = std::max(space.vir[0], space.vir[1]);
  const double n = o + v, v4 = v * v * v * v;
  const double spins = restricted ? 1 : 2, spin_pairs = restricted ? 1 : 3;
  const double quarters = spins * p * N * n, kets = spins * p * n * (n + 1) / 2;
  // The AO tensor, its copy with the ket pair unpacked while a quarter is made, and the quarters.
  const double a = p * p + p * N * N + quarters;
  // The quarters and the kets, the vv ket twice while it is redistributed.
  const double b = quarters + kets + p * v * (v + 1) / 2;
  // The kets, the bra quarters and MO blocks (and a transient copy of the
  // largest bra quarter), and the <vv|vv> integrals: for CCSDT the chemist
  // blocks (v^4/4 each) and the <vv||vv> blocks with the send and receive
  // buffers of their redistribution; for the ladder alone the restricted
  // halves (v^4/2) or the unrestricted <vv||vv> blocks (3 v^4/2), and one
  // window of w v^4 rows' temporaries at a time: the rows (w v^4/2),
  // unpacked twice (2 w v^4: a copy, then in the integrals' order along ef)
  // and, at P > 1, the buffers between (2 w v^4).
  double c = kets + (spin_pairs + 1) * N * n * n * n / 2 + spin_pairs * o * v * v * v;
  const double buffers = nranks > 1 ? 2 * v4 : v4;
  const double w = v > 0 ? cc::vvvv_row_window(static_cast<int>(v)) / v : 0;
  const double window = w * v4 * (nranks > 1 ? 4.5 : 2.5);
  if (!restricted && needs.blocks) c += 3 * v4 / 4 + 3 * v4 / 2 + buffers;
  if (!restricted && !needs.blocks && needs.ladder) c += 3 * v4 / 2 + window;
  if (restricted) {
    const double blocks = needs.blocks ? v4 / 4 + v4 : 0;
    c += blocks + std::max(needs.blocks ? buffers : 0, needs.ladder ? v4 / 2 + window : 0);
  }
  return 8 * std::max({a, b, c}) / nranks;
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

// Columns [first, first + count) of C as a tensor [N, count].
Tensor coefficients(tensor::Context& ctx, const Eigen::MatrixXd& C, int first, int count, const std::string& name) {
  const int n = static_cast<int>(C.rows());
  Tensor c(ctx, Shape({n, count}, {}), name);
  c.transform([&](const int* x, double& v) { v = C(x[0], first + x[1]); });
  return c;
}

// The chemist blocks (pq|rs) computed straight from the AO integrals with
// the occupied and virtual coefficients: the quarter transformations are
// shared between the blocks that need them, every block is made once.
class ChemistTransform {
 public:
  // Takes the AO integrals and makes every quarter and every ket pair from
  // them at once (every method needs them all), dropping the AO integrals
  // after the quarters and the quarters after the kets: they are the largest
  // tensors here (N^4/4 and N^3 (o+v)/2 words), so the peak holds one stage
  // with the next, not all of them. The larger quarter comes first, while
  // less else is held beside the transient unpacked copy of the AO tensor.
  // step(what) is called on every rank after each of those transformations.
  ChemistTransform(Tensor ao, std::array<std::array<Tensor, 2>, 2> c, int spins,
                   const std::function<void(const std::string&)>& step)
      : ctx_(ao.ctx()), n_(ao.shape().lens[0]), ao_(std::move(ao)), c_(std::move(c)) {
    for (int s = 0; s < spins; ++s)
      for (const char y : {'v', 'o'}) {
        quarter(s, y);
        step("quarter transformations, " + std::to_string(quarters_.size()) + " of " + std::to_string(2 * spins));
      }
    ao_.reset();
    for (int s = 0; s < spins; ++s)
      for (const auto& [x, y] : {std::pair{'v', 'v'}, std::pair{'o', 'v'}, std::pair{'o', 'o'}}) {
        ket(s, x, y);
        step("ket transformations, " + std::to_string(kets_.size()) + " of " + std::to_string(3 * spins));
      }
    quarters_.clear();
  }

  const Tensor& operator()(int s1, int s2, const std::string& spaces) {
    const std::string key = std::to_string(s1) + std::to_string(s2) + spaces;
    auto it = blocks_.find(key);
    if (it != blocks_.end()) return it->second;
    const Tensor& y1 = bra_quarter(s1, s2, spaces);
    const Tensor& cp = c_[s1][space(spaces[0])];
    const int np = cp.shape().lens[1], nq = y1.shape().lens[1];
    const auto& hl = y1.shape().lens;
    const Sym ket_sym = y1.shape().sym[2];
    const bool same = spaces[0] == spaces[1];
    Tensor y2(ctx_, Shape({np, nq, hl[2], hl[3]}, {same ? Sym::SY : Sym::NS, Sym::NS, ket_sym, Sym::NS}),
              along(2, 4), "(pq|rs)");
    // A symmetric pair: the declared SY adds the swapped term, so take half
    // (contract.hpp conventions).
    y2["pqrs"] = (same ? 0.5 : 1.0) * y1["mqrs"] * cp["mp"];
    return blocks_.emplace(key, std::move(y2)).first->second;
  }

  // Rows [first, first + count) of p of the block (pq|rs) of spins s1, s2 in
  // `spaces` (as for operator()): (pq|rs) for p in the window, p and q
  // unpaired. The whole block's product with a window of the coefficients;
  // not kept.
  Tensor rows(int s1, int s2, const std::string& spaces, int first, int count) {
    const Tensor& y1 = bra_quarter(s1, s2, spaces);
    const Tensor& c = c_[s1][space(spaces[0])];
    const Tensor cp = c.slice({0, first}, Shape({n_, count}, {}), "C rows");
    const auto& hl = y1.shape().lens;
    Tensor y2(ctx_, Shape({count, hl[1], hl[2], hl[3]}, {Sym::NS, Sym::NS, y1.shape().sym[2], Sym::NS}), along(2, 4),
              "(pq|rs) rows");
    y2["pqrs"] = y1["mqrs"] * cp["mp"];
    return y2;
  }

 private:
  static int space(char c) { return c == 'o' ? 0 : 1; }

  // All ranks along index positions [first, last): the bra pair while the ket
  // is transformed, the ket pair while the bra is, so that only the step in
  // between moves the integrals.
  tensor::Mapping along(int first, int last) const { return tensor::Mapping::along(ctx_.nranks(), first, last); }

  // (mu q|r s), q of spin s1 in spaces[1]: shared by the blocks that differ
  // only in the space of p.
  const Tensor& bra_quarter(int s1, int s2, const std::string& spaces) {
    const std::string key = std::to_string(s1) + std::to_string(s2) + spaces.substr(1);
    auto it = bras_.find(key);
    if (it != bras_.end()) return it->second;
    const Tensor& half = ket(s2, spaces[2], spaces[3]);
    const Tensor& cq = c_[s1][space(spaces[1])];
    const int n = n_, nq = cq.shape().lens[1];
    const auto& hl = half.shape().lens;
    Tensor y1(ctx_, Shape({n, nq, hl[2], hl[3]}, {Sym::NS, Sym::NS, half.shape().sym[2], Sym::NS}), along(2, 4),
              "(mq|rs)");
    y1["mqrs"] = half["mnrs"] * cq["nq"];
    return bras_.emplace(key, std::move(y1)).first->second;
  }

  // (mu nu|r s), r and s of spin s in spaces x and y.
  const Tensor& ket(int s, char x, char y) {
    const std::string key = std::to_string(s) + x + y;
    auto it = kets_.find(key);
    if (it != kets_.end()) return it->second;
    const Tensor& first = quarter(s, y);
    const Tensor& cx = c_[s][space(x)];
    const int n = n_, nx = cx.shape().lens[1], ny = first.shape().lens[3];
    const bool same = x == y;
    Tensor x2(ctx_, Shape({n, n, nx, ny}, {Sym::SY, Sym::NS, same ? Sym::SY : Sym::NS, Sym::NS}), along(0, 2),
              "(mn|rs)");
    x2["mnrs"] = (same ? 0.5 : 1.0) * first["mnls"] * cx["lr"];
    x2.redistribute(along(2, 4));  // once, for every bra transformation that reads it
    return kets_.emplace(key, std::move(x2)).first->second;
  }

  // (mu nu|lambda s), s of spin `s` in space y.
  const Tensor& quarter(int s, char y) {
    const std::string key = std::to_string(s) + y;
    auto it = quarters_.find(key);
    if (it != quarters_.end()) return it->second;
    const Tensor& cy = c_[s][space(y)];
    if (!ao_) throw std::logic_error("ChemistTransform: a quarter asked for after the AO integrals were dropped");
    const int n = n_;
    Tensor x1(ctx_, Shape({n, n, n, cy.shape().lens[1]}, {Sym::SY, Sym::NS, Sym::NS, Sym::NS}), along(0, 2),
              "(mn|ls)");
    x1["mnls"] = (*ao_)["mnlt"] * cy["ts"];
    return quarters_.emplace(key, std::move(x1)).first->second;
  }

  tensor::Context& ctx_;
  const int n_;                // basis functions
  std::optional<Tensor> ao_;   // until the quarters are made
  std::array<std::array<Tensor, 2>, 2> c_;  // [spin][occupied, virtual]
  std::map<std::string, Tensor> quarters_, kets_, bras_, blocks_;
};

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
                                    const ActiveSpace& space, const par::Log& log, TransformStats* stats,
                                    cc::VvvvNeeds needs, const std::function<void()>& safe_point) {
  const bool restricted = scf.reference == "rhf";
  const tensor::OneOffMoves one_off(ctx);
  const double t0 = now();
  // After each piece of work: a safe point, and a progress line every 30 s.
  double last_line = t0;
  const auto step = [&](const std::string& what) {
    if (safe_point) safe_point();
    if (now() < last_line + 30) return;
    last_line = now();
    log.print("MO transform: %s, %.0f s\n", what.c_str(), last_line - t0);
  };
  Tensor ao = ao_integrals(ctx, basis, kAoBatch, [&](double done) {
    char what[64];
    std::snprintf(what, sizeof what, "AO integrals, %.0f%% of the shell pairs", 100 * done);
    step(what);
  });
  const double t1 = now();
  log.print("MO transform: AO integrals %.2f s\n", t1 - t0);
  auto block = [&](int s, bool occupied) {
    const Eigen::MatrixXd& C = (s == 0 || restricted) ? scf.C_alpha : scf.C_beta;
    const int first = occupied ? space.frozen[s] : space.frozen[s] + space.occ[s];
    return coefficients(ctx, C, first, occupied ? space.occ[s] : space.vir[s], occupied ? "C_o" : "C_v");
  };
  ChemistTransform chem(std::move(ao), {{{block(0, true), block(0, false)}, {block(1, true), block(1, false)}}},
                        restricted ? 1 : 2, step);
  tensor::SpinDims d;
  d.restricted = restricted;
  for (int k = 0; k < 2; ++k) {
    d.occ[k] = space.occ[k];
    d.vir[k] = space.vir[k];
  }
  cc::MoIntegrals mo = cc::build_mo_integrals(
      ctx, d, energies(scf, space, true), energies(scf, space, false),
      [&](int s1, int s2, const std::string& sp) -> const Tensor& {
        step("MO blocks, at (" + sp.substr(0, 2) + "|" + sp.substr(2) + ")");
        // Closed shell: alpha and beta orbitals are the same.
        return restricted ? chem(0, 0, sp) : chem(s1, s2, sp);
      },
      needs,
      [&](int s1, int s2, int first, int count) {
        step("MO blocks, (vv|vv) rows from " + std::to_string(first + 1));
        return restricted ? chem.rows(0, 0, "vvvv", first, count) : chem.rows(s1, s2, "vvvv", first, count);
      });
  const double t2 = now();
  log.print("MO transform: transformation and spin blocks %.2f s\n", t2 - t1);
  if (stats) *stats = TransformStats{t1 - t0, t2 - t1};
  return mo;
}

}  // namespace cyclocc::chem
