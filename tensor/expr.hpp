// Index-string expressions, close to the algebra:
//
//   Z["abij"] += 0.5 * V["abef"] * T["efij"];   // contraction
//   Z["abij"] -= W["baji"];                      // summation with permutation
//   E[""] = 0.25 * V["ijab"] * T["abij"];        // into an order-0 tensor
//
// `=` overwrites, `+=` adds, `-=` subtracts. The same templates serve plain
// tensors (contract.hpp) and spin-orbital tensors (spin.hpp): each provides
// free functions contract(alpha, A, la, B, lb, beta, C, lc) and
// sum(alpha, A, la, beta, B, lb), found by argument-dependent lookup.
#pragma once

#include <string>

namespace cyclocc::tensor {

template <class T>
struct Scaled {
  double alpha = 1.0;
  const T* t = nullptr;
  std::string labels;
};

template <class T>
struct Product {
  double alpha = 1.0;
  Scaled<T> a, b;
};

template <class T>
class IndexedT {
 public:
  IndexedT(T* t, std::string labels) : t_(t), labels_(std::move(labels)) {}

  void operator=(const Product<T>& p) { apply(p, 0.0, 1.0); }
  void operator+=(const Product<T>& p) { apply(p, 1.0, 1.0); }
  void operator-=(const Product<T>& p) { apply(p, 1.0, -1.0); }
  void operator=(const Scaled<T>& s) { apply(s, 0.0, 1.0); }
  void operator+=(const Scaled<T>& s) { apply(s, 1.0, 1.0); }
  void operator-=(const Scaled<T>& s) { apply(s, 1.0, -1.0); }
  void operator=(const IndexedT& x) { apply(x.scaled(), 0.0, 1.0); }
  void operator+=(const IndexedT& x) { apply(x.scaled(), 1.0, 1.0); }
  void operator-=(const IndexedT& x) { apply(x.scaled(), 1.0, -1.0); }

  Scaled<T> scaled() const { return Scaled<T>{1.0, t_, labels_}; }

 private:
  void apply(const Product<T>& p, double beta, double sign) {
    contract(sign * p.alpha * p.a.alpha * p.b.alpha, *p.a.t, p.a.labels, *p.b.t, p.b.labels, beta, *t_, labels_);
  }
  void apply(const Scaled<T>& s, double beta, double sign) { sum(sign * s.alpha, *s.t, s.labels, beta, *t_, labels_); }

  T* t_;
  std::string labels_;
};

template <class T>
Scaled<T> operator*(double alpha, const IndexedT<T>& x) {
  Scaled<T> s = x.scaled();
  s.alpha = alpha;
  return s;
}
template <class T>
Scaled<T> operator*(const IndexedT<T>& x, double alpha) {
  return alpha * x;
}
template <class T>
Scaled<T> operator-(const IndexedT<T>& x) {
  return -1.0 * x;
}
template <class T>
Product<T> operator*(const Scaled<T>& a, const IndexedT<T>& b) {
  return Product<T>{1.0, a, b.scaled()};
}
template <class T>
Product<T> operator*(const IndexedT<T>& a, const IndexedT<T>& b) {
  return Product<T>{1.0, a.scaled(), b.scaled()};
}
template <class T>
Product<T> operator*(const IndexedT<T>& a, const Scaled<T>& b) {
  return Product<T>{1.0, a.scaled(), b};
}
template <class T>
Product<T> operator*(double alpha, const Product<T>& p) {
  Product<T> q = p;
  q.alpha *= alpha;
  return q;
}
template <class T>
Product<T> operator-(const Product<T>& p) {
  return -1.0 * p;
}

}  // namespace cyclocc::tensor
