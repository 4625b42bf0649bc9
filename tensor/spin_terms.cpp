// The expansion of spin-orbital expressions into block terms (spin_terms.hpp).
#include "tensor/spin_terms.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <tuple>

namespace cyclocc::tensor::spin_terms {

// Groups of a symmetry-flag vector, as position lists.
std::vector<std::vector<int>> groups_of(const std::vector<Sym>& sym) {
  std::vector<std::vector<int>> g;
  for (int i = 0; i < static_cast<int>(sym.size()); ++i) {
    if (i == 0 || sym[i - 1] == Sym::NS) g.push_back({});
    g.back().push_back(i);
  }
  return g;
}

// The symmetry flags of block `spins`: indices of one spin-orbital group
// stay antisymmetric where they have the same spin.
std::vector<Sym> block_sym(const std::vector<Sym>& sym, const std::string& spins) {
  std::vector<Sym> s(sym.size(), Sym::NS);
  for (std::size_t i = 0; i + 1 < sym.size(); ++i)
    if (sym[i] == Sym::AS && spins[i] == spins[i + 1]) s[i] = Sym::AS;
  return s;
}

Flip flip_of(const std::string& key, const std::vector<Sym>& sym) {
  Flip f;
  for (const auto& g : groups_of(sym)) {
    std::vector<int> pos = g;
    auto flipped = [&](int p) { return key[p] == 'a' ? 'b' : 'a'; };
    std::stable_sort(pos.begin(), pos.end(), [&](int x, int y) { return flipped(x) < flipped(y); });
    for (std::size_t a = 0; a < pos.size(); ++a)
      for (std::size_t b = a + 1; b < pos.size(); ++b)
        if (pos[a] > pos[b]) f.sign = -f.sign;
    for (int p : pos) {
      f.key += flipped(p);
      f.order += static_cast<char>('a' + p);
    }
  }
  return f;
}

namespace {

using Perm = std::vector<int>;  // position i of the output labels -> position perm[i]

Perm compose(const Perm& a, const Perm& b) {
  Perm c(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) c[i] = a[b[i]];
  return c;
}

// All permutations that stay inside each group, with their parity.
std::vector<std::pair<Perm, int>> group_permutations(const std::vector<std::vector<int>>& groups, int n) {
  Perm id(n);
  std::iota(id.begin(), id.end(), 0);
  std::vector<std::pair<Perm, int>> all{{id, 1}};
  for (const auto& g : groups) {
    if (g.size() < 2) continue;
    std::vector<int> p(g.size());
    std::iota(p.begin(), p.end(), 0);
    std::vector<std::pair<Perm, int>> more;
    do {
      int sign = 1;
      for (std::size_t a = 0; a < p.size(); ++a)
        for (std::size_t b = a + 1; b < p.size(); ++b)
          if (p[a] > p[b]) sign = -sign;
      for (auto [perm, s] : all) {
        for (std::size_t t = 0; t < g.size(); ++t) perm[g[t]] = g[p[t]];
        more.push_back({perm, s * sign});
      }
    } while (std::next_permutation(p.begin(), p.end()));
    all.swap(more);
  }
  return all;
}





// The operand's block for the given per-label spins: labels sorted alpha first
// inside each group (stable), with the sign of the sort. Empty if no block.
std::pair<std::string, std::string> operand_block(const SpinTensor& T, const std::string& labels,
                                                  const std::map<char, char>& spin, int& sign) {
  std::string key, out;
  for (const auto& g : groups_of(T.sym())) {
    std::vector<int> pos = g;
    std::stable_sort(pos.begin(), pos.end(), [&](int x, int y) { return spin.at(labels[x]) < spin.at(labels[y]); });
    for (std::size_t a = 0; a < pos.size(); ++a)
      for (std::size_t b = a + 1; b < pos.size(); ++b)
        if (pos[a] > pos[b]) sign = -sign;
    for (int p : pos) {
      key += spin.at(labels[p]);
      out += labels[p];
    }
  }
  if (!T.has_block(key)) return {"", ""};
  return {key, out};
}

// Renames contracted labels in order of first appearance, so equal terms
// that differ by the names of their summation indices compare equal.
void canonical_names(BlockTerm& t, const std::string& lc) {
  static const std::string pool = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::map<char, char> rename;
  std::size_t next = 0;
  auto fix = [&](std::string& s) {
    for (char& c : s) {
      if (lc.find(c) != std::string::npos) continue;
      if (!rename.count(c)) {
        while (lc.find(pool[next]) != std::string::npos) ++next;
        rename[c] = pool[next++];
      }
      c = rename[c];
    }
  };
  fix(t.la);
  fix(t.lb);
}

std::map<std::string, std::vector<BlockTerm>> expand(const std::vector<Operand>& ops, const SpinTensor& C,
                                                     const std::string& lc) {
  const int n = static_cast<int>(lc.size());
  const auto cgroups = groups_of(C.sym());
  const auto G = group_permutations(cgroups, n);
  // Which operand group each output label comes from.
  std::vector<std::pair<int, int>> cls(n, {-1, -1});
  for (int i = 0; i < n; ++i)
    for (std::size_t o = 0; o < ops.size(); ++o) {
      const auto og = groups_of(ops[o].t->sym());
      for (std::size_t g = 0; g < og.size(); ++g)
        for (int p : og[g])
          if (ops[o].labels[p] == lc[i]) cls[i] = {static_cast<int>(o), static_cast<int>(g)};
    }
  std::vector<Perm> H;
  for (const auto& [p, s] : G) {
    bool keep = true;
    for (int i = 0; i < n; ++i) keep &= cls[p[i]] == cls[i];
    if (keep) H.push_back(p);
  }
  std::string contracted;
  for (const Operand& op : ops)
    for (char c : op.labels)
      if (lc.find(c) == std::string::npos && contracted.find(c) == std::string::npos) contracted += c;

  std::map<std::string, std::vector<BlockTerm>> out;
  for (const std::string& s : C.block_keys()) {
    std::vector<Perm> Gs;
    for (const auto& [p, sg] : G) {
      bool keep = true;
      for (int i = 0; i < n; ++i) keep &= s[p[i]] == s[i];
      if (keep) Gs.push_back(p);
    }
    std::map<Perm, std::pair<Perm, int>> reps;  // double coset key -> (representative, sign)
    for (const auto& [tau, sign] : G) {
      Perm key;
      for (const Perm& g : Gs)
        for (const Perm& h : H) {
          Perm c = compose(g, compose(tau, h));
          if (key.empty() || c < key) key = c;
        }
      reps.emplace(key, std::make_pair(tau, sign));
    }
    std::vector<BlockTerm>& terms = out[s];
    for (const auto& [key, rep] : reps) {
      const auto& [tau, tsign] = rep;
      std::map<char, char> rename;
      for (int i = 0; i < n; ++i) rename[lc[i]] = lc[tau[i]];
      std::vector<std::string> relabelled;
      for (const Operand& op : ops) {
        std::string l = op.labels;
        for (char& c : l)
          if (rename.count(c)) c = rename[c];
        relabelled.push_back(l);
      }
      for (int mask = 0; mask < (1 << contracted.size()); ++mask) {
        std::map<char, char> spin;
        for (int i = 0; i < n; ++i) spin[lc[i]] = s[i];
        for (std::size_t k = 0; k < contracted.size(); ++k) spin[contracted[k]] = (mask >> k) & 1 ? 'b' : 'a';
        BlockTerm t;
        int sign = tsign;
        auto [ka, la] = operand_block(*ops[0].t, relabelled[0], spin, sign);
        if (ka.empty()) continue;
        t.ablock = ka;
        t.la = la;
        if (ops.size() > 1) {
          auto [kb, lb] = operand_block(*ops[1].t, relabelled[1], spin, sign);
          if (kb.empty()) continue;
          t.bblock = kb;
          t.lb = lb;
        }
        t.coef = sign;
        canonical_names(t, lc);
        auto same = std::find_if(terms.begin(), terms.end(), [&](const BlockTerm& u) {
          return u.ablock == t.ablock && u.la == t.la && u.bblock == t.bblock && u.lb == t.lb;
        });
        if (same != terms.end()) same->coef += t.coef;
        else terms.push_back(t);
      }
    }
    terms.erase(std::remove_if(terms.begin(), terms.end(), [](const BlockTerm& t) { return t.coef == 0; }),
                terms.end());
  }
  return out;
}

// In a restricted calculation, an operand block filled from its flipped
// partner is read as that partner instead (relabelled, with the flip's sign):
// nothing is filled, and the contraction reads the data where it is kept. The
// all-alpha block, a sum of mixed ones, is still filled.
// Reads an operand block (with its labels and coefficient) as its flipped
// partner: block(labels) = sign * partner(labels reordered by the flip).
void read_flipped(const SpinTensor& T, std::string& block, std::string& labels, double& coef) {
  const Flip f = flip_of(block, T.sym());
  std::string reordered;
  for (char p : f.order) reordered += labels[p - 'a'];
  block = f.key;
  labels = reordered;
  coef *= f.sign;
}

void read_partner(const SpinTensor& T, std::string& block, std::string& labels, double& coef) {
  if (!T.derived(block) || block == std::string(block.size(), 'a')) return;
  read_flipped(T, block, labels, coef);
}

// The antisymmetric groups (position lists) of block `spins` of T.
std::vector<std::vector<int>> block_groups(const SpinTensor& T, const std::string& spins) {
  std::vector<std::vector<int>> out;
  for (auto& g : groups_of(block_sym(T.sym(), spins)))
    if (g.size() > 1) out.push_back(std::move(g));
  return out;
}

// Every reordering of the labels inside the antisymmetric groups of a
// block, with its sign.
std::vector<std::pair<std::string, int>> reorderings(const std::string& labels,
                                                     const std::vector<std::vector<int>>& groups) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [perm, sign] : group_permutations(groups, static_cast<int>(labels.size()))) {
    std::string r(labels.size(), ' ');
    for (std::size_t i = 0; i < labels.size(); ++i) r[i] = labels[perm[i]];
    out.push_back({r, sign});
  }
  return out;
}

