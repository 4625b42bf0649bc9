// The CCSD equations of J. F. Stanton, J. Gauss, J. D. Watts and
// R. J. Bartlett, J. Chem. Phys. 94, 4334 (1991), transcribed loop by loop.
// Canonical orbitals: the Fock matrix is diagonal and its diagonal is in D.
#include "tests/cc/so_twin.hpp"

namespace twin {

void ccsd_rhs(const System& s, const Amps& t, Amps& r) {
  const int o = s.no, v = s.nv;
  auto V = [&](int p, int q, int x, int y) { return s.V(p, q, x, y); };
  auto O = [&](int i) { return i; };      // occupied spin orbital
  auto U = [&](int a) { return o + a; };  // virtual spin orbital
  auto t1 = [&](int a, int i) { return t.t1({a, i}); };
  auto t2 = [&](int a, int b, int i, int j) { return t.t2({a, b, i, j}); };
  auto taut = [&](int a, int b, int i, int j) {
    return t2(a, b, i, j) + 0.5 * (t1(a, i) * t1(b, j) - t1(a, j) * t1(b, i));
  };
  auto tau = [&](int a, int b, int i, int j) { return t2(a, b, i, j) + t1(a, i) * t1(b, j) - t1(a, j) * t1(b, i); };

  dense::Array Fae({v, v}), Fmi({o, o}), Fme({o, v}), Wmnij({o, o, o, o}), Wabef({v, v, v, v}), Wmbej({o, v, v, o});
  for (int a = 0; a < v; ++a)
    for (int e = 0; e < v; ++e) {
      double x = 0;
      for (int m = 0; m < o; ++m)
        for (int f = 0; f < v; ++f) x += t1(f, m) * V(O(m), U(a), U(f), U(e));
      for (int m = 0; m < o; ++m)
        for (int n = 0; n < o; ++n)
          for (int f = 0; f < v; ++f) x -= 0.5 * taut(a, f, m, n) * V(O(m), O(n), U(e), U(f));
      Fae({a, e}) = x;
    }
  for (int m = 0; m < o; ++m)
    for (int i = 0; i < o; ++i) {
      double x = 0;
      for (int n = 0; n < o; ++n)
        for (int e = 0; e < v; ++e) x += t1(e, n) * V(O(m), O(n), O(i), U(e));
      for (int n = 0; n < o; ++n)
        for (int e = 0; e < v; ++e)
          for (int f = 0; f < v; ++f) x += 0.5 * taut(e, f, i, n) * V(O(m), O(n), U(e), U(f));
      Fmi({m, i}) = x;
    }
  for (int m = 0; m < o; ++m)
    for (int e = 0; e < v; ++e) {
      double x = 0;
      for (int n = 0; n < o; ++n)
        for (int f = 0; f < v; ++f) x += t1(f, n) * V(O(m), O(n), U(e), U(f));
      Fme({m, e}) = x;
    }
  for (int m = 0; m < o; ++m)
    for (int n = 0; n < o; ++n)
      for (int i = 0; i < o; ++i)
        for (int j = 0; j < o; ++j) {
          double x = V(O(m), O(n), O(i), O(j));
          for (int e = 0; e < v; ++e) x += t1(e, j) * V(O(m), O(n), O(i), U(e)) - t1(e, i) * V(O(m), O(n), O(j), U(e));
          for (int e = 0; e < v; ++e)
            for (int f = 0; f < v; ++f) x += 0.25 * tau(e, f, i, j) * V(O(m), O(n), U(e), U(f));
          Wmnij({m, n, i, j}) = x;
        }
  for (int a = 0; a < v; ++a)
    for (int b = 0; b < v; ++b)
      for (int e = 0; e < v; ++e)
        for (int f = 0; f < v; ++f) {
          double x = V(U(a), U(b), U(e), U(f));
          for (int m = 0; m < o; ++m) x -= t1(b, m) * V(U(a), O(m), U(e), U(f)) - t1(a, m) * V(U(b), O(m), U(e), U(f));
          for (int m = 0; m < o; ++m)
            for (int n = 0; n < o; ++n) x += 0.25 * tau(a, b, m, n) * V(O(m), O(n), U(e), U(f));
          Wabef({a, b, e, f}) = x;
        }
  for (int m = 0; m < o; ++m)
    for (int b = 0; b < v; ++b)
      for (int e = 0; e < v; ++e)
        for (int j = 0; j < o; ++j) {
          double x = V(O(m), U(b), U(e), O(j));
          for (int f = 0; f < v; ++f) x += t1(f, j) * V(O(m), U(b), U(e), U(f));
          for (int n = 0; n < o; ++n) x -= t1(b, n) * V(O(m), O(n), U(e), O(j));
          for (int n = 0; n < o; ++n)
            for (int f = 0; f < v; ++f)
              x -= (0.5 * t2(f, b, j, n) + t1(f, j) * t1(b, n)) * V(O(m), O(n), U(e), U(f));
          Wmbej({m, b, e, j}) = x;
        }

  for (int a = 0; a < v; ++a)
    for (int i = 0; i < o; ++i) {
      double x = 0;
      for (int e = 0; e < v; ++e) x += t1(e, i) * Fae({a, e});
      for (int m = 0; m < o; ++m) x -= t1(a, m) * Fmi({m, i});
      for (int m = 0; m < o; ++m)
        for (int e = 0; e < v; ++e) x += t2(a, e, i, m) * Fme({m, e});
      for (int n = 0; n < o; ++n)
        for (int f = 0; f < v; ++f) x -= t1(f, n) * V(O(n), U(a), O(i), U(f));
      for (int m = 0; m < o; ++m)
        for (int e = 0; e < v; ++e)
          for (int f = 0; f < v; ++f) x -= 0.5 * t2(e, f, i, m) * V(O(m), U(a), U(e), U(f));
      for (int m = 0; m < o; ++m)
        for (int e = 0; e < v; ++e)
          for (int n = 0; n < o; ++n) x -= 0.5 * t2(a, e, m, n) * V(O(n), O(m), U(e), O(i));
      r.t1({a, i}) = x;
    }

  // The T2 equation before P(ij) P(ab): X(a,b,i,j) collects the terms that
  // carry both permutations, Xa the ones with P(ab) only, Xi with P(ij) only.
  dense::Array Xab({v, v, o, o}), Xij({v, v, o, o}), Xboth({v, v, o, o});
  for (int a = 0; a < v; ++a)
    for (int b = 0; b < v; ++b)
      for (int i = 0; i < o; ++i)
        for (int j = 0; j < o; ++j) {
          double x = 0;
          for (int e = 0; e < v; ++e) {
            double f = Fae({b, e});
            for (int m = 0; m < o; ++m) f -= 0.5 * t1(b, m) * Fme({m, e});
            x += t2(a, e, i, j) * f;
          }
          for (int m = 0; m < o; ++m) x -= t1(a, m) * V(O(m), U(b), O(i), O(j));
          Xab({a, b, i, j}) = x;
          double y = 0;
          for (int m = 0; m < o; ++m) {
            double f = Fmi({m, j});
            for (int e = 0; e < v; ++e) f += 0.5 * t1(e, j) * Fme({m, e});
            y -= t2(a, b, i, m) * f;
          }
          for (int e = 0; e < v; ++e) y += t1(e, i) * V(U(a), U(b), U(e), O(j));
          Xij({a, b, i, j}) = y;
          double z = 0;
          for (int m = 0; m < o; ++m)
            for (int e = 0; e < v; ++e)
              z += t2(a, e, i, m) * Wmbej({m, b, e, j}) - t1(e, i) * t1(a, m) * V(O(m), U(b), U(e), O(j));
          Xboth({a, b, i, j}) = z;
        }
  for (int a = 0; a < v; ++a)
    for (int b = 0; b < v; ++b)
      for (int i = 0; i < o; ++i)
        for (int j = 0; j < o; ++j) {
          double x = V(O(i), O(j), U(a), U(b));
          x += Xab({a, b, i, j}) - Xab({b, a, i, j});
          x += Xij({a, b, i, j}) - Xij({a, b, j, i});
          x += Xboth({a, b, i, j}) - Xboth({b, a, i, j}) - Xboth({a, b, j, i}) + Xboth({b, a, j, i});
          for (int m = 0; m < o; ++m)
            for (int n = 0; n < o; ++n) x += 0.5 * tau(a, b, m, n) * Wmnij({m, n, i, j});
          for (int e = 0; e < v; ++e)
            for (int f = 0; f < v; ++f) x += 0.5 * tau(e, f, i, j) * Wabef({a, b, e, f});
          r.t2({a, b, i, j}) = x;
        }
}

double triples(const System& s, const Amps& t) {
  const int o = s.no, v = s.nv;
  auto V = [&](int p, int q, int x, int y) { return s.V(p, q, x, y); };
  auto X = [&](int a, int b, int c, int i, int j, int k) {  // before P(i/jk) P(a/bc)
    double x = 0;
    for (int e = 0; e < v; ++e) x += t.t2({a, e, j, k}) * V(o + e, i, o + b, o + c);
    for (int m = 0; m < o; ++m) x -= t.t2({b, c, i, m}) * V(m, o + a, j, k);
    return x;
  };
  auto Y = [&](int a, int b, int c, int i, int j, int k) { return t.t1({a, i}) * V(j, k, o + b, o + c); };
  // P(i/jk) P(a/bc) f = sum over the 3 x 3 leading-index choices with signs.
  auto P = [&](const auto& f, int a, int b, int c, int i, int j, int k) {
    const int A[3][3] = {{a, b, c}, {b, a, c}, {c, b, a}};
    const int I[3][3] = {{i, j, k}, {j, i, k}, {k, j, i}};
    double x = 0;
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q)
        x += (p ? -1 : 1) * (q ? -1 : 1) * f(A[p][0], A[p][1], A[p][2], I[q][0], I[q][1], I[q][2]);
    return x;
  };
  double e = 0;
  for (int i = 0; i < o; ++i)
    for (int j = 0; j < o; ++j)
      for (int k = 0; k < o; ++k)
        for (int a = 0; a < v; ++a)
          for (int b = 0; b < v; ++b)
            for (int c = 0; c < v; ++c) {
              const double w = P(X, a, b, c, i, j, k);
              const double y = P(Y, a, b, c, i, j, k);
              const double d = s.eps[i] + s.eps[j] + s.eps[k] - s.eps[o + a] - s.eps[o + b] - s.eps[o + c];
              e += w * (w + y) / d;
            }
  return e / 36.0;
}

}  // namespace twin
