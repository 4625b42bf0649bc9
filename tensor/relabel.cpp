#include "tensor/relabel.hpp"

#include "tensor/remap.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

namespace cyclocc::tensor {

namespace {

// A block: consecutive components of X and of Y that cover the same positions.
struct Block {
  int first = 0, last = 0;
  std::vector<int> xcomps, ycomps;
};

std::vector<Block> blocks_of(const Layout& X, const Layout& Y) {
  std::vector<Block> out;
  const auto& xc = X.comps();
  const auto& yc = Y.comps();
  std::size_t cx = 0, cy = 0;
  while (cx < xc.size() && cy < yc.size()) {
    Block b;
    b.first = xc[cx].first;
    if (yc[cy].first != b.first) throw std::logic_error("relabel: components out of step");
    int xend = xc[cx].last, yend = yc[cy].last;
    b.xcomps.push_back(static_cast<int>(cx++));
    b.ycomps.push_back(static_cast<int>(cy++));
    while (xend != yend) {
      if (xend < yend) {
        b.xcomps.push_back(static_cast<int>(cx));
        xend = xc[cx++].last;
      } else {
        b.ycomps.push_back(static_cast<int>(cy));
        yend = yc[cy++].last;
      }
    }
    b.last = xend;
    out.push_back(b);
  }
  return out;
}

std::vector<Group> groups_in(const Shape& s, const Block& b) {
  std::vector<Group> out;
  for (const Group& g : s.groups())
    if (g.first >= b.first && g.first < b.last) out.push_back(g);
  return out;
}

int parity(const std::vector<int>& p, int first, int size) {
  int s = 1;
  for (int a = 0; a < size; ++a)
    for (int c = a + 1; c < size; ++c)
      if (p[first + a] > p[first + c]) s = -s;
  return s;
}

// Permutations pi inside Y's groups (block position j takes the Y value at
// pi[j]), one per coset of X's symmetry, with their sign under Y's
// antisymmetric groups.
struct Coset {
  std::vector<int> pi;
  int sign = 1;
};

std::vector<Coset> cosets(const Shape& ys, const Shape& xs, const std::vector<int>& q, const Block& b) {
  const int w = b.last - b.first;
  const auto ygroups = groups_in(ys, b);
  const auto xgroups = groups_in(xs, b);
  std::vector<int> xgroup_of(w);
  for (std::size_t k = 0; k < xgroups.size(); ++k)
    for (int t = 0; t < xgroups[k].size; ++t) xgroup_of[xgroups[k].first + t - b.first] = static_cast<int>(k);
  std::vector<int> pi(w);
  std::iota(pi.begin(), pi.end(), 0);
  std::map<std::vector<std::vector<int>>, Coset> found;
  // Odometer over the permutations of every Y group (std::next_permutation per group).
  while (true) {
    std::vector<std::vector<int>> key(xgroups.size());
    for (int j = 0; j < w; ++j) key[xgroup_of[q[b.first + j] - b.first]].push_back(pi[j]);
    for (auto& k : key) std::sort(k.begin(), k.end());
    if (!found.count(key)) {
      int sign = 1;
      for (const Group& g : ygroups)
        if (g.sym == Sym::AS) sign *= parity(pi, g.first - b.first, g.size);
      found[key] = Coset{pi, sign};
    }
    int k = static_cast<int>(ygroups.size()) - 1;
    for (; k >= 0; --k) {
      auto first = pi.begin() + (ygroups[k].first - b.first);
      if (ygroups[k].sym != Sym::NS && std::next_permutation(first, first + ygroups[k].size)) break;
      std::sort(first, first + ygroups[k].size);
    }
    if (k < 0) break;
  }
  std::vector<Coset> out;
  for (auto& kv : found) out.push_back(kv.second);
  return out;
}

// Sorts x inside each group (absolute positions); returns the sign of the sort
// for antisymmetric groups, or 0 if one repeats a value.
int sort_groups(const std::vector<Group>& groups, int* x) {
  int sign = 1;
  for (const Group& g : groups) {
    if (g.size == 1) continue;
    int s = 1;
    for (int a = g.first + 1; a < g.first + g.size; ++a)
      for (int c = a; c > g.first && x[c - 1] > x[c]; --c) {
        std::swap(x[c - 1], x[c]);
        s = -s;
      }
    if (g.sym == Sym::AS) {
      for (int a = g.first + 1; a < g.first + g.size; ++a)
        if (x[a] == x[a - 1]) return 0;
      sign *= s;
    }
  }
  return sign;
}

// For every combination of local tuples of the block's Y components (row-major):
// the Y offset part and the (X offset part, coefficient) terms.
struct BlockTerms {
  std::vector<std::int64_t> yoff;
  std::vector<std::int32_t> start;  // terms of combination i: [start[i], start[i+1])
  std::vector<std::int64_t> xoff;
  std::vector<double> coef;
};

// Where X's and Y's elements sit: the layouts' own strides, or offset parts
// into another storage (a remap fused into the relabel).
struct Offsets {
  const OffsetParts* x = nullptr;
  const OffsetParts* y = nullptr;
};

BlockTerms block_terms(const Layout& X, const Layout& Y, const std::vector<int>& q, const Block& b, const Offsets& at) {
  BlockTerms bt;
  const auto cos = cosets(Y.shape(), X.shape(), q, b);
  const Shape& xs = X.shape();
  const int w = b.last - b.first;
  const int ny = static_cast<int>(b.ycomps.size());
  std::vector<std::int64_t> u(ny, 0);
  for (int c : b.ycomps)
    if (Y.extent()[c] == 0) {
      bt.start.push_back(0);
      return bt;
    }
  const auto xgroups = groups_in(xs, b);
  int y[kMaxOrder], x[kMaxOrder], full[kMaxOrder] = {0};
  while (true) {
    std::int64_t yo = 0;
    for (int k = 0; k < ny; ++k) {
      const Component& comp = Y.comps()[b.ycomps[k]];
      const int* t = comp.table->tuple(Y.local_ids(b.ycomps[k])[u[k]]);
      std::copy(t, t + (comp.last - comp.first), y + comp.first - b.first);
      yo += at.y ? (*at.y)[b.ycomps[k]][u[k]] : u[k] * Y.stride()[b.ycomps[k]];
    }
    bt.yoff.push_back(yo);
    bt.start.push_back(static_cast<std::int32_t>(bt.xoff.size()));
    for (const Coset& c : cos) {
      for (int j = 0; j < w; ++j) x[q[b.first + j] - b.first] = y[c.pi[j]];
      std::copy(x, x + w, full + b.first);
      const int s = sort_groups(xgroups, full);
      if (s == 0) continue;
      std::int64_t xo = 0;
      for (int cx : b.xcomps) {
        const Component& comp = X.comps()[cx];
        const std::int64_t id = comp.table->id(full + comp.first);
        if (comp.table->residue[id] != X.cls(cx, X.rank())) throw std::logic_error("relabel: element on another rank");
        xo += at.x ? (*at.x)[cx][comp.table->pos[id]] : comp.table->pos[id] * X.stride()[cx];
      }
      bt.xoff.push_back(xo);
      bt.coef.push_back(static_cast<double>(s * c.sign));
    }
    int k = ny - 1;
    for (; k >= 0; --k) {
      if (++u[k] < Y.extent()[b.ycomps[k]]) break;
      u[k] = 0;
    }
    if (k < 0) break;
  }
  bt.start.push_back(static_cast<std::int32_t>(bt.xoff.size()));
  return bt;
}

// Two consecutive blocks as one: every pair of their combinations, with the
// products of their terms.
BlockTerms merged(const BlockTerms& a, const BlockTerms& b) {
  BlockTerms m;
  for (std::size_t i = 0; i + 1 < a.start.size(); ++i)
    for (std::size_t j = 0; j + 1 < b.start.size(); ++j) {
      m.yoff.push_back(a.yoff[i] + b.yoff[j]);
      m.start.push_back(static_cast<std::int32_t>(m.xoff.size()));
      for (std::int32_t e = a.start[i]; e < a.start[i + 1]; ++e)
        for (std::int32_t f = b.start[j]; f < b.start[j + 1]; ++f) {
          m.xoff.push_back(a.xoff[e] + b.xoff[f]);
          m.coef.push_back(a.coef[e] * b.coef[f]);
        }
    }
  m.start.push_back(static_cast<std::int32_t>(m.xoff.size()));
  return m;
}

// Merges the trailing blocks until the innermost loop runs long: the
// recursion costs per element of the outer blocks.
void merge_trailing(std::vector<BlockTerms>& blocks) {
  while (blocks.size() > 1) {
    const BlockTerms& b = blocks.back();
    const BlockTerms& a = blocks[blocks.size() - 2];
    if (b.yoff.size() >= 512 || a.xoff.size() * b.xoff.size() > (1 << 18)) break;
    BlockTerms m = merged(a, b);
    blocks.pop_back();
    blocks.back() = std::move(m);
  }
}

struct Term {
  std::int64_t xoff;
  double coef;
};

// The innermost block when it is a plain strided run: combination i has one
// term, at X offset x0 + i dx with coefficient c, and writes Y offset y0 + i dy.
struct Run {
  bool plain = false;
  std::size_t n = 0;
  std::int64_t x0 = 0, dx = 0, y0 = 0, dy = 0;
  double c = 0;
};

Run run_of(const BlockTerms& bt) {
  Run r;
  const std::size_t n = bt.yoff.size();
  r.n = n;
  if (n < 2 || bt.xoff.size() != n) return r;
  r.x0 = bt.xoff[0];
  r.y0 = bt.yoff[0];
  r.dx = bt.xoff[1] - bt.xoff[0];
  r.dy = bt.yoff[1] - bt.yoff[0];
  r.c = bt.coef[0];
  for (std::size_t i = 0; i < n; ++i)
    if (bt.start[i] != static_cast<std::int32_t>(i) || bt.coef[i] != r.c ||
        bt.xoff[i] != r.x0 + static_cast<std::int64_t>(i) * r.dx ||
        bt.yoff[i] != r.y0 + static_cast<std::int64_t>(i) * r.dy)
      return r;
  r.plain = true;
  return r;
}

// The innermost block as a strided run, summing the outer terms per element.
void accumulate_run(const Run& r, std::int64_t yoff, const std::vector<Term>& outer, const double* xd,
                    double* yd, double alpha) {
  double* y = yd + yoff + r.y0;
  if (outer.size() == 1) {
    const double a = alpha * outer[0].coef * r.c;
    const double* x = xd + outer[0].xoff + r.x0;
    for (std::size_t i = 0; i < r.n; ++i) y[i * r.dy] += a * x[i * r.dx];
    return;
  }
  for (std::size_t i = 0; i < r.n; ++i) {
    double s = 0;
    for (const Term& o : outer) s += o.coef * r.c * xd[o.xoff + r.x0 + static_cast<std::int64_t>(i) * r.dx];
    y[i * r.dy] += alpha * s;
  }
}

// One pass of the innermost block: y[y_i] += a * c * x[x_i] with one
// coefficient c (a sign) for the whole pass, the offsets in 32 bits when
// they fit (less to read per element).
struct Pass {
  double c = 1;
  std::vector<std::int32_t> y32, x32;
  std::vector<std::int64_t> y64, x64;
};

template <class I>
void run_pass(const std::vector<I>& ys, const std::vector<I>& xs, const double* x, double* y, double a) {
  const std::size_t n = ys.size();
  for (std::size_t i = 0; i < n; ++i) y[ys[i]] += a * x[xs[i]];
}

void accumulate_pass(const Pass& p, const double* x, double* y, double a) {
  if (p.y64.empty()) run_pass(p.y32, p.x32, x, y, a * p.c);
  else run_pass(p.y64, p.x64, x, y, a * p.c);
}

// How the innermost block runs: a strided run, or its passes.
struct Inner {
  Run run;
  std::vector<Pass> passes;  // term s of every combination, per slot s and sign
};

// The innermost block's combinations split by term into passes: term s of
// every combination that has one, per slot s and coefficient. Each
// combination makes its own element of Y, so a pass may run in any order: in
// the order of its offsets into the larger of X and Y, it walks that tensor
// forwards and jumps only inside the block's small part of the other.
std::vector<Pass> passes_of(const BlockTerms& bt, bool by_x) {
  std::map<std::pair<std::size_t, double>, std::vector<std::pair<std::int64_t, std::int32_t>>> order;
  std::vector<std::int64_t> y_of_term(bt.xoff.size());
  for (std::size_t i = 0; i + 1 < bt.start.size(); ++i)
    for (std::int32_t e = bt.start[i]; e < bt.start[i + 1]; ++e) {
      y_of_term[e] = bt.yoff[i];
      const std::size_t slot = static_cast<std::size_t>(e - bt.start[i]);
      order[{slot, bt.coef[e]}].push_back({by_x ? bt.xoff[e] : bt.yoff[i], e});
    }
  constexpr std::int64_t kMax32 = std::numeric_limits<std::int32_t>::max();
  std::vector<Pass> out;
  for (auto& [key, terms] : order) {
    std::stable_sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    Pass p;
    p.c = key.second;
    bool fits = true;
    for (const auto& [k, e] : terms) fits = fits && y_of_term[e] <= kMax32 && bt.xoff[e] <= kMax32;
    for (const auto& [k, e] : terms) {
      if (fits) {
        p.y32.push_back(static_cast<std::int32_t>(y_of_term[e]));
        p.x32.push_back(static_cast<std::int32_t>(bt.xoff[e]));
      } else {
        p.y64.push_back(y_of_term[e]);
        p.x64.push_back(bt.xoff[e]);
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

// Block `level` and those inside it; the innermost block runs as a strided
// run or as its passes (its BlockTerms are emptied).
void accumulate(const std::vector<BlockTerms>& blocks, const Inner& inner, std::size_t level, std::int64_t yoff,
                const std::vector<Term>& outer, const double* xd, double* yd, double alpha) {
  if (level + 1 == blocks.size()) {
    if (inner.run.plain) return accumulate_run(inner.run, yoff, outer, xd, yd, alpha);
    for (const Term& o : outer)
      for (const Pass& p : inner.passes) accumulate_pass(p, xd + o.xoff, yd + yoff, alpha * o.coef);
    return;
  }
  const BlockTerms& bt = blocks[level];
  std::vector<Term> next;
  for (std::size_t i = 0; i + 1 < bt.start.size(); ++i) {
    next.clear();
    for (const Term& o : outer)
      for (std::int32_t e = bt.start[i]; e < bt.start[i + 1]; ++e)
        next.push_back(Term{o.xoff + bt.xoff[e], o.coef * bt.coef[e]});
    if (!next.empty()) accumulate(blocks, inner, level + 1, yoff + bt.yoff[i], next, xd, yd, alpha);
  }
}

}  // namespace

namespace {

// What a relabel between two layouts does, worked out once: the blocks'
// combinations and how the innermost block runs.
struct Program {
  std::vector<BlockTerms> terms;
  Inner inner;
};

Program program_of(const Layout& X, const Layout& Y, const std::vector<int>& q, const std::vector<Block>& blocks,
                   const Offsets& at) {
  Program p;
  for (const Block& b : blocks) p.terms.push_back(block_terms(X, Y, q, b, at));
  merge_trailing(p.terms);
  p.inner.run = run_of(p.terms.back());
  if (!p.inner.run.plain) p.inner.passes = passes_of(p.terms.back(), X.local_size() > Y.local_size());
  p.terms.back() = BlockTerms{};  // the run or the passes hold it all
  return p;
}

// The program for these layouts, positions and offset parts, kept in the
// context: the layouts and the offset parts are the context's own cached
// objects, so their addresses name them for its lifetime.
const Program& cached_program(Context& ctx, const Layout& X, const Layout& Y, const std::vector<int>& q,
                              const std::vector<Block>& blocks, const Offsets& at) {
  char key[128];
  std::snprintf(key, sizeof key, "relabel|%p|%p|%p|%p|", static_cast<const void*>(&X), static_cast<const void*>(&Y),
                static_cast<const void*>(at.x), static_cast<const void*>(at.y));
  std::string k = key;
  for (int x : q) k += std::to_string(x) + ",";
  auto& cache = ctx.extensions();
  auto it = cache.find(k);
  if (it == cache.end())
    it = cache.emplace(k, std::make_shared<const Program>(program_of(X, Y, q, blocks, at))).first;
  return *std::static_pointer_cast<const Program>(it->second);
}

void relabel_at(const Tensor& Xt, const Layout& X, const Layout& Y, double* ydata, const std::vector<int>& q,
                double alpha, const Offsets& at) {
  if (!(X.mapping() == Y.mapping())) throw std::invalid_argument("relabel: mappings differ");
  if (X.shape().order() != Y.shape().order()) throw std::invalid_argument("relabel: orders differ");
  const auto blocks = blocks_of(X, Y);
  for (const Block& b : blocks)
    for (int j = b.first; j < b.last; ++j)
      if (q[j] < b.first || q[j] >= b.last || X.shape().lens[q[j]] != Y.shape().lens[j])
        throw std::invalid_argument("relabel: positions move between blocks");
  if (Y.local_size() == 0) return;
  if (blocks.empty()) {  // order 0
    ydata[0] += alpha * Xt.data()[0];
    return;
  }
  const Program& p = cached_program(Xt.ctx(), X, Y, q, blocks, at);
  accumulate(p.terms, p.inner, 0, 0, {Term{0, 1.0}}, Xt.data().data(), ydata, alpha);
}

}  // namespace

void relabel(const Tensor& Xt, Tensor& Yt, const std::vector<int>& q, double alpha) {
  relabel_at(Xt, Xt.layout(), Yt.layout(), Yt.data().data(), q, alpha, Offsets{});
}

void relabel_into(const Tensor& Xt, const Layout& Y, const OffsetParts& y_at, Tensor& Z, const std::vector<int>& q,
                  double alpha) {
  relabel_at(Xt, Xt.layout(), Y, Z.data().data(), q, alpha, Offsets{nullptr, &y_at});
}

void relabel_from(const Tensor& Z, const Layout& X, const OffsetParts& x_at, Tensor& Yt, const std::vector<int>& q,
                  double alpha) {
  relabel_at(Z, X, Yt.layout(), Yt.data().data(), q, alpha, Offsets{&x_at, nullptr});
}

}  // namespace cyclocc::tensor