// The term with the labels inside every antisymmetric group of its operand
// blocks in one canonical order (the smallest after canonical_names), with
// the sign of that reordering: products that differ only there are the same
// product and now compare equal.
void canonical_order(BlockTerm& t, const SpinTensor& A, const SpinTensor* B, const std::string& lc) {
  const auto as = reorderings(t.la, block_groups(A, t.ablock));
  const auto bs = B ? reorderings(t.lb, block_groups(*B, t.bblock)) : std::vector<std::pair<std::string, int>>{{t.lb, 1}};
  BlockTerm best;
  bool first = true;
  for (const auto& [la, sa] : as)
    for (const auto& [lb, sb] : bs) {
      BlockTerm u = t;
      u.la = la;
      u.lb = lb;
      u.coef = t.coef * sa * sb;
      canonical_names(u, lc);
      if (first || std::tie(u.la, u.lb) < std::tie(best.la, best.lb)) best = u;
      first = false;
    }
  t = best;
}

// The terms of one output block with every derived operand block read
// through its partner; terms that become equal are added.
std::vector<BlockTerm> through_partners(const std::vector<BlockTerm>& terms, const SpinTensor& A,
                                        const SpinTensor* B, const std::string& lc) {
  std::vector<BlockTerm> out;
  for (BlockTerm t : terms) {
    read_partner(A, t.ablock, t.la, t.coef);
    if (B) read_partner(*B, t.bblock, t.lb, t.coef);
    canonical_order(t, A, B, lc);
    auto same = std::find_if(out.begin(), out.end(), [&](const BlockTerm& u) {
      return u.ablock == t.ablock && u.la == t.la && u.bblock == t.bblock && u.lb == t.lb;
    });
    if (same != out.end()) same->coef += t.coef;
    else out.push_back(t);
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const BlockTerm& t) { return t.coef == 0; }), out.end());
  return out;
}

