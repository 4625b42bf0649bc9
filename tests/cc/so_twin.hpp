// Slow twins for the correlated methods: spin-orbital integrals and CCSD
// residuals in plain loops (textbook Stanton-Gauss form, with W_abef built
// explicitly), from the same chemist-notation integrals the fast code uses.
#pragma once

#include <array>
#include <vector>

#include "chem/cc/mo_integrals.hpp"
#include "tests/tensor/dense.hpp"

namespace twin {

using cyclocc::tensor::SpinDims;

// Spin orbitals: occupied first (alpha then beta), then virtual (alpha then beta).
struct System {
  int no = 0, nv = 0, n = 0;
  std::vector<int> spin, spatial;  // per spin orbital; spatial index in the chemist tensors
  std::vector<double> eps;
  std::vector<double> v;           // <pq||rs>, n^4
  double V(int p, int q, int r, int s) const { return v[((static_cast<std::size_t>(p) * n + q) * n + r) * n + s]; }
};

// chem[s1][s2]: dense (pq|rs), pq of spin s1, rs of spin s2 (occupied first).
inline System make_system(const SpinDims& d, const std::array<std::vector<double>, 2>& eo,
                          const std::array<std::vector<double>, 2>& ev, const dense::Array* chem[2][2]) {
  System s;
  s.no = d.occ[0] + d.occ[1];
  s.nv = d.vir[0] + d.vir[1];
  s.n = s.no + s.nv;
  for (int sp = 0; sp < 2; ++sp)
    for (int i = 0; i < d.occ[sp]; ++i) {
      s.spin.push_back(sp);
      s.spatial.push_back(i);
      s.eps.push_back(eo[sp][i]);
    }
  for (int sp = 0; sp < 2; ++sp)
    for (int a = 0; a < d.vir[sp]; ++a) {
      s.spin.push_back(sp);
      s.spatial.push_back(d.occ[sp] + a);
      s.eps.push_back(ev[sp][a]);
    }
  auto direct = [&](int p, int q, int r, int t) {  // <pq|rt> = (pr|qt)
    if (s.spin[p] != s.spin[r] || s.spin[q] != s.spin[t]) return 0.0;
    const dense::Array& c = *chem[s.spin[p]][s.spin[q]];
    return c({s.spatial[p], s.spatial[r], s.spatial[q], s.spatial[t]});
  };
  s.v.resize(static_cast<std::size_t>(s.n) * s.n * s.n * s.n);
  for (int p = 0; p < s.n; ++p)
    for (int q = 0; q < s.n; ++q)
      for (int r = 0; r < s.n; ++r)
        for (int t = 0; t < s.n; ++t)
          s.v[((static_cast<std::size_t>(p) * s.n + q) * s.n + r) * s.n + t] = direct(p, q, r, t) - direct(p, q, t, r);
  return s;
}

// Amplitudes in spin-orbital form: t1(a,i), t2(a,b,i,j); a, i count from 0
// within the virtual and occupied spin orbitals.
struct Amps {
  dense::Array t1, t2, t3;  // t3(a,b,c,i,j,k) for CCSDT
};

inline double energy(const System& s, const Amps& t) {
  const int o = s.no, v = s.nv;
  double e = 0;
  for (int i = 0; i < o; ++i)
    for (int j = 0; j < o; ++j)
      for (int a = 0; a < v; ++a)
        for (int b = 0; b < v; ++b)
          e += s.V(i, j, o + a, o + b) * (0.25 * t.t2({a, b, i, j}) + 0.5 * t.t1({a, i}) * t.t1({b, j}));
  return e;
}

// energy() split by the spins of the occupied pair ij: {same, opposite}.
inline std::array<double, 2> pair_energies(const System& s, const Amps& t) {
  const int o = s.no, v = s.nv;
  std::array<double, 2> e{0, 0};
  for (int i = 0; i < o; ++i)
    for (int j = 0; j < o; ++j)
      for (int a = 0; a < v; ++a)
        for (int b = 0; b < v; ++b)
          e[s.spin[i] == s.spin[j] ? 0 : 1] +=
              s.V(i, j, o + a, o + b) * (0.25 * t.t2({a, b, i, j}) + 0.5 * t.t1({a, i}) * t.t1({b, j}));
  return e;
}

void ccsd_rhs(const System& s, const Amps& t, Amps& r);

// The CCSDT right-hand sides (t.t3 and r.t3 used).
void ccsdt_rhs(const System& s, const Amps& t, Amps& r);

// E(T) = 1/36 sum W (W + V) / D over all spin orbitals (Raghavachari et al. 1989).
double triples(const System& s, const Amps& t);

}  // namespace twin
