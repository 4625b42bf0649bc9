// Dense spin-orbital twins of spin-integrated tensors (slow, for tests).
#pragma once

#include "tensor/spin.hpp"
#include "tests/tensor/dense.hpp"

namespace dense {

using cyclocc::tensor::SpinDims;
using cyclocc::tensor::SpinTensor;

inline int so_len(const SpinDims& d, char space) { return d.len(space, 'a') + d.len(space, 'b'); }

inline std::vector<int> so_lens(const SpinTensor& t) {
  std::vector<int> l;
  for (char s : t.spaces()) l.push_back(so_len(t.dims(), s));
  return l;
}

// The spin-orbital shape: the same antisymmetric groups over spin orbitals.
inline Shape so_shape(const SpinTensor& t) { return Shape(so_lens(t), t.sym()); }

// Spin orbital p of a space: alpha orbitals first, then beta.
inline Array to_spin_orbital(const SpinTensor& t) {
  std::map<std::string, Array> blocks;
  for (const auto& k : t.block_keys()) blocks.emplace(k, to_dense(t.block(k)));
  Array so(so_lens(t));
  const auto groups = t.block(t.block_keys().front()).shape().groups();  // only for order; use t.sym below
  (void)groups;
  for_all(so.lens, [&](const std::vector<int>& x) {
    const int n = static_cast<int>(x.size());
    std::string spin(n, 'a');
    std::vector<int> orb(n);
    for (int i = 0; i < n; ++i) {
      const int na = t.dims().len(t.spaces()[i], 'a');
      spin[i] = x[i] < na ? 'a' : 'b';
      orb[i] = x[i] < na ? x[i] : x[i] - na;
    }
    // Stable sort inside each antisymmetric group: alpha first, with sign.
    std::vector<int> pos(n);
    std::iota(pos.begin(), pos.end(), 0);
    int sign = 1;
    for (int s = 0; s < n;) {
      int e = s;
      while (e + 1 < n && t.sym()[e] != Sym::NS) ++e;
      std::stable_sort(pos.begin() + s, pos.begin() + e + 1, [&](int a, int b) { return spin[a] < spin[b]; });
      for (int a = s; a <= e; ++a)
        for (int b = a + 1; b <= e; ++b)
          if (pos[a] > pos[b]) sign = -sign;
      s = e + 1;
    }
    std::string key;
    std::vector<int> y;
    for (int p : pos) {
      key += spin[p];
      y.push_back(orb[p]);
    }
    auto it = blocks.find(key);
    if (it != blocks.end()) so(x) = sign * it->second(y);
  });
  return so;
}


// A random closed-shell (spin-free) three-body quantity: random blocks are
// not (flip symmetry alone does not make the all-alpha block the sum of the
// mixed ones for six indices), so build it as P(a/bc) P(k/ij) of spin-free
// two-body pieces.
inline void closed_shell_triples(SpinTensor& t, std::uint64_t& seed) {
  const SpinDims& d = t.dims();
  SpinTensor w(t.ctx(), d, "vvvo", {Sym::AS, Sym::NS, Sym::NS, Sym::NS}, "w"), u(t.ctx(), d, "ovoo", {Sym::NS, Sym::NS, Sym::AS, Sym::NS}, "u"),
      x(t.ctx(), d, "vvoo", {Sym::AS, Sym::NS, Sym::AS, Sym::NS}, "x");
  for (SpinTensor* p : {&w, &u, &x}) {
    for (const auto& k : p->block_keys()) p->block(k).fill_random(seed++);
    p->flip_symmetrize();
  }
  cyclocc::tensor::contract(1.0, w, "bcek", x, "aeij", 0.0, t, "abcijk");
  cyclocc::tensor::contract(1.0, u, "mcjk", x, "abim", 1.0, t, "abcijk");
}

}  // namespace dense
