#include "tensor/spin.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <tuple>

namespace cyclocc::tensor {

namespace {

// Groups of a symmetry-flag vector, as position lists.
std::vector<std::vector<int>> groups_of(const std::vector<Sym>& sym) {
  std::vector<std::vector<int>> g;
  for (int i = 0; i < static_cast<int>(sym.size()); ++i) {
    if (i == 0 || sym[i - 1] == Sym::NS) g.push_back({});
    g.back().push_back(i);
  }
  return g;
}

bool conserves(const std::string& spins) {
  if (spins.size() % 2) return true;
  const std::size_t h = spins.size() / 2;
  return std::count(spins.begin(), spins.begin() + h, 'a') == std::count(spins.begin() + h, spins.end(), 'a');
}

// The symmetry flags of block `spins`: indices of one spin-orbital group
// stay antisymmetric where they have the same spin.
std::vector<Sym> block_sym(const std::vector<Sym>& sym, const std::string& spins) {
  std::vector<Sym> s(sym.size(), Sym::NS);
  for (std::size_t i = 0; i + 1 < sym.size(); ++i)
    if (sym[i] == Sym::AS && spins[i] == spins[i + 1]) s[i] = Sym::AS;
  return s;
}

Shape block_shape(const SpinDims& d, const std::string& spaces, const std::vector<Sym>& sym, const std::string& spins) {
  std::vector<int> lens;
  for (std::size_t i = 0; i < spaces.size(); ++i) lens.push_back(d.len(spaces[i], spins[i]));
  return Shape(lens, block_sym(sym, spins));
}

}  // namespace

std::vector<std::string> spin_blocks(const std::string& /*spaces: blocks depend on the groups only*/, const std::vector<Sym>& sym) {
  for (Sym s : sym)
    if (s == Sym::SY) throw std::invalid_argument("spin tensors support antisymmetric groups only");
  std::vector<std::string> keys{""};
  for (const auto& g : groups_of(sym)) {
    std::vector<std::string> more;
    for (const std::string& k : keys)
      for (std::size_t nb = 0; nb <= g.size(); ++nb) more.push_back(k + std::string(g.size() - nb, 'a') + std::string(nb, 'b'));
    keys.swap(more);
  }
  std::vector<std::string> out;
  for (const auto& k : keys)
    if (conserves(k)) out.push_back(k);
  return out;
}

SpinTensor::SpinTensor(Context& ctx, const SpinDims& dims, std::string spaces, std::vector<Sym> sym, std::string name,
                       int along)
    : ctx_(&ctx), dims_(dims), spaces_(std::move(spaces)), sym_(std::move(sym)), name_(std::move(name)), along_(along) {
  if (sym_.empty()) sym_.assign(spaces_.size(), Sym::NS);
  if (sym_.size() != spaces_.size()) throw std::invalid_argument("SpinTensor: spaces and sym differ in length");
  for (std::size_t i = 0; i + 1 < spaces_.size(); ++i)
    if (sym_[i] == Sym::AS && spaces_[i] != spaces_[i + 1])
      throw std::invalid_argument("SpinTensor: antisymmetric indices in different spaces");
  if (along_ >= 0 && (along_ >= order() || sym_[along_] != Sym::NS || (along_ > 0 && sym_[along_ - 1] != Sym::NS)))
    throw std::invalid_argument("SpinTensor: position " + std::to_string(along_) + " is not a group of its own");
  for (const std::string& k : spin_blocks(spaces_, sym_)) {
    const Shape shape = block_shape(dims_, spaces_, sym_, k);
    const Mapping map = along_ >= 0 ? Mapping::along(ctx.nranks(), along_, along_ + 1) : ctx.default_mapping(shape);
    blocks_.emplace(k, Tensor(ctx, shape, map, name_ + "(" + k + ")"));
  }
}

namespace {

// The block that holds the same numbers as `key` with every spin flipped:
// its key, and for each of its positions the position of `key` it reads,
// with the sign of that reordering inside antisymmetric groups.
struct Flip {
  std::string key;
  std::string order;  // labels of the partner: block(labels) = sign * partner(order)
  int sign = 1;
};

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

}  // namespace

namespace {

// A block of four or six indices with one spin throughout ("aaaa", "aaaaaa").
bool same_spin_pair_block(const std::string& key) {
  return (key.size() == 4 || key.size() == 6) && key == std::string(key.size(), key[0]);
}

// The spin patterns whose elements add up to the all-alpha element of a
// closed-shell (spin-free) quantity with n upper and n lower indices: the last
// upper index beta and one lower index beta (each pairing of the upper with
// the lower indices appears in exactly one of them).
std::vector<std::string> mixed_patterns(int n) {
  std::vector<std::string> out;
  for (int q = 0; q < n; ++q) {
    std::string s = std::string(n - 1, 'a') + "b" + std::string(n, 'a');
    s[n + q] = 'b';
    out.push_back(s);
  }
  return out;
}

// The block, its labels and the sign that hold the element with the given
// spin per index (labels "abcd"), read through the groups' antisymmetry.
struct Source {
  std::string key, labels;
  int sign = 1;
};

Source source_of(const std::string& spins, const std::vector<Sym>& sym) {
  Source src;
  for (const auto& g : groups_of(sym)) {
    std::vector<int> pos = g;
    std::stable_sort(pos.begin(), pos.end(), [&](int x, int y) { return spins[x] < spins[y]; });
    for (std::size_t a = 0; a < pos.size(); ++a)
      for (std::size_t b = a + 1; b < pos.size(); ++b)
        if (pos[a] > pos[b]) src.sign = -src.sign;
    for (int p : pos) {
      src.key += spins[p];
      src.labels += static_cast<char>('a' + p);
    }
  }
  return src;
}

}  // namespace

bool SpinTensor::derived(const std::string& spins) const {
  if (!dims_.restricted) return false;
  // Closed-shell quantities: the all-alpha block is a sum of mixed ones
  // (mixed_patterns), so only the mixed blocks are computed.
  if (same_spin_pair_block(spins)) return true;
  return flip_of(spins, sym_).key < spins;
}

int SpinTensor::flip_weight(const std::string& spins) const {
  if (!dims_.restricted) return 1;
  const std::string partner = flip_of(spins, sym_).key;
  if (partner == spins) return 1;
  return partner < spins ? 0 : 2;
}

void SpinTensor::blocks_written() {
  stale_.clear();
  if (!dims_.restricted) return;
  for (const auto& kv : blocks_)
    if (derived(kv.first)) stale_.insert(kv.first);
}

void SpinTensor::fill_derived() {
  blocks_written();
  ensure_derived();
}

void SpinTensor::ensure_derived() const {
  add_halves();
  if (!stale_.empty()) ensure_derived(std::set<std::string>(stale_));
}

Tensor& SpinTensor::half_of(const std::string& spins) {
  auto it = halves_.find(spins);
  if (it == halves_.end()) {
    const Tensor& b = blocks_.at(spins);
    it = halves_.emplace(spins, Tensor(*ctx_, b.shape(), b.mapping(), "half of " + b.name())).first;
  }
  return it->second;
}

void SpinTensor::add_halves() const {
  if (halves_.empty()) return;
  std::string labels;
  for (int p = 0; p < order(); ++p) labels += static_cast<char>('a' + p);
  auto& blocks = const_cast<SpinTensor*>(this)->blocks_;
  for (const auto& [key, X] : halves_) {
    // Z(abij) = sign * Z(baji): the block's own flip (flip_of gives its order).
    const Flip f = flip_of(key, sym_);
    Tensor& Z = blocks.at(key);
    tensor::sum(1.0, X, labels, 1.0, Z, labels);
    tensor::sum(f.sign, X, f.order, 1.0, Z, labels);
  }
  halves_.clear();
}

void SpinTensor::ensure_derived(std::set<std::string> keys) const {
  add_halves();
  if (stale_.empty()) return;
  // What the requested blocks are made from: the all-beta block from the
  // all-alpha one, the all-alpha block from the mixed patterns.
  const std::string all_alpha(order(), 'a');
  const bool pair_blocks = same_spin_pair_block(all_alpha) && blocks_.count(all_alpha);
  for (const std::string& k : std::set<std::string>(keys))
    if (same_spin_pair_block(k) && k != all_alpha) keys.insert(all_alpha);
  if (pair_blocks && keys.count(all_alpha))
    for (const std::string& spins : mixed_patterns(order() / 2)) keys.insert(source_of(spins, sym_).key);
  std::string labels;
  for (int p = 0; p < order(); ++p) labels += static_cast<char>('a' + p);
  auto& blocks = const_cast<SpinTensor*>(this)->blocks_;
  // Fills block `key` with `fill` and marks it fresh; writing ends a tensor's
  // constancy (Tensor::data), but a derived block of a constant tensor stays one.
  auto refill = [&](const std::string& key, const auto& fill) {
    Tensor& out = blocks.at(key);
    const bool constant = out.constant();
    fill(out);
    if (constant) out.set_constant(true);
    stale_.erase(key);
  };
  auto flip_fill = [&](bool uniform) {
    for (const std::string& key : keys) {
      if (!stale_.count(key) || key == all_alpha || same_spin_pair_block(key) != uniform) continue;
      const Flip f = flip_of(key, sym_);  // the partner of a flip-derived block is computed
      refill(key, [&](Tensor& out) { tensor::sum(f.sign, blocks.at(f.key), f.order, 0.0, out, labels); });
    }
  };
  // Mixed blocks first (the all-alpha block is built from them), then the
  // all-alpha block, then its flipped all-beta partner.
  flip_fill(false);
  if (pair_blocks && keys.count(all_alpha) && stale_.count(all_alpha)) {
    // Each mixed pattern summed straight into the packed block. The declared
    // antisymmetry adds the permutations of its groups that the pattern's own
    // block lacks, |G| / |H| of them for the group G of the all-alpha block and
    // H of the pattern's block, and each pattern is antisymmetric in H, hence
    // the factor |H| / |G|.
    auto group_order = [](const Tensor& t) {
      double n = 1;
      for (const Group& g : t.shape().groups())
        for (int k = 2; k <= g.size; ++k) n *= k;
      return n;
    };
    refill(all_alpha, [&](Tensor& aaaa) {
      // Several patterns read the same mixed block: it moves into the
      // all-alpha block's mapping once, when that mapping fits its shape.
      std::map<std::string, Tensor> moved;
      auto in_place = [&](const std::string& key) -> const Tensor& {
        const Tensor& from = blocks.at(key);
        if (from.mapping() == aaaa.mapping()) return from;
        try {
          check_mapping(from.shape(), aaaa.mapping());
        } catch (const std::invalid_argument&) {
          return from;
        }
        auto it = moved.find(key);
        if (it == moved.end()) {
          it = moved.emplace(key, from).first;
          it->second.set_constant(false);  // a scratch copy: no share in from's prepared copies
          it->second.redistribute(aaaa.mapping());
        }
        return it->second;
      };
      double beta = 0.0;
      for (const std::string& spins : mixed_patterns(order() / 2)) {
        const Source src = source_of(spins, sym_);
        const Tensor& from = in_place(src.key);
        tensor::sum(src.sign * group_order(from) / group_order(aaaa), from, src.labels, beta, aaaa, labels);
        beta = 1.0;
      }
    });
  }
  flip_fill(true);
}

void SpinTensor::flip_symmetrize() {
  add_halves();
  std::string labels;
  for (int p = 0; p < order(); ++p) labels += static_cast<char>('a' + p);
  const std::map<std::string, Tensor> before = blocks_;
  for (auto& [key, block] : blocks_) {
    // X(spins) = X(flipped spins): the flipped element lives in block f.key.
    const Flip f = flip_of(key, sym_);
    block.scale(0.5);
    tensor::sum(0.5 * f.sign, before.at(f.key), f.order, 1.0, block, labels);
  }
  fill_derived();
}

SpinTensor SpinTensor::zeros_like(const SpinTensor& like, std::string spaces, std::vector<Sym> sym,
                                  std::string name) {
  return SpinTensor(like.ctx(), like.dims_, std::move(spaces), std::move(sym), std::move(name));
}

SpinTensor SpinTensor::zeros_like(const SpinTensor& like, std::string name) {
  return SpinTensor(like.ctx(), like.dims_, like.spaces_, like.sym_, std::move(name), like.along_);
}

std::vector<std::string> SpinTensor::block_keys() const {
  std::vector<std::string> k;
  for (const auto& kv : blocks_) k.push_back(kv.first);
  return k;
}

Tensor& SpinTensor::block(const std::string& spins) {
  // The caller may write: every block is brought up to date first, so that no
  // derived block is later filled from an already changed partner.
  ensure_derived();
  auto it = blocks_.find(spins);
  if (it == blocks_.end()) throw std::out_of_range("SpinTensor " + name_ + ": no block " + spins);
  return it->second;
}
Tensor& SpinTensor::write_block(const std::string& spins) {
  if (derived(spins)) throw std::invalid_argument("SpinTensor " + name_ + ": block " + spins + " is derived");
  add_halves();
  blocks_written();
  auto it = blocks_.find(spins);
  if (it == blocks_.end()) throw std::out_of_range("SpinTensor " + name_ + ": no block " + spins);
  return it->second;
}
const Tensor& SpinTensor::block(const std::string& spins) const {
  ensure_derived({spins});
  auto it = blocks_.find(spins);
  if (it == blocks_.end()) throw std::out_of_range("SpinTensor " + name_ + ": no block " + spins);
  return it->second;
}

void SpinTensor::set_zero() {
  halves_.clear();
  for (auto& kv : blocks_) kv.second.set_zero();
}
void SpinTensor::set_constant(bool constant) {
  // Derived blocks may still be stale: they are filled before their first use.
  for (auto& kv : blocks_) kv.second.set_constant(constant);
}

void SpinTensor::scale(double alpha) {
  add_halves();
  for (auto& kv : blocks_)
    if (!stale_.count(kv.first)) kv.second.scale(alpha);
}
double SpinTensor::dot(const SpinTensor& o) const {
  ensure_derived();
  o.ensure_derived();
  double s = 0;
  for (const auto& kv : blocks_) s += kv.second.dot(o.block(kv.first));
  return s;
}
double SpinTensor::norm2() const { return std::sqrt(dot(*this)); }

IndexedT<SpinTensor> SpinTensor::operator[](const std::string& labels) { return IndexedT<SpinTensor>(this, labels); }
IndexedT<SpinTensor> SpinTensor::operator[](const std::string& labels) const {
  return IndexedT<SpinTensor>(const_cast<SpinTensor*>(this), labels);
}

std::vector<double> spatial_array(const SpinTensor& x) {
  std::string key;
  if (x.order() == 2) key = "aa";
  else if (x.order() == 4) key = "abab";
  else throw std::invalid_argument("spatial_array: " + x.name() + " is not of order 2 or 4");
  const Tensor& b = x.block(key);
  for (Sym s : b.shape().sym)
    if (s != Sym::NS) throw std::invalid_argument("spatial_array: block " + key + " of " + x.name() + " is packed");
  return b.gather_all();  // canonical order of an unpacked block: row-major
}

SpinTensor window_slice(const SpinTensor& src, const SpinDims& dims, const std::string& spaces, std::string name) {
  if (spaces.size() != src.spaces().size()) throw std::invalid_argument("window_slice: order differs");
  for (std::size_t p = 0; p < spaces.size(); ++p)
    if (spaces[p] != src.spaces()[p] && !(spaces[p] == 'w' && src.spaces()[p] == 'o'))
      throw std::invalid_argument("window_slice: only occupied indices can be windowed");
  // Antisymmetry survives only between indices left in the same space.
  std::vector<Sym> sym = src.sym();
  for (std::size_t p = 0; p + 1 < spaces.size(); ++p)
    if (spaces[p] != spaces[p + 1]) sym[p] = Sym::NS;
  SpinTensor out(src.ctx(), dims, spaces, sym, name.empty() ? src.name() + "[" + spaces + "]" : std::move(name));
  for (const auto& key : out.block_keys()) {
    // The source block: the same spins, sorted alpha first inside src's groups.
    std::string skey = key;
    std::vector<int> pos(key.size());
    std::iota(pos.begin(), pos.end(), 0);
    for (const auto& g : groups_of(src.sym()))
      std::stable_sort(pos.begin() + g.front(), pos.begin() + g.back() + 1,
                       [&](int x, int y) { return key[x] < key[y]; });
    int sign = 1;  // of the reordering inside src's antisymmetric groups
    for (std::size_t q = 0; q < pos.size(); ++q) {
      skey[q] = key[pos[q]];
      for (std::size_t r = q + 1; r < pos.size(); ++r)
        if (pos[q] > pos[r]) sign = -sign;
    }
    std::vector<int> off(key.size(), 0);
    for (std::size_t p = 0; p < key.size(); ++p)
      if (spaces[p] == 'w') off[p] = dims.win_offset[key[p] == 'a' ? 0 : 1];
    if (out.derived(key)) continue;  // filled from the sliced blocks when read
    Tensor& b = out.block(key);
    if (b.shape().packed_size() == 0) continue;
    // Read the source block in out's index order: a tensor with src's
    // positions permuted, then sliced.
    if (skey == key) {
      b = src.block(skey).slice(off, b.shape(), b.name());
    } else {
      std::string from, to;
      for (std::size_t q = 0; q < pos.size(); ++q) from += static_cast<char>('a' + pos[q]);
      for (std::size_t p = 0; p < key.size(); ++p) to += static_cast<char>('a' + p);
      // A NS copy of the source block in out's order, then the slice.
      std::vector<int> lens;
      for (std::size_t p = 0; p < key.size(); ++p) lens.push_back(src.dims().len(src.spaces()[p], key[p]));
      Tensor full(src.ctx(), Shape(lens, std::vector<Sym>(key.size(), Sym::NS)));
      sum(sign, src.block(skey), from, 0.0, full, to);
      b = full.slice(off, b.shape(), b.name());
    }
  }
  out.blocks_written();
  return out;
}

// ---- expansion of a spin-orbital expression into block operations ----------

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

struct Operand {
  const SpinTensor* t;
  std::string labels;
};

struct BlockTerm {
  double coef = 0;
  std::string ablock, la, bblock, lb;
};

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
void read_partner(const SpinTensor& T, std::string& block, std::string& labels, double& coef) {
  if (!T.derived(block) || block == std::string(block.size(), 'a')) return;
  const Flip f = flip_of(block, T.sym());
  std::string partner_labels;
  for (char p : f.order) partner_labels += labels[p - 'a'];
  block = f.key;
  labels = partner_labels;
  coef *= f.sign;
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
    const Flip f = flip_of(block, T.sym());
    std::string reordered;
    for (char p : f.order) reordered += labels[p - 'a'];
    block = f.key;
    labels = reordered;
    coef *= f.sign;
    read_partner(T, block, labels, coef);
  };
  BlockTerm u = t;
  u.coef *= self.sign;
  flipped(A, u.ablock, u.la, u.coef);
  if (B) flipped(*B, u.bblock, u.lb, u.coef);
  canonical_order(u, A, B, lc);
  return u;
}