std::string structure_key(const SpinTensor& T, const std::string& l) {
  std::string k = l + ":" + T.spaces() + ":";
  for (Sym s : T.sym()) k += static_cast<char>('0' + static_cast<int>(s));
  return k;
}

// The term that gives the output element at the flipped-and-reordered
// position of a self-partner output block (restricted): t with the output
// labels renamed by the block's own flip (Z(lc) = sign * Z(lc')), every
// operand block flipped back to spins that match, then read as stored.
BlockTerm mirror_of(const BlockTerm& t, const SpinTensor& A, const SpinTensor* B, const std::string& lc,
                    const Flip& self) {
  std::map<char, char> rename;
  for (std::size_t i = 0; i < lc.size(); ++i) rename[lc[i]] = lc[self.order[i] - 'a'];
  auto flipped = [&](const SpinTensor& T, std::string& block, std::string& labels, double& coef) {
    for (char& c : labels)
      if (rename.count(c)) c = rename[c];
    read_flipped(T, block, labels, coef);
    read_partner(T, block, labels, coef);
  };
  BlockTerm u = t;
  u.coef *= self.sign;
  flipped(A, u.ablock, u.la, u.coef);
  if (B) flipped(*B, u.bblock, u.lb, u.coef);
  canonical_order(u, A, B, lc);
  return u;
}



