// (T) in spin-orbital form (Raghavachari et al. 1989; the formula as in
// T. D. Crawford's programming project on CCSD(T)):
//   D t_ijk^abc(c) = P(i/jk) P(a/bc) [ sum_e t_jk^ae <ei||bc> - sum_m t_im^bc <ma||jk> ]
//   D t_ijk^abc(d) = P(i/jk) P(a/bc) t_i^a <jk||bc>
//   E(T) = 1/36 sum_ijkabc t(c) D (t(c) + t(d))
// The sum over i runs in windows of occupied orbitals (space 'w' of the spin
// layer). For i in the window and all j, k:
//   P(i/jk) X_i;jk = X_i;jk - X_j;ik - X_k;ji,
// and the last two come from one term with the window index in X's second
// slot, whose missing (jk) antisymmetry the output's declared symmetry adds.
// With W and V antisymmetric in abc and jk, the full sum is 6 * 2 times the
// packed sum, so E(T) = 1/3 sum over windows of the packed sum.
#include "chem/cc/triples.hpp"

#include <algorithm>

namespace cyclocc::cc {

using tensor::Sym;

namespace {

constexpr Sym N = Sym::NS, A = Sym::AS;

// W^abc_ijk (connected) and V^abc_ijk (disconnected) for i in the window.
struct WindowTriples {
  SpinTensor w, v;
};

WindowTriples window_triples(const MoIntegrals& mo, const Amplitudes& t, const SpinDims& d) {
  tensor::Context& ctx = t.t1.ctx();
  const std::vector<Sym> sym{A, A, N, N, A, N};  // abc | i (window) | jk
  // Ranks along the window index: every term has it in one operand, so each
  // rank computes its own part of W and V and nothing of them moves.
  WindowTriples x{SpinTensor(ctx, d, "vvvwoo", sym, "W(T)", 3), SpinTensor(ctx, d, "vvvwoo", sym, "V(T)", 3)};
  const SpinTensor t1w = tensor::window_slice(t.t1, d, "vw");
  const SpinTensor t2w = tensor::window_slice(t.t2, d, "vvwo");       // t_im^ae, i in the window
  const SpinTensor ovvv_w = tensor::window_slice(mo.ovvv, d, "wvvv");  // <ie||bc>
  const SpinTensor ooov_w = tensor::window_slice(mo.ooov, d, "woov");  // <ik||ma>
  const SpinTensor oovv_w = tensor::window_slice(mo.oovv, d, "wovv");  // <ik||bc>
  // X_i;jk = sum_e t_jk^ae <ei||bc> - sum_m t_im^bc <ma||jk>, <ei||bc> = -<ie||bc>, <ma||jk> = <jk||ma>.
  x.w["abcijk"] = -1.0 * t.t2["aejk"] * ovvv_w["iebc"];
  x.w["abcijk"] -= t2w["bcim"] * mo.ooov["jkma"];
  // - X_j;ik (window index second), antisymmetrised in jk by the output.
  x.w["abcijk"] += t2w["aeik"] * mo.ovvv["jebc"];
  x.w["abcijk"] += t.t2["bcjm"] * ooov_w["ikma"];
  // V: t_i^a <jk||bc> - t_j^a <ik||bc>, with the same bookkeeping.
  x.v["abcijk"] = t1w["ai"] * mo.oovv["jkbc"];
  x.v["abcijk"] -= t.t1["aj"] * oovv_w["ikbc"];
  return x;
}

// Sum over the packed elements of every block of W (W + V) / D. The sum is
// unchanged by a global spin flip, so with a restricted reference a block's
// flipped image counts through its partner (flip_weight) and is never filled.
double window_energy(const MoIntegrals& mo, const WindowTriples& x, const SpinDims& d) {
  double e = 0;
  auto spin = [](char c) { return c == 'a' ? 0 : 1; };
  for (const auto& key : x.w.block_keys()) {
    const int weight = x.w.flip_weight(key);
    if (weight == 0) continue;
    const tensor::Tensor& w = x.w.block(key);
    if (w.shape().packed_size() == 0) continue;
    tensor::Tensor s = x.v.block(key);
    tensor::sum(1.0, w, "abcijk", 1.0, s, "abcijk");
    // The orbital energies of each position, looked up once per block.
    const double* eps[6];
    for (int p = 0; p < 3; ++p) eps[p] = mo.eps_vir[spin(key[p])].data();
    eps[3] = mo.eps_occ[spin(key[3])].data() + d.win_offset[spin(key[3])];
    for (int p = 4; p < 6; ++p) eps[p] = mo.eps_occ[spin(key[p])].data();
    s.transform([&](const int* idx, double& val) {
      val /= eps[3][idx[3]] + eps[4][idx[4]] + eps[5][idx[5]] - eps[0][idx[0]] - eps[1][idx[1]] - eps[2][idx[2]];
    });
    e += weight * w.dot(s);
  }
  return e;
}

}  // namespace

double per_triple_words(const SpinDims& d, int nranks) {
  if (d.restricted) {
    const double o = d.occ[0], v = d.vir[0];
    return o * v * v * v + o * o * o * v + 3 * o * o * v * v + o * v + 2 * v * v * v;
  }
  // Sum over spin patterns (s1 s2 | s3 s4) with s1 + s2 == s3 + s4 of n1 n2 n3 n4.
  auto blocks = [&](char p1, char p2, char p3, char p4) {
    auto len = [&](char space, int s) { return static_cast<double>(space == 'o' ? d.occ[s] : d.vir[s]); };
    double n = 0;
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b)
        for (int c = 0; c < 2; ++c)
          for (int e = 0; e < 2; ++e)
            if (a + b == c + e) n += len(p1, a) * len(p2, b) * len(p3, c) * len(p4, e);
    return n;
  };
  const double vmax = std::max(d.vir[0], d.vir[1]);
  const double ovvv = blocks('o', 'v', 'v', 'v');
  return ovvv * (1.0 + 1.0 / nranks) + blocks('o', 'o', 'o', 'v') + blocks('o', 'o', 'v', 'v') +
         2 * blocks('v', 'v', 'o', 'o') + double(d.occ[0]) * d.vir[0] + double(d.occ[1]) * d.vir[1] +
         3 * vmax * vmax * vmax;
}

double triples_correction(const MoIntegrals& mo, const Amplitudes& t, const TriplesOptions& opt) {
  if (opt.per_triple)
    return mo.dims.restricted ? closed_shell_triples(mo, t, opt.progress) : spin_case_triples(mo, t, opt.progress);
  const int step = opt.window > 0 ? opt.window : t.t1.ctx().nranks();
  const int nocc = std::max(mo.dims.occ[0], mo.dims.occ[1]);
  const long batches = (nocc + step - 1) / step;
  double e = 0;
  for (int first = 0; first < nocc; first += step) {
    SpinDims d = mo.dims;
    for (int s = 0; s < 2; ++s) {
      d.win_offset[s] = std::min(first, d.occ[s]);
      d.win[s] = std::max(0, std::min(step, d.occ[s] - first));
    }
    WindowTriples x = window_triples(mo, t, d);
    e += window_energy(mo, x, d);
    if (opt.progress) opt.progress(first / step + 1, batches);
  }
  return e / 3.0;
}

}  // namespace cyclocc::cc
