// (T) for any reference (UHF and RHF alike), one occupied triple at a time
// in each of the four spin cases, from the spin-orbital formula of
// triples.cpp (Raghavachari et al. 1989; Watts, Gauss and Bartlett 1993):
//
//   W_ijk^abc = P(i/jk) P(a/bc) X_ijk^abc,
//   X_ijk^abc = sum_e t_jk^ae <ei||bc> - sum_m t_im^bc <ma||jk>,
//   V_ijk^abc = P(i/jk) P(a/bc) t_i^a <jk||bc>,
//   P(i/jk) f(ijk) = f(ijk) - f(jik) - f(kji), and P(a/bc) likewise.
//
// E(T) = 1/36 sum over all spin orbitals of W (W + V) / D. The summand is
// unchanged by permuting i, j, k (or a, b, c), so each spin case (occupied
// and virtual spins aaa, aab, abb, bbb) contributes its sum over ordered
// occupied triples (i < j among equal spins) and over all virtual triples
// divided by the orderings of its equal-spin virtuals (6, 2, 2, 6).
//
// For one occupied triple, each of the nine terms of P(i/jk) P(a/bc) is a
// product over e (a v x v x v^2 dgemm) and one over m (v^2 x o x v), on the
// spin blocks the term's spins select; a term whose spins do not conserve is
// zero. Every rank holds the unpacked spin blocks of <ov||vv>, <oo||ov>,
// <oo||vv>, T1 and T2 (gathered once) and two v^3 arrays; the occupied
// triples are dealt out round robin. The tests hold it against the dense
// spin-orbital twin to 1e-12.
#include <cblas.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "chem/cc/triples.hpp"
#include "chem/cc/triples_local.hpp"

namespace cyclocc::cc {

using tensor::Sym;

namespace {

constexpr Sym N = Sym::NS;

char spin_char(int s) { return s == 0 ? 'a' : 'b'; }

// Unpacked spin blocks on every rank, row-major, keyed by the spins of their
// positions: G <ie||bc> [i][e][b][c], Q <jk||ma> [j][k][m][a], J <jk||bc>
// [j][k][b][c], T2 t_ij^ab as [i][j][a][b] under the key of "abij", T1 [i][a].
struct SpinArrays {
  int o[2] = {0, 0}, v[2] = {0, 0};
  std::map<std::string, std::vector<double>> G, Q, J, T2;
  std::vector<double> T1[2];
  const double* eo[2] = {nullptr, nullptr};
  const double* ev[2] = {nullptr, nullptr};
};

// Every spin block of x unpacked: x copied into a tensor without symmetry.
std::map<std::string, std::vector<double>> unpacked_blocks(const SpinTensor& x, const std::string& labels) {
  SpinTensor u = SpinTensor::zeros_like(x, x.spaces(), std::vector<Sym>(x.order(), N), x.name() + "(unpacked)");
  u[labels] = x[labels];
  std::map<std::string, std::vector<double>> out;
  for (const std::string& key : u.block_keys()) out[key] = u.block(key).gather_all();
  return out;
}

SpinArrays spin_arrays(const MoIntegrals& mo, const Amplitudes& t) {
  SpinArrays s;
  for (int x = 0; x < 2; ++x) {
    s.o[x] = mo.dims.occ[x];
    s.v[x] = mo.dims.vir[x];
    s.eo[x] = mo.eps_occ[x].data();
    s.ev[x] = mo.eps_vir[x].data();
  }
  s.G = unpacked_blocks(mo.ovvv, "iebc");
  s.Q = unpacked_blocks(mo.ooov, "jkma");
  s.J = unpacked_blocks(mo.oovv, "jkbc");
  for (auto& [key, a] : unpacked_blocks(t.t2, "abij")) {  // [a][b][i][j] -> [i][j][a][b]
    const std::size_t ab = std::size_t(s.v[key[0] == 'b']) * s.v[key[1] == 'b'];
    s.T2[key] = transposed(a, ab, ab ? a.size() / ab : 0);
  }
  for (auto& [key, a] : unpacked_blocks(t.t1, "ai")) {  // [a][i] -> [i][a]
    const int x = key[0] == 'b';
    s.T1[x] = transposed(a, s.v[x], s.o[x]);
  }
  return s;
}

// One occupied triple of one spin case: orbitals and spins of i, j, k and
// the spins of a, b, c.
struct Triple {
  int occ[3];
  int os[3];
  int vs[3];
};

std::string key(int a, int b, int c, int d) {
  return {spin_char(a), spin_char(b), spin_char(c), spin_char(d)};
}

// buf[a'][b'][c'] = X_{i'j'k'}^{a'b'c'} for the given orbitals and spins.
void connected_term(const SpinArrays& s, const int (&o)[3], const int (&os)[3], const int (&vs)[3],
                    std::vector<double>& buf) {
  const int va = s.v[vs[0]], vb = s.v[vs[1]], vc = s.v[vs[2]];
  const int bc = vb * vc;
  std::fill(buf.begin(), buf.begin() + std::size_t(va) * bc, 0.0);
  // sum_e t_{j'k'}^{a'e} <e i'||b'c'>, <ei||bc> = -<ie||bc>.
  const int se = os[1] + os[2] - vs[0];
  if (se >= 0 && se <= 1 && se + os[0] == vs[1] + vs[2]) {
    const int ve = s.v[se], ok = s.o[os[2]];
    const double* t = s.T2.at(key(vs[0], se, os[1], os[2])).data() + (std::size_t(o[1]) * ok + o[2]) * va * ve;
    const double* g = s.G.at(key(os[0], se, vs[1], vs[2])).data() + std::size_t(o[0]) * ve * bc;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, va, bc, ve, -1.0, t, ve, g, bc, 0.0, buf.data(), bc);
  }
  // - sum_m t_{i'm}^{b'c'} <m a'||j'k'>, <ma||jk> = <jk||ma>.
  const int sm = vs[1] + vs[2] - os[0];
  if (sm >= 0 && sm <= 1 && sm + vs[0] == os[1] + os[2]) {
    const int om = s.o[sm], ok = s.o[os[2]];
    const double* q = s.Q.at(key(os[1], os[2], sm, vs[0])).data() + (std::size_t(o[1]) * ok + o[2]) * om * va;
    const double* t = s.T2.at(key(vs[1], vs[2], os[0], sm)).data() + std::size_t(o[0]) * om * bc;
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, va, bc, om, -1.0, q, va, t, bc, 1.0, buf.data(), bc);
  }
}

