// Slow, obviously-right twins for the tensor layer: dense arrays and loops.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "tensor/shape.hpp"
#include "tensor/tensor.hpp"

namespace dense {

using cyclocc::tensor::Shape;
using cyclocc::tensor::Sym;

// A shape from edge lengths and one flag per index: "ANN" -> {AS, NS, NS}
// (S for SY).
inline Shape mk(std::vector<int> lens, const std::string& syms) {
  std::vector<Sym> s;
  for (char c : syms) s.push_back(c == 'A' ? Sym::AS : c == 'S' ? Sym::SY : Sym::NS);
  return Shape(std::move(lens), std::move(s));
}

struct Array {
  std::vector<int> lens;
  std::vector<double> v;
  Array() = default;
  explicit Array(std::vector<int> l) : lens(std::move(l)) {
    std::size_t n = 1;
    for (int x : lens) n *= static_cast<std::size_t>(x);
    v.assign(n, 0.0);
  }
  std::size_t index(const std::vector<int>& x) const {
    std::size_t k = 0;
    for (std::size_t i = 0; i < lens.size(); ++i) k = k * lens[i] + x[i];
    return k;
  }
  double& operator()(const std::vector<int>& x) { return v[index(x)]; }
  double operator()(const std::vector<int>& x) const { return v[index(x)]; }
};

// Calls f(x) for every index tuple of the given edge lengths.
inline void for_all(const std::vector<int>& lens, const std::function<void(const std::vector<int>&)>& f) {
  for (int l : lens)
    if (l == 0) return;
  std::vector<int> x(lens.size(), 0);
  while (true) {
    f(x);
    int i = static_cast<int>(lens.size()) - 1;
    for (; i >= 0; --i) {
      if (++x[i] < lens[i]) break;
      x[i] = 0;
    }
    if (i < 0) return;
  }
}

// The full (unpacked) array of a packed canonical vector.
inline Array unpack(const Shape& s, const std::vector<double>& packed) {
  Array a(s.lens);
  for_all(s.lens, [&](const std::vector<int>& x) {
    std::vector<int> y = x;
    const int sign = cyclocc::tensor::canonicalize(s, y.data());
    if (sign != 0) a(x) = sign * packed[cyclocc::tensor::packed_index(s, y.data())];
  });
  return a;
}

inline Array to_dense(const cyclocc::tensor::Tensor& t) { return unpack(t.shape(), t.gather_all()); }

// Dense contraction over labels: X[lc] = alpha * sum A[la] B[lb] (no symmetrisation).
inline Array product(double alpha, const Array& A, const std::string& la, const Array& B, const std::string& lb,
                     const std::vector<int>& clens, const std::string& lc) {
  std::map<char, int> len;
  for (std::size_t i = 0; i < la.size(); ++i) len[la[i]] = A.lens[i];
  for (std::size_t i = 0; i < lb.size(); ++i) len[lb[i]] = B.lens[i];
  std::string all;
  std::vector<int> alllens;
  for (auto& [c, n] : len) {
    all += c;
    alllens.push_back(n);
  }
  Array X(clens);
  auto pick = [&](const std::vector<int>& x, const std::string& l) {
    std::vector<int> y;
    for (char c : l) y.push_back(x[all.find(c)]);
    return y;
  };
  for_all(alllens, [&](const std::vector<int>& x) { X(pick(x, lc)) += alpha * A(pick(x, la)) * B(pick(x, lb)); });
  return X;
}

// Permutations of the positions of each symmetric group of s (product over groups).
inline std::vector<std::pair<std::vector<int>, int>> group_perms(const Shape& s) {
  std::vector<std::pair<std::vector<int>, int>> out{{std::vector<int>(s.order()), 1}};
  std::iota(out[0].first.begin(), out[0].first.end(), 0);
  for (const auto& g : s.groups()) {
    if (g.size == 1) continue;
    std::vector<std::pair<std::vector<int>, int>> more;
    std::vector<int> p(g.size);
    std::iota(p.begin(), p.end(), 0);
    do {
      int sign = 1;
      for (int a = 0; a < g.size; ++a)
        for (int b = a + 1; b < g.size; ++b)
          if (p[a] > p[b]) sign = -sign;
      if (g.sym == Sym::SY) sign = 1;
      for (auto [perm, s0] : out) {
        for (int t = 0; t < g.size; ++t) perm[g.first + t] = out[0].first[g.first + p[t]];
        more.push_back({perm, s0 * sign});
      }
    } while (std::next_permutation(p.begin(), p.end()));
    out.swap(more);
  }
  return out;
}

inline Array permute(const Array& X, const std::vector<int>& perm) {
  Array Y(X.lens);
  for_all(X.lens, [&](const std::vector<int>& x) {
    std::vector<int> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[perm[i]];
    Y(x) = X(y);
  });
  return Y;
}

// For each index of the output: which operand group it comes from (the
// operand's number and the group's first position). Permutations that keep
// every index inside its class are symmetries the product already has.
inline std::vector<std::pair<int, int>> output_classes(const std::string& lc,
                                                       const std::vector<std::pair<Shape, std::string>>& ops) {
  std::vector<std::pair<int, int>> cls(lc.size(), {-1, -1});
  for (std::size_t i = 0; i < lc.size(); ++i)
    for (std::size_t o = 0; o < ops.size(); ++o)
      for (const auto& g : ops[o].first.groups())
        for (int t = 0; t < g.size; ++t)
          if (ops[o].second[g.first + t] == lc[i] && g.sym != Sym::NS) cls[i] = {static_cast<int>(o), g.first};
          else if (ops[o].second[g.first + t] == lc[i]) cls[i] = {static_cast<int>(o), 1000 + g.first + t};
  return cls;
}

// The DESIGN.md §8 rule for a declared output symmetry: add every permutation
// of C's groups that the product does not already have (by the structure of
// its operands: `cls` from output_classes), with sign, no 1/n!:
// result = (1/|H|) sum_{pi in G} sign(pi) pi X, H = the class-preserving pi.
inline Array symmetrize(const Shape& cshape, const Array& X, const std::vector<std::pair<int, int>>& cls) {
  const auto perms = group_perms(cshape);
  double h = 0;
  Array S(X.lens);
  for (const auto& [perm, sign] : perms) {
    bool in_h = true;
    for (std::size_t i = 0; i < perm.size(); ++i) in_h &= cls[perm[i]] == cls[i];
    if (in_h) h += 1;
    const Array Y = permute(X, perm);
    for (std::size_t i = 0; i < Y.v.size(); ++i) S.v[i] += sign * Y.v[i];
  }
  for (double& v : S.v) v /= h;
  return S;
}

// Largest difference at the packed positions of `s`, relative to the largest reference value.
inline double packed_error(const Shape& s, const Array& ref, const Array& got) {
  double err = 0, big = 1e-300;
  for_all(s.lens, [&](const std::vector<int>& x) {
    if (!cyclocc::tensor::is_packed(s, x.data())) return;
    err = std::max(err, std::abs(ref(x) - got(x)));
    big = std::max(big, std::abs(ref(x)));
  });
  return err / std::max(big, 1.0);
}

}  // namespace dense