BlockPlan plan_block(std::vector<BlockTerm> terms, const SpinTensor& C, const std::string& cblock,
                     const SpinTensor& A, const SpinTensor* B, const std::string& lc) {
  BlockPlan plan;
  const Flip self = flip_of(cblock, C.sym());
  std::string identity;
  for (std::size_t p = 0; p < lc.size(); ++p) identity += static_cast<char>('a' + p);
  // Pairs pay off for contractions over at least one label only: a sum's
  // terms, or an outer product's, cost no more than adding the half twice.
  bool contracted = false;
  if (B)
    for (char c : terms.empty() ? std::string() : terms.front().la) contracted |= lc.find(c) == std::string::npos;
  if (!contracted || !C.dims().restricted || self.key != cblock || self.order == identity) {
    plan.direct = std::move(terms);
    return plan;
  }
  std::vector<bool> taken(terms.size(), false);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (taken[i]) continue;
    taken[i] = true;
    const BlockTerm u = mirror_of(terms[i], A, B, lc, self);
    auto same = [&](const BlockTerm& v) {
      return v.ablock == u.ablock && v.la == u.la && v.bblock == u.bblock && v.lb == u.lb;
    };
    std::size_t j = i + 1;
    while (j < terms.size() && (taken[j] || !same(terms[j]))) ++j;
    if (j < terms.size() && terms[j].coef == u.coef) {
      taken[j] = true;
      plan.halves.push_back(terms[i]);
    } else {
      plan.direct.push_back(terms[i]);  // its own mirror image
    }
  }
  return plan;
}

}  // namespace

const SpinExpansion& cached_expansion(const std::vector<Operand>& ops, const SpinTensor& C, const std::string& lc) {
  // Which blocks are derived depends on the structure and on `restricted`.
  std::string key = "spin|" + structure_key(C, lc) + (C.dims().restricted ? "R" : "U");
  for (const Operand& op : ops) key += "|" + structure_key(*op.t, op.labels) + (op.t->dims().restricted ? "R" : "U");
  auto& cache = C.ctx().extensions();
  auto it = cache.find(key);
  if (it == cache.end()) {
    auto e = std::make_shared<SpinExpansion>();
    const SpinTensor* B = ops.size() > 1 ? ops[1].t : nullptr;
    for (const auto& [cblock, terms] : expand(ops, C, lc))
      if (!C.derived(cblock))
        e->blocks[cblock] = plan_block(through_partners(terms, *ops[0].t, B, lc), C, cblock, *ops[0].t, B, lc);
    it = cache.emplace(key, e).first;
  }
  return *std::static_pointer_cast<const SpinExpansion>(it->second);
}

}  // namespace cyclocc::tensor::spin_terms
