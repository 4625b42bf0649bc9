// Closed-shell (T) for RHF references, one occupied triple i >= j >= k at a
// time, in the spin-adapted form of Rendell, Lee and Komornicki, Chem. Phys.
// Lett. 178, 462 (1991). In spatial orbitals, with chemist-notation integrals
// (pq|rs) and the closed-shell amplitudes t_i^a, t_ij^ab (the alpha-beta ones):
//
//   X_ijk^abc = sum_d (ia|bd) t_kj^cd - sum_l (jl|kc) t_il^ab
//   W_ijk^abc = sum of X over the six simultaneous permutations of (ia), (jb), (kc)
//   Y_ijk^abc = W_ijk^abc + t_i^a (jb|kc) + t_j^b (ia|kc) + t_k^c (ia|jb)
//   E(T) = 1/3 sum_ijk sum_abc Y_ijk^abc Z_ijk^abc / D_ijk^abc,
//   Z_abc = 4 W_abc + W_bca + W_cab - 2 W_acb - 2 W_bac - 2 W_cba,
//   D_ijk^abc = e_i + e_j + e_k - e_a - e_b - e_c.
//
// Z commutes with relabelling (a, b, c), and W, Y and D are unchanged by the
// simultaneous permutations, so the sum over all (i, j, k) is 6, 3 or 1 times
// the one over i >= j >= k with three, two or one distinct values. The test
// (tests/cc/test_ccsd_mpi.cpp) holds this against the spin-orbital path.
//
// Every rank keeps the integrals it needs, (ia|bd) (o v^3 words), (jl|kc) and
// (ia|jb), and the amplitudes; the occupied triples are dealt out round robin
// and each rank holds W, Y and one v^3 product at a time.
#include <cblas.h>

#include <vector>

#include "chem/cc/triples.hpp"
#include "chem/cc/triples_local.hpp"

namespace cyclocc::cc {

namespace {

// The spatial arrays one rank works from (row-major):
//   G[i][b][a][d] = <ib|ad> = (ia|bd),   K[j][k][l][c] = <jk|lc> = (jl|kc),
//   J[i][j][a][b] = <ij|ab> = (ia|jb),   T2[i][j][a][b] = t_ij^ab,   T1[i][a].
struct ClosedShell {
  int o = 0, v = 0;
  std::vector<double> G, K, J, T2, T1;
  const double* eo = nullptr;
  const double* ev = nullptr;
};

ClosedShell local_copies(const MoIntegrals& mo, const Amplitudes& t) {
  ClosedShell s;
  s.o = mo.dims.occ[0];
  s.v = mo.dims.vir[0];
  s.G = tensor::spatial_array(mo.ovvv);
  s.K = tensor::spatial_array(mo.ooov);
  s.J = tensor::spatial_array(mo.oovv);
  const std::size_t o = s.o, v = s.v;
  s.T2 = transposed(tensor::spatial_array(t.t2), v * v, o * o);  // [a][b][i][j] -> [i][j][a][b]
  s.T1 = transposed(tensor::spatial_array(t.t1), v, o);          // [a][i] -> [i][a]
  s.eo = mo.eps_occ[0].data();
  s.ev = mo.eps_vir[0].data();
  return s;
}

// buf[b][a][c] = X_ijk^abc (the order the two products give).
void connected_term(const ClosedShell& s, int i, int j, int k, std::vector<double>& buf) {
  const int o = s.o, v = s.v;
  const std::size_t v2 = std::size_t(v) * v, v3 = v2 * v;
  // sum_d (ia|bd) t_kj^cd = sum_d G[i][b][a][d] T2[k][j][c][d]
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, v * v, v, v, 1.0, s.G.data() + i * v3, v,
              s.T2.data() + (std::size_t(k) * o + j) * v2, v, 0.0, buf.data(), v);
  // - sum_l t_il^ab (jl|kc) = - sum_l T2[l][i][b][a] K[j][k][l][c]   (t_il^ab = t_li^ba)
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, v * v, v, o, -1.0, s.T2.data() + std::size_t(i) * v2,
              o * v * v, s.K.data() + (std::size_t(j) * o + k) * o * v, v, 1.0, buf.data(), v);
}