// The three terms of P(i/jk) (and of P(a/bc)): the positions taken, and sign.
struct Perm {
  int p[3];
  double sign;
};
constexpr Perm kAntisym[3] = {{{0, 1, 2}, 1.0}, {{1, 0, 2}, -1.0}, {{2, 1, 0}, -1.0}};

// W and V of one occupied triple over all virtual triples of its spin case.
void triples_of(const SpinArrays& s, const Triple& x, std::vector<double>& w, std::vector<double>& v,
                std::vector<double>& buf) {
  const std::size_t n1 = s.v[x.vs[0]], n2 = s.v[x.vs[1]], n3 = s.v[x.vs[2]];
  std::fill(w.begin(), w.begin() + n1 * n2 * n3, 0.0);
  std::fill(v.begin(), v.begin() + n1 * n2 * n3, 0.0);
  for (const Perm& sg : kAntisym)
    for (const Perm& tu : kAntisym) {
      const int o[3] = {x.occ[sg.p[0]], x.occ[sg.p[1]], x.occ[sg.p[2]]};
      const int os[3] = {x.os[sg.p[0]], x.os[sg.p[1]], x.os[sg.p[2]]};
      const int vs[3] = {x.vs[tu.p[0]], x.vs[tu.p[1]], x.vs[tu.p[2]]};
      connected_term(s, o, os, vs, buf);
      // Output position m reads the term's slot r with tu.p[r] = m.
      std::size_t len[3] = {std::size_t(s.v[vs[0]]), std::size_t(s.v[vs[1]]), std::size_t(s.v[vs[2]])};
      std::size_t stride[3];
      stride[tu.p[0]] = len[1] * len[2];
      stride[tu.p[1]] = len[2];
      stride[tu.p[2]] = 1;
      const double sign = sg.sign * tu.sign;
      // V: t_{i'}^{a'} <j'k'||b'c'> when the spins allow it.
      const bool disc = os[0] == vs[0] && os[1] + os[2] == vs[1] + vs[2];
      const double* t1 = disc ? s.T1[os[0]].data() + std::size_t(o[0]) * s.v[os[0]] : nullptr;
      const double* jk = disc ? s.J.at(key(os[1], os[2], vs[1], vs[2])).data() +
                                    (std::size_t(o[1]) * s.o[os[2]] + o[2]) * len[1] * len[2]
                              : nullptr;
      std::size_t n = 0;
      for (std::size_t a = 0; a < n1; ++a)
        for (std::size_t b = 0; b < n2; ++b)
          for (std::size_t c = 0; c < n3; ++c, ++n) {
            const std::size_t xs[3] = {a, b, c};
            const std::size_t at = a * stride[0] + b * stride[1] + c * stride[2];
            w[n] += sign * buf[at];
            if (disc) v[n] += sign * t1[xs[tu.p[0]]] * jk[xs[tu.p[1]] * len[2] + xs[tu.p[2]]];
          }
    }
}

