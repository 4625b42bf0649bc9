#include "tensor/spin.hpp"

#include "tensor/remap.hpp"
#include "tensor/spin_terms.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <tuple>

namespace cyclocc::tensor {

using spin_terms::block_sym;
using spin_terms::BlockPlan;
using spin_terms::BlockTerm;
using spin_terms::cached_expansion;
using spin_terms::Flip;
using spin_terms::flip_of;
using spin_terms::groups_of;
using spin_terms::SpinExpansion;

namespace {

bool conserves(const std::string& spins) {
  if (spins.size() % 2) return true;
  const std::size_t h = spins.size() / 2;
  return std::count(spins.begin(), spins.begin() + h, 'a') == std::count(spins.begin() + h, spins.end(), 'a');
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

namespace {

// All ranks along the group of `shape` that holds position p.
Mapping along_group(int nranks, const Shape& shape, int p) {
  int first = p, last = p;
  while (first > 0 && shape.sym[first - 1] != Sym::NS) --first;
  while (last + 1 < shape.order() && shape.sym[last] != Sym::NS) ++last;
  return Mapping::along(nranks, first, last + 1);
}

}  // namespace

SpinTensor::SpinTensor(Context& ctx, const SpinDims& dims, std::string spaces, std::vector<Sym> sym, std::string name,
                       int along)
    : ctx_(&ctx), dims_(dims), spaces_(std::move(spaces)), sym_(std::move(sym)), name_(std::move(name)), along_(along) {
  if (sym_.empty()) sym_.assign(spaces_.size(), Sym::NS);
  if (sym_.size() != spaces_.size()) throw std::invalid_argument("SpinTensor: spaces and sym differ in length");
  for (std::size_t i = 0; i + 1 < spaces_.size(); ++i)
    if (sym_[i] == Sym::AS && spaces_[i] != spaces_[i + 1])
      throw std::invalid_argument("SpinTensor: antisymmetric indices in different spaces");
  if (along_ >= order()) throw std::invalid_argument("SpinTensor: no position " + std::to_string(along_));
  keys_ = spin_blocks(spaces_, sym_);
  std::sort(keys_.begin(), keys_.end());
  // A derived block is allocated when it is first read (stored()): until
  // then it is stale, and its partner's zeros make it zero.
  for (const std::string& k : keys_) {
    if (derived(k)) stale_.insert(k);
    else stored(k);
  }
}

Tensor& SpinTensor::stored(const std::string& spins) const {
  auto it = blocks_.find(spins);
  if (it != blocks_.end()) return it->second;
  if (!has_block(spins)) throw std::out_of_range("SpinTensor " + name_ + ": no block " + spins);
  const Shape shape = block_shape(dims_, spaces_, sym_, spins);
  const Mapping map = along_ >= 0 ? along_group(ctx_->nranks(), shape, along_) : ctx_->default_mapping(shape);
  Tensor& t = blocks_.emplace(spins, Tensor(*ctx_, shape, map, name_ + "(" + spins + ")")).first->second;
  if (constant_) t.set_constant(true);
  return t;
}

bool SpinTensor::has_block(const std::string& spins) const {
  return std::binary_search(keys_.begin(), keys_.end(), spins);
}

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
  for (const std::string& k : keys_)
    if (derived(k)) stale_.insert(k);
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
    const Tensor& b = stored(spins);
    it = halves_.emplace(spins, Tensor(*ctx_, b.shape(), b.mapping(), "half of " + b.name())).first;
  }
  return it->second;
}

void SpinTensor::add_halves() const {
  if (halves_.empty()) return;
  std::string labels;
  for (int p = 0; p < order(); ++p) labels += static_cast<char>('a' + p);
  for (const auto& [key, X] : halves_) {
    // Z(abij) = sign * Z(baji): the block's own flip (flip_of gives its order).
    const Flip f = flip_of(key, sym_);
    Tensor& Z = stored(key);
    tensor::sum(1.0, X, labels, 1.0, Z, labels);
    tensor::sum(f.sign, X, f.order, 1.0, Z, labels);
    if (held_.on) Z.hold_prepared(true);
  }
  halves_.clear();
}

void SpinTensor::ensure_derived(std::set<std::string> keys) const {
  add_halves();
  if (stale_.empty()) return;
  // What the requested blocks are made from: the all-beta block from the
  // all-alpha one, the all-alpha block from the mixed patterns.
  const std::string all_alpha(order(), 'a');
  const bool pair_blocks = same_spin_pair_block(all_alpha) && has_block(all_alpha);
  for (const std::string& k : std::set<std::string>(keys))
    if (same_spin_pair_block(k) && k != all_alpha) keys.insert(all_alpha);
  if (pair_blocks && keys.count(all_alpha))
    for (const std::string& spins : mixed_patterns(order() / 2)) keys.insert(source_of(spins, sym_).key);
  std::string labels;
  for (int p = 0; p < order(); ++p) labels += static_cast<char>('a' + p);
  // Fills block `key` with `fill` and marks it fresh; writing ends a tensor's
  // constancy (Tensor::data), but a derived block of a constant tensor stays one.
  auto refill = [&](const std::string& key, const auto& fill) {
    Tensor& out = stored(key);
    const bool constant = out.constant();
    fill(out);
    if (constant) out.set_constant(true);
    if (held_.on) out.hold_prepared(true);
    stale_.erase(key);
  };
  auto flip_fill = [&](bool uniform) {
    for (const std::string& key : keys) {
      if (!stale_.count(key) || key == all_alpha || same_spin_pair_block(key) != uniform) continue;
      const Flip f = flip_of(key, sym_);  // the partner of a flip-derived block is computed
      refill(key, [&](Tensor& out) { tensor::sum(f.sign, stored(f.key), f.order, 0.0, out, labels); });
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
        const Tensor& from = stored(key);
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
  ensure_derived();  // every block allocated and up to date
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

std::vector<std::string> SpinTensor::block_keys() const { return keys_; }

std::vector<std::string> SpinTensor::computed_keys() const {
  std::vector<std::string> k;
  for (const std::string& key : keys_)
    if (!derived(key)) k.push_back(key);
  return k;
}

Tensor& SpinTensor::block(const std::string& spins) {
  // The caller may write: every block is brought up to date first, so that no
  // derived block is later filled from an already changed partner.
  if (!has_block(spins)) throw std::out_of_range("SpinTensor " + name_ + ": no block " + spins);
  ensure_derived();
  return stored(spins);
}
Tensor& SpinTensor::write_block(const std::string& spins) {
  if (derived(spins)) throw std::invalid_argument("SpinTensor " + name_ + ": block " + spins + " is derived");
  add_halves();
  blocks_written();
  return stored(spins);
}
Tensor& SpinTensor::mirror_half(const std::string& spins) {
  if (!dims_.restricted || !has_block(spins) || flip_of(spins, sym_).key != spins)
    throw std::invalid_argument("SpinTensor " + name_ + ": block " + spins + " is not its own flipped image");
  return half_of(spins);
}
const Tensor& SpinTensor::block(const std::string& spins) const {
  if (!has_block(spins)) throw std::out_of_range("SpinTensor " + name_ + ": no block " + spins);
  ensure_derived({spins});
  return stored(spins);
}

void SpinTensor::set_zero() {
  halves_.clear();
  for (auto& kv : blocks_) kv.second.set_zero();
}
void SpinTensor::hold_prepared(bool hold) const {
  held_.on = hold;
  for (const auto& [key, block] : blocks_)
    if (!hold || (!stale_.count(key) && !halves_.count(key))) block.hold_prepared(hold);
}

void SpinTensor::set_constant(bool constant) {
  // Derived blocks may still be stale (or not allocated): they are filled before their first use.
  constant_ = constant;
  for (auto& kv : blocks_) kv.second.set_constant(constant);
}

void SpinTensor::scale(double alpha) {
  add_halves();
  for (auto& kv : blocks_)
    if (!stale_.count(kv.first)) kv.second.scale(alpha);
}
double SpinTensor::dot(const SpinTensor& o) const { return dots({&o})[0]; }

std::vector<double> SpinTensor::dots(const std::vector<const SpinTensor*>& others) const {
  std::vector<double> s(others.size(), 0.0);
  each_block_dot(others, [&](const std::string&, std::size_t j, double d) { s[j] += d; });
  return s;
}

SpinTensor::SpinParts SpinTensor::dot_by_spin(const SpinTensor& o) const {
  SpinParts parts;
  each_block_dot({&o}, [&](const std::string& key, std::size_t, double d) {
    bool one_spin = true;
    for (char spin : key) one_spin = one_spin && spin == key[0];
    (one_spin ? parts.one_spin : parts.mixed) += d;
  });
  return parts;
}

std::vector<SpinTensor::Element> SpinTensor::largest(int k) const {
  std::vector<Element> all;
  for (const std::string& key : computed_keys())
    for (Tensor::Element& e : block(key).largest(k)) all.push_back({key, std::move(e.index), e.value});
  std::stable_sort(all.begin(), all.end(),
                   [](const Element& x, const Element& y) { return std::abs(x.value) > std::abs(y.value); });
  if (static_cast<int>(all.size()) > k) all.resize(std::max(k, 0));
  return all;
}

namespace {

// Whether a restricted tensor's same-spin pair blocks are those of T2: sym
// (AS, NS, AS, NS), and the all-alpha block made from the mixed block
// X = abab as X[abcd] - X[abdc] (mixed_patterns, source_of).
bool pair_blocks_of_t2_form(const SpinTensor& x) {
  const std::vector<Sym> t2_sym{Sym::AS, Sym::NS, Sym::AS, Sym::NS};
  if (!x.dims().restricted || x.sym() != t2_sym || !x.has_block("aaaa") || !x.has_block("abab")) return false;
  std::set<std::tuple<std::string, std::string, int>> sources;
  for (const std::string& spins : mixed_patterns(2)) {
    const Source src = source_of(spins, x.sym());
    sources.insert({src.key, src.labels, src.sign});
  }
  return sources == std::set<std::tuple<std::string, std::string, int>>{{"abab", "abcd", 1}, {"abab", "abdc", -1}};
}

}  // namespace

void SpinTensor::each_block_dot(const std::vector<const SpinTensor*>& others,
                                const std::function<void(const std::string&, std::size_t, double)>& add) const {
  // A flipped image has its partner's dot product (the flip permutes, with a
  // sign, the elements of both): the partner counts twice (flip_weight), and
  // the image is neither filled nor read.
  bool flips = dims_.restricted;
  for (const SpinTensor* o : others) flips = flips && o->dims_.restricted;
  auto weight = [&](const std::string& k) { return flips ? flip_weight(k) : 1; };
  // T2's same-spin blocks are not filled either: with aaaa = X[abij] -
  // X[abji] packed and X flip-symmetric (X[abij] = X[baji]), aaaa and bbbb
  // together give 2 sum_{a<b,i<j} aaaa_x aaaa_y = x.y - x^s.y over all of X,
  // with x^s[abij] = x[abji] (docs/tensor.md).
  bool from_mixed = flips && pair_blocks_of_t2_form(*this);
  for (const SpinTensor* o : others) from_mixed = from_mixed && pair_blocks_of_t2_form(*o);
  std::set<std::string> keys;
  for (const std::string& k : keys_)
    if (weight(k) > 0 && !(from_mixed && k == "aaaa")) keys.insert(k);
  ensure_derived(keys);
  for (const SpinTensor* o : others) o->ensure_derived(keys);
  for (const std::string& k : keys) {
    std::vector<const Tensor*> y;
    for (const SpinTensor* o : others) y.push_back(&o->block(k));
    const Tensor& x = stored(k);
    const std::vector<double> d = x.dots(y);
    for (std::size_t j = 0; j < d.size(); ++j) add(k, j, weight(k) * d[j]);
    if (!from_mixed || k != "abab") continue;
    const Tensor swapped = remapped(x, x.shape(), x.mapping(), {0, 1, 3, 2}, x.name() + " (ij swapped)");
    const std::vector<double> ds = swapped.dots(y);
    for (std::size_t j = 0; j < d.size(); ++j) add("aaaa", j, d[j] - ds[j]);
  }
}
double SpinTensor::norm2() const { return std::sqrt(dot(*this)); }

std::int64_t SpinTensor::local_words() const {
  std::int64_t n = 0;
  for (const auto& kv : blocks_) n += static_cast<std::int64_t>(kv.second.data().size());
  for (const auto& kv : halves_) n += static_cast<std::int64_t>(kv.second.data().size());
  return n;
}

IndexedT<SpinTensor> SpinTensor::operator[](const std::string& labels) { return IndexedT<SpinTensor>(this, labels); }
IndexedT<SpinTensor> SpinTensor::operator[](const std::string& labels) const {
  return IndexedT<SpinTensor>(const_cast<SpinTensor*>(this), labels);
}

namespace {
std::string spatial_key(const SpinTensor& x, Pairing p) {
  if (x.order() == 2 && p == Pairing::direct) return "aa";
  if (x.order() == 4) return p == Pairing::direct ? "abab" : "abba";
  throw std::invalid_argument("spatial block: " + x.name() + " is not of order 2 or 4 with this pairing");
}
std::string restricted_key(const SpinTensor& x, Pairing p) {
  if (!x.dims().restricted) throw std::invalid_argument("spatial block: " + x.name() + " is not closed-shell");
  return spatial_key(x, p);
}
}  // namespace

const Tensor& spatial_block(const SpinTensor& x, Pairing p) { return x.block(restricted_key(x, p)); }
Tensor& spatial_write_block(SpinTensor& x, Pairing p) { return x.write_block(restricted_key(x, p)); }
Tensor& spatial_mirror_half(SpinTensor& x) { return x.mirror_half(restricted_key(x, Pairing::direct)); }

std::vector<double> spatial_array(const SpinTensor& x) {
  const std::string key = spatial_key(x, Pairing::direct);
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
    Tensor& b = out.write_block(key);
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

namespace {

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
    Tensor& Z = C.stored(cblock);
    if (empty_block(Z)) continue;
    auto add = [&](const BlockTerm& t, Tensor& target) {
      const Tensor& X = A.stored(t.ablock);
      const Tensor& Y = B.stored(t.bblock);
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
    Tensor& Z = B.stored(bblock);
    if (empty_block(Z)) continue;
    for (const BlockTerm& t : plan.direct) {  // a sum has no mirror pairs (plan_block)
      const Tensor& X = A.stored(t.ablock);
      if (!empty_block(X)) sum(alpha * t.coef, X, t.la, 1.0, Z, lb);
    }
  }
  B.blocks_written();
}

}  // namespace cyclocc::tensor