// W_ijk^abc: the six simultaneous permutations of (ia), (jb), (kc) of X.
void connected_triples(const ClosedShell& s, const int (&ijk)[3], std::vector<double>& w,
                       std::vector<double>& buf) {
  static constexpr int kPerms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const std::size_t v = s.v;
  std::fill(w.begin(), w.end(), 0.0);
  for (const auto& p : kPerms) {
    connected_term(s, ijk[p[0]], ijk[p[1]], ijk[p[2]], buf);
    // W[x0][x1][x2] += X(x_p0, x_p1, x_p2) = buf[x_p1][x_p0][x_p2].
    std::size_t stride[3];
    stride[p[1]] = v * v;
    stride[p[0]] = v;
    stride[p[2]] = 1;
    double* out = w.data();
    for (std::size_t x0 = 0; x0 < v; ++x0)
      for (std::size_t x1 = 0; x1 < v; ++x1) {
        const double* in = buf.data() + x0 * stride[0] + x1 * stride[1];
        for (std::size_t x2 = 0; x2 < v; ++x2) *out++ += in[x2 * stride[2]];
      }
  }
}

// sum_abc Y_ijk^abc Z_ijk^abc / D_ijk^abc for one occupied triple.
double triple_energy(const ClosedShell& s, int i, int j, int k, const std::vector<double>& w) {
  const std::size_t o = s.o, v = s.v, v2 = v * v;
  const double* Jjk = s.J.data() + (j * o + k) * v2;  // (jb|kc)
  const double* Jik = s.J.data() + (i * o + k) * v2;  // (ia|kc)
  const double* Jij = s.J.data() + (i * o + j) * v2;  // (ia|jb)
  const double* t1i = s.T1.data() + i * v;
  const double* t1j = s.T1.data() + j * v;
  const double* t1k = s.T1.data() + k * v;
  const double eijk = s.eo[i] + s.eo[j] + s.eo[k];
  auto W = [&](std::size_t a, std::size_t b, std::size_t c) { return w[(a * v + b) * v + c]; };
  double e = 0;
  for (std::size_t a = 0; a < v; ++a)
    for (std::size_t b = 0; b < v; ++b)
      for (std::size_t c = 0; c < v; ++c) {
        const double wabc = W(a, b, c);
        const double y = wabc + t1i[a] * Jjk[b * v + c] + t1j[b] * Jik[a * v + c] + t1k[c] * Jij[a * v + b];
        const double z = 4 * wabc + W(b, c, a) + W(c, a, b) - 2 * W(a, c, b) - 2 * W(b, a, c) - 2 * W(c, b, a);
        e += y * z / (eijk - s.ev[a] - s.ev[b] - s.ev[c]);
      }
  return e;
}

}  // namespace

double closed_shell_triples(const MoIntegrals& mo, const Amplitudes& t, const TriplesProgress& progress) {
  const ClosedShell s = local_copies(mo, t);
  tensor::Context& ctx = t.t1.ctx();
  const std::size_t v3 = std::size_t(s.v) * s.v * s.v;
  std::vector<double> w(v3), buf(v3);
  double e = 0;
  const RoundRobin deal(long(s.o) * (s.o + 1) * (s.o + 2) / 6, ctx.rank(), ctx.nranks(), progress);
  long n = 0;
  for (int i = 0; i < s.o; ++i)
    for (int j = 0; j <= i; ++j)
      for (int k = 0; k <= j; ++k, ++n) {
        if (deal.mine(n)) {
          const int weight = i == k ? 1 : (i == j || j == k) ? 3 : 6;
          connected_triples(s, {i, j, k}, w, buf);
          e += weight * triple_energy(s, i, j, k, w);
        }
        deal.done(n);
      }
  return ctx.sum_over_ranks(e) / 3.0;
}

}  // namespace cyclocc::cc