// The terms of one computed output block. When the block is its own flipped
// partner (restricted T2(abab): Z(abij) = Z(baji)), its terms come in pairs,
// a term and its mirror image. Only one of each pair is computed, into the
// tensor's pending half X of the block (SpinTensor::half_of), and the block
// gets X + sign * X(flipped) when it is next read: half the contractions.
struct BlockPlan {
  std::vector<BlockTerm> direct;  // added to the block as they are
  std::vector<BlockTerm> halves;  // one term of each mirror pair
};

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

// The expansion of one spin-orbital expression, cached in the Context: the
// block terms of every computed output block, with derived operand blocks
// read through their partners and mirror pairs found.
struct SpinExpansion {
  std::map<std::string, BlockPlan> blocks;
};

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

bool empty_block(const Tensor& t) { return t.shape().packed_size() == 0; }

template <class Used>
void mark_used(const SpinExpansion& e, const Used& use) {
  for (const auto& [cblock, plan] : e.blocks) {
    for (const BlockTerm& t : plan.direct) use(t);
    for (const BlockTerm& t : plan.halves) use(t);
  }
}

}  // namespace

void contract(double alpha, const SpinTensor& A, const std::string& la, const SpinTensor& B, const std::string& lb,
              double beta, SpinTensor& C, const std::string& lc) {
  if (beta != 1.0) C.scale(beta);
  const auto& e = cached_expansion({{&A, la}, {&B, lb}}, C, lc);
  std::set<std::string> a_used, b_used;
  mark_used(e, [&](const BlockTerm& t) {
    a_used.insert(t.ablock);
    b_used.insert(t.bblock);
  });
  A.ensure_derived(a_used);
  B.ensure_derived(b_used);
  for (const auto& [cblock, plan] : e.blocks) {
    Tensor& Z = C.blocks_.at(cblock);
    if (empty_block(Z)) continue;
    auto add = [&](const BlockTerm& t, Tensor& target) {
      const Tensor& X = A.blocks_.at(t.ablock);
      const Tensor& Y = B.blocks_.at(t.bblock);
      if (!empty_block(X) && !empty_block(Y)) contract(alpha * t.coef, X, t.la, Y, t.lb, 1.0, target, lc);
    };
    for (const BlockTerm& t : plan.direct) add(t, Z);
    for (const BlockTerm& t : plan.halves) add(t, C.half_of(cblock));
  }
  C.blocks_written();
}

void sum(double alpha, const SpinTensor& A, const std::string& la, double beta, SpinTensor& B, const std::string& lb) {
  if (beta != 1.0) B.scale(beta);
  const auto& e = cached_expansion({{&A, la}}, B, lb);
  std::set<std::string> a_used;
  mark_used(e, [&](const BlockTerm& t) { a_used.insert(t.ablock); });
  A.ensure_derived(a_used);
  for (const auto& [bblock, plan] : e.blocks) {
    Tensor& Z = B.blocks_.at(bblock);
    if (empty_block(Z)) continue;
    for (const BlockTerm& t : plan.direct) {  // a sum has no mirror pairs (plan_block)
      const Tensor& X = A.blocks_.at(t.ablock);
      if (!empty_block(X)) sum(alpha * t.coef, X, t.la, 1.0, Z, lb);
    }
  }
  B.blocks_written();
}

}  // namespace cyclocc::tensor