double triple_energy(const SpinArrays& s, const Triple& x, const std::vector<double>& w, const std::vector<double>& v) {
  const std::size_t n1 = s.v[x.vs[0]], n2 = s.v[x.vs[1]], n3 = s.v[x.vs[2]];
  const double* e1 = s.ev[x.vs[0]];
  const double* e2 = s.ev[x.vs[1]];
  const double* e3 = s.ev[x.vs[2]];
  const double eijk = s.eo[x.os[0]][x.occ[0]] + s.eo[x.os[1]][x.occ[1]] + s.eo[x.os[2]][x.occ[2]];
  double e = 0;
  std::size_t n = 0;
  for (std::size_t a = 0; a < n1; ++a)
    for (std::size_t b = 0; b < n2; ++b)
      for (std::size_t c = 0; c < n3; ++c, ++n) e += w[n] * (w[n] + v[n]) / (eijk - e1[a] - e2[b] - e3[c]);
  return e;
}

// The occupied triples of the four spin cases: i < j < k within a spin,
// alpha before beta.
long spin_case_triple_count(long a, long b) {
  return a * (a - 1) * (a - 2) / 6 + a * (a - 1) / 2 * b + a * b * (b - 1) / 2 + b * (b - 1) * (b - 2) / 6;
}

}  // namespace

double spin_case_triples(const MoIntegrals& mo, const Amplitudes& t, const TriplesProgress& progress) {
  const SpinArrays s = spin_arrays(mo, t);
  tensor::Context& ctx = t.t1.ctx();
  const std::size_t vmax = std::max(s.v[0], s.v[1]);
  std::vector<double> w(vmax * vmax * vmax), v(w.size()), buf(w.size());
  // Spin cases: number of beta among (i, j, k) and among (a, b, c), beta last.
  double e = 0;
  const RoundRobin deal(spin_case_triple_count(s.o[0], s.o[1]), ctx.rank(), ctx.nranks(), progress);
  long n = 0;
  for (int nb = 0; nb <= 3; ++nb) {
    Triple x{};
    for (int p = 0; p < 3; ++p) x.os[p] = x.vs[p] = p >= 3 - nb ? 1 : 0;
    const double orderings = (nb == 0 || nb == 3) ? 6.0 : 2.0;
    const int* os = x.os;
    for (int i = 0; i < s.o[os[0]]; ++i)
      for (int j = os[1] == os[0] ? i + 1 : 0; j < s.o[os[1]]; ++j)
        for (int k = os[2] == os[1] ? j + 1 : 0; k < s.o[os[2]]; ++k, ++n) {
          if (deal.mine(n)) {
            x.occ[0] = i;
            x.occ[1] = j;
            x.occ[2] = k;
            triples_of(s, x, w, v, buf);
            e += triple_energy(s, x, w, v) / orderings;
          }
          deal.done(n);
        }
  }
  return ctx.sum_over_ranks(e);
}

}  // namespace cyclocc::cc
