#include "tensor/spin_pairs.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "parallel/comm.hpp"
#include "tensor/remap.hpp"

namespace cyclocc::tensor {

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The spins (0 alpha, 1 beta) of p and q in a representative pair of each class.
constexpr int kSpinP[3] = {0, 1, 0};
constexpr int kSpinQ[3] = {0, 0, 1};

int class_of(int spin_p, int spin_q) { return spin_p == spin_q ? 0 : spin_p == 1 ? 1 : 2; }

// The index of a pair inside its class before ordering: p * n_q + q, after
// the alpha part for class 0's beta pairs.
int natural(const SpinDims& d, const std::string& pq, int spin_p, int spin_q, int p, int q) {
  const char sq = spin_q == 0 ? 'a' : 'b';
  const int before = spin_p == 1 && spin_q == 1 ? d.len(pq[0], 'a') * d.len(pq[1], 'a') : 0;
  return before + p * d.len(pq[1], sq) + q;
}

PairMatrix::Order make_order(const SpinDims& d, const std::string& pq, int c, int ranks) {
  std::vector<std::array<int, 2>> parts;
  if (c == 0) parts = {{0, 0}, {1, 1}};
  else parts = {{kSpinP[c], kSpinQ[c]}};
  PairMatrix::Order o;
  int count = 0;
  for (const auto& s : parts) count += d.len(pq[0], s[0] == 0 ? 'a' : 'b') * d.len(pq[1], s[1] == 0 ? 'a' : 'b');
  o.at.assign(count, -1);
  for (int r = 0; r < ranks; ++r) {
    o.first.push_back(static_cast<int>(o.pairs.size()));
    for (const auto& s : parts) {
      const int np = d.len(pq[0], s[0] == 0 ? 'a' : 'b'), nq = d.len(pq[1], s[1] == 0 ? 'a' : 'b');
      for (int p = r; p < np; p += ranks)
        for (int q = 0; q < nq; ++q) {
          o.at[natural(d, pq, s[0], s[1], p, q)] = static_cast<int>(o.pairs.size());
          PairMatrix::Pair x;
          x.spin[0] = s[0];
          x.spin[1] = s[1];
          x.index[0] = p;
          x.index[1] = q;
          o.pairs.push_back(x);
        }
    }
  }
  o.first.push_back(static_cast<int>(o.pairs.size()));
  return o;
}

std::string dims_key(const SpinDims& d) {
  std::string k;
  for (int s = 0; s < 2; ++s)
    k += std::to_string(d.occ[s]) + "," + std::to_string(d.vir[s]) + "," + std::to_string(d.win[s]) + "," +
         std::to_string(d.win_offset[s]) + ";";
  return k;
}

std::shared_ptr<const PairMatrix::Order> order_of(Context& ctx, const SpinDims& d, const std::string& pq, int c) {
  const std::string key = "pair order " + dims_key(d) + pq + std::to_string(c);
  auto& kept = ctx.extensions();
  if (const auto it = kept.find(key); it != kept.end())
    return std::static_pointer_cast<const PairMatrix::Order>(it->second);
  auto o = std::make_shared<const PairMatrix::Order>(make_order(d, pq, c, ctx.nranks()));
  kept.emplace(key, o);
  return o;
}

int position_of(const std::string& labels, char l) {
  const auto at = labels.find(l);
  if (at == std::string::npos || labels.size() != 4)
    throw std::invalid_argument("PairMatrix: label '" + std::string(1, l) + "' is not one of the four of " + labels);
  return static_cast<int>(at);
}

// Positions of the row pair (p, q) and the column pair (r, s) among labels.
std::array<int, 4> pair_positions(const std::string& labels, const std::string& rows, const std::string& cols) {
  if (rows.size() != 2 || cols.size() != 2) throw std::invalid_argument("PairMatrix: a pair has two labels");
  const std::array<int, 4> at = {position_of(labels, rows[0]), position_of(labels, rows[1]),
                                 position_of(labels, cols[0]), position_of(labels, cols[1])};
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < k; ++j)
      if (at[j] == at[k])
        throw std::invalid_argument("PairMatrix: pairs " + rows + " and " + cols + " do not name four different "
                                    "indices of " + labels);
  for (int k = 0; k < 4; k += 2)
    if ((at[k] < 2) == (at[k + 1] < 2))
      throw std::invalid_argument("PairMatrix: pair " + std::string(1, labels[at[k]]) + labels[at[k + 1]] + " of " +
                                  labels + " does not join an upper and a lower index");
  return at;
}

std::string structure_key(const SpinTensor& x, const std::string& labels) {
  std::string k = x.spaces() + ":";
  for (Sym s : x.sym()) k += std::to_string(static_cast<int>(s));
  return k + ":" + labels + "|";
}

// A spin-orbital element of a four-index SpinTensor: its block (in
// block_keys() order), offset in the block's whole packed array, and sign;
// sign 0 where antisymmetry makes it zero.
struct Where {
  int block = -1;
  std::int64_t offset = 0;
  int sign = 0;
};

class Blocks {
 public:
  explicit Blocks(const SpinTensor& x) : keys_(x.block_keys()), sym_(x.sym()) {
    for (std::size_t b = 0; b < keys_.size(); ++b) {
      id_.emplace(keys_[b], static_cast<int>(b));
      shapes_.push_back(x.block(keys_[b]).shape());
    }
  }
  const std::vector<std::string>& keys() const { return keys_; }
  const Shape& shape(int b) const { return shapes_[b]; }

  // spin and orb per position (sorted in place inside each group, alpha
  // first: the order in which a block packs its indices).
  Where locate(int* spin, int* orb) const {
    int sign = 1;
    const int n = static_cast<int>(sym_.size());
    for (int s = 0; s < n;) {
      int e = s;
      while (e + 1 < n && sym_[e] != Sym::NS) ++e;
      for (int i = s + 1; i <= e; ++i)
        for (int j = i; j > s && before(spin, orb, j, j - 1); --j) {
          std::swap(spin[j], spin[j - 1]);
          std::swap(orb[j], orb[j - 1]);
          if (sym_[s] == Sym::AS) sign = -sign;
        }
      for (int i = s; i < e; ++i)
        if (sym_[s] == Sym::AS && spin[i] == spin[i + 1] && orb[i] == orb[i + 1]) return {};
      s = e + 1;
    }
    std::string key(n, 'a');
    for (int i = 0; i < n; ++i) key[i] = spin[i] == 0 ? 'a' : 'b';
    const auto it = id_.find(key);
    if (it == id_.end()) return {};
    return {it->second, packed_index(shapes_[it->second], orb), sign};
  }

 private:
  std::vector<std::string> keys_;
  std::vector<Sym> sym_;
  std::map<std::string, int> id_;
  std::vector<Shape> shapes_;
  static bool before(const int* spin, const int* orb, int i, int j) {
    return spin[i] != spin[j] ? spin[i] < spin[j] : orb[i] < orb[j];
  }
};

// Calls f(order, sign) for every order of the positions inside each
// antisymmetric group of sym (the spin-orbital elements one packed element
// stands for), order[k] the position whose value goes to position k.
void for_each_image(const std::vector<Sym>& sym, const std::function<void(const std::vector<int>&, int)>& f) {
  const int n = static_cast<int>(sym.size());
  std::vector<std::pair<int, int>> groups;
  for (int s = 0; s < n;) {
    int e = s;
    while (e + 1 < n && sym[e] != Sym::NS) ++e;
    if (sym[s] == Sym::SY) throw std::invalid_argument("PairMatrix: symmetric (SY) groups are not supported");
    groups.emplace_back(s, e + 1);
    s = e + 1;
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  const std::function<void(std::size_t, int)> walk = [&](std::size_t g, int sign) {
    if (g == groups.size()) return f(order, sign);
    const auto [first, last] = groups[g];
    std::sort(order.begin() + first, order.begin() + last);
    do {
      int inversions = 0;
      for (int i = first; i < last; ++i)
        for (int j = i + 1; j < last; ++j) inversions += order[i] > order[j];
      walk(g + 1, inversions % 2 ? -sign : sign);
    } while (std::next_permutation(order.begin() + first, order.begin() + last));
  };
  walk(0, 1);
}

// Element moves: to = offset * 2 + 1 where the sign is negative. Offsets
// are local to a rank, so 32 bits hold them (a whole block or matrix of 2^30
// elements would take 8 GB on every rank).
// The sizes are checked before any list is made, alike on every rank
// (the PairMatrix constructor, check_block_size).
struct Moves {
  std::vector<std::int32_t> from, to;
  void add(std::int64_t f, std::int64_t t, int sign) {
    from.push_back(static_cast<std::int32_t>(f));
    to.push_back(static_cast<std::int32_t>(t * 2 + (sign < 0 ? 1 : 0)));
  }
  std::int64_t bytes() const {
    return static_cast<std::int64_t>((from.capacity() + to.capacity()) * sizeof(std::int32_t));
  }
  // dst[to] += a * src[from] with the sign.
  void apply(double alpha, const double* src, double* dst) const {
    const double a[2] = {alpha, -alpha};
    for (std::size_t k = 0; k < from.size(); ++k) dst[to[k] >> 1] += a[to[k] & 1] * src[from[k]];
  }
};
using MoveLists = std::vector<Moves>;

// The lists of `key`, made by `make`: kept in the context from their second
// use on (a one-off matrix, such as the integrals', keeps none) while they
// fit in the context's budget for local lists.
std::shared_ptr<const MoveLists> kept_lists(Context& ctx, const std::string& key,
                                            const std::function<MoveLists()>& make) {
  auto& kept = ctx.extensions();
  if (const auto it = kept.find(key); it != kept.end() && it->second)
    return std::static_pointer_cast<const MoveLists>(it->second);
  auto lists = std::make_shared<const MoveLists>(make());
  const bool seen = kept.count(key) > 0;  // a null entry marks the first use
  std::int64_t bytes = 0;
  for (const Moves& m : *lists) bytes += m.bytes();
  if (!seen) kept.emplace(key, nullptr);
  else if (ctx.reserve_local_list_bytes(bytes)) kept[key] = lists;
  return lists;
}

// A block whose whole packed array the element moves address (32-bit offsets).
void check_block_size(const Shape& shape, const std::string& name) {
  if (shape.packed_size() >= (std::int64_t{1} << 30))
    throw std::length_error("PairMatrix: block " + name + " has more than 2^30 elements");
}

// Records one operation of the pair matrices in the rank's statistics.
class OpClock {
 public:
  explicit OpClock(Context& ctx) : comm_(ctx.comm()), t0_(now()), w0_(comm_.words_sent() + comm_.words_received()) {}
  void record(std::string name, double flops, double gemm_seconds) const {
    par::OpRecord rec;
    rec.name = std::move(name);
    rec.mapping = "pair matrices";
    rec.flops = flops;
    rec.gemm_seconds = gemm_seconds;
    rec.words = comm_.words_sent() + comm_.words_received() - w0_;
    rec.seconds = now() - t0_;
    comm_.stats().record(rec);
  }

 private:
  const par::Comm& comm_;
  double t0_;
  std::int64_t w0_;
};

}  // namespace

PairMatrix::PairMatrix(Context& ctx, const SpinDims& dims, std::array<std::string, 2> spaces,
                       std::array<int, 3> col_class, Placement placement, std::string name)
    : ctx_(&ctx),
      dims_(dims),
      spaces_(std::move(spaces)),
      col_class_(col_class),
      placement_(placement),
      name_(std::move(name)) {
  for (int side = 0; side < 2; ++side)
    for (int c = 0; c < 3; ++c) order_[side][c] = order_of(ctx, dims_, spaces_[side], c);
  // The element moves hold 32-bit offsets (Moves). Checked on the whole
  // class, the same on every rank, so that all refuse together.
  for (int c = 0; c < 3; ++c)
    if (static_cast<std::int64_t>(count(0, c)) * count(1, col_class_[c]) >= (std::int64_t{1} << 30))
      throw std::length_error("PairMatrix " + name_ + ": a class of more than 2^30 elements");
  for (int c = 0; c < 3; ++c)
    data_[c].assign(static_cast<std::size_t>(local_rows(c)) * count(1, col_class_[c]), 0.0);
}

int PairMatrix::count(int side, int c) const { return static_cast<int>(order_[side][c]->pairs.size()); }

PairMatrix::Pair PairMatrix::pair(int side, int c, int k) const { return order_[side][c]->pairs.at(k); }

int PairMatrix::row0(int c) const {
  return placement_ == Placement::rows ? order_[0][c]->first[ctx_->rank()] : 0;
}

int PairMatrix::local_rows(int c) const {
  const auto& first = order_[0][c]->first;
  return placement_ == Placement::rows ? first[ctx_->rank() + 1] - first[ctx_->rank()] : count(0, c);
}

std::pair<int, int> PairMatrix::own_rows(int c) const {
  if (placement_ == Placement::rows) return {0, local_rows(c)};
  const auto& first = order_[0][c]->first;  // whole: the same on every rank, each takes its own rows
  return {first[ctx_->rank()], first[ctx_->rank() + 1]};
}

std::string PairMatrix::lists_key(const std::string& what) const {
  std::string k = "pair lists " + what + " " + dims_key(dims_) + spaces_[0] + spaces_[1] +
                  std::to_string(static_cast<int>(placement_)) + ":";
  for (int c : col_class_) k += std::to_string(c);  // matrices of equal spaces may pair their classes otherwise
  return k + "|";
}

namespace {

// The spaces of the pairs and the column class of each row class, from a
// term's structure (spin conservation between its upper and lower halves).
struct PairStructure {
  std::array<std::string, 2> spaces;
  std::array<int, 3> col_class{};
};

PairStructure structure_of(const PairMatrix::Term& t, const std::string& rows, const std::string& cols) {
  if (t.x->order() != 4) throw std::invalid_argument("PairMatrix: " + t.x->name() + " is not a four-index tensor");
  const auto at = pair_positions(t.labels, rows, cols);
  const std::string& sp = t.x->spaces();
  PairStructure s{{std::string{sp[at[0]], sp[at[1]]}, std::string{sp[at[2]], sp[at[3]]}}, {}};
  for (int rc = 0; rc < 3; ++rc) {
    s.col_class[rc] = -1;
    for (int cc = 0; cc < 3 && s.col_class[rc] < 0; ++cc) {
      int spin[4];
      spin[at[0]] = kSpinP[rc];
      spin[at[1]] = kSpinQ[rc];
      spin[at[2]] = kSpinP[cc];
      spin[at[3]] = kSpinQ[cc];
      if ((spin[0] == 0) + (spin[1] == 0) == (spin[2] == 0) + (spin[3] == 0)) s.col_class[rc] = cc;
    }
  }
  return s;
}

}  // namespace

PairMatrix::PairMatrix(const std::vector<Term>& terms, const std::string& rows, const std::string& cols,
                       Placement placement, std::string name)
    : ctx_(terms.empty() ? nullptr : &terms.front().x->ctx()), placement_(placement), name_(std::move(name)) {
  if (terms.empty()) throw std::invalid_argument("PairMatrix " + name_ + ": no terms");
  const PairStructure s = structure_of(terms.front(), rows, cols);
  for (const Term& t : terms) {
    const PairStructure u = structure_of(t, rows, cols);
    const bool same_dims = dims_key(t.x->dims()) == dims_key(terms.front().x->dims());
    if (u.spaces != s.spaces || u.col_class != s.col_class || !same_dims)
      throw std::invalid_argument("PairMatrix " + name_ + ": terms of different structures");
  }
  *this = PairMatrix(*ctx_, terms.front().x->dims(), s.spaces, s.col_class, placement, name_);
  fill(terms, rows, cols);
}

void PairMatrix::fill(const std::vector<Term>& terms, const std::string& rows, const std::string& cols) {
  const OpClock clock(*ctx_);
  const int P = ctx_->nranks();
  for (const Term& t : terms) {
    const auto at = pair_positions(t.labels, rows, cols);
    for (const std::string& key : t.x->block_keys()) {
      const Tensor& block = t.x->block(key);
      if (block.shape().packed_size() == 0) continue;
      check_block_size(block.shape(), block.name());
      // In place where the block is whole, or where its ranks lie along the
      // rows' first index and that index is alone in its group of x (the
      // images of an element permute the positions inside a group).
      const std::vector<Sym>& sym = t.x->sym();
      const bool alone = sym[at[0]] == Sym::NS && (at[0] == 0 || sym[at[0] - 1] == Sym::NS);
      const bool in_place = block.mapping().whole_on_every_rank() ||
                            (placement_ == Placement::rows && alone &&
                             block.mapping().normalized() == Mapping::along(P, at[0], at[0] + 1).normalized());
      std::optional<Tensor> copy;
      if (!in_place) copy.emplace(remapped(block, block.shape(), Mapping::replicated(P), identity_perm(4)));
      const Tensor& src = in_place ? block : *copy;
      const std::string lk =
          lists_key("in") + structure_key(*t.x, t.labels) + rows + cols + key + layout_id(src.layout());
      const auto lists = kept_lists(*ctx_, lk, [&] {
        MoveLists l(3);
        src.for_each_offset([&](const int* idx, std::int64_t off) {
          for_each_image(t.x->sym(), [&](const std::vector<int>& order, int sign) {
            int spin[4], orb[4];
            for (int k = 0; k < 4; ++k) {
              spin[k] = key[order[k]] == 'a' ? 0 : 1;
              orb[k] = idx[order[k]];
            }
            const int c = class_of(spin[at[0]], spin[at[1]]), cc = class_of(spin[at[2]], spin[at[3]]);
            if (cc != col_class_[c]) throw std::logic_error("PairMatrix: an element outside the classes");
            const auto& s0 = spaces_[0];
            const auto& s1 = spaces_[1];
            const int kr = order_[0][c]->at[natural(dims_, s0, spin[at[0]], spin[at[1]], orb[at[0]], orb[at[1]])];
            const int kc = order_[1][cc]->at[natural(dims_, s1, spin[at[2]], spin[at[3]], orb[at[2]], orb[at[3]])];
            if (kr < row0(c) || kr >= row0(c) + local_rows(c)) return;
            l[c].add(off, static_cast<std::int64_t>(kr - row0(c)) * count(1, cc) + kc, sign);
          });
        });
        return l;
      });
      for (int c = 0; c < 3; ++c) (*lists)[c].apply(t.alpha, src.data().data(), data_[c].data());
    }
  }
  clock.record("pairs " + name_ + "[" + rows + "," + cols + "] from " + terms.front().x->name(), 0.0, 0.0);
}

void PairMatrix::add_product(double alpha, const PairMatrix& a, const PairMatrix& b) {
  if (placement_ != Placement::rows || b.placement_ != Placement::whole ||
      a.spaces_[0] != spaces_[0] || a.spaces_[1] != b.spaces_[0] || b.spaces_[1] != spaces_[1] ||
      dims_key(a.dims_) != dims_key(dims_) || dims_key(b.dims_) != dims_key(dims_) || a.ctx_ != ctx_ || b.ctx_ != ctx_)
    throw std::invalid_argument("PairMatrix " + name_ + " += " + a.name_ + " * " + b.name_ +
                                ": shapes, dimensions or placements");
  const OpClock clock(*ctx_);
  double flops = 0, gemm = 0;
  for (int c = 0; c < 3; ++c) {
    const int k = a.col_class_[c];
    if (b.col_class_[k] != col_class_[c])
      throw std::invalid_argument("PairMatrix " + name_ + " += " + a.name_ + " * " + b.name_ + ": classes differ");
    const int M = local_rows(c), N = count(1, col_class_[c]), K = a.count(1, k);
    if (M == 0 || N == 0 || K == 0) continue;
    // a's rows of this rank: its own where held by rows, the rank's range where whole.
    const double* ac = a.data_[c].data() + static_cast<std::size_t>(row0(c) - a.row0(c)) * K;
    const double g0 = now();
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, ac, K, b.data_[k].data(), N, 1.0,
                data_[c].data(), N);
    gemm += now() - g0;
    flops += 2.0 * M * N * K;
  }
  clock.record("pair product " + name_ + " += " + a.name_ + " * " + b.name_, flops, gemm);
}

PairMatrix PairMatrix::product(double alpha, const PairMatrix& a, const PairMatrix& b, std::string name) {
  std::array<int, 3> cc{};
  for (int c = 0; c < 3; ++c) cc[c] = b.col_class_[a.col_class_[c]];
  PairMatrix m(*a.ctx_, a.dims_, {a.spaces_[0], b.spaces_[1]}, cc, Placement::rows, std::move(name));
  m.add_product(alpha, a, b);
  return m;
}

void PairMatrix::add_to(double alpha, SpinTensor& y, const std::string& labels, const std::string& rows,
                        const std::string& cols) const {
  if (y.dims().restricted) throw std::invalid_argument("PairMatrix::add_to: " + y.name() + " is restricted");
  const auto at = pair_positions(labels, rows, cols);
  if (std::string{y.spaces()[at[0]], y.spaces()[at[1]]} != spaces_[0] ||
      std::string{y.spaces()[at[2]], y.spaces()[at[3]]} != spaces_[1] || dims_key(y.dims()) != dims_key(dims_))
    throw std::invalid_argument("PairMatrix::add_to: " + y.name() + "[" + labels + "] does not fit " + name_);
  const OpClock clock(*ctx_);
  const Blocks blocks(y);
  for (std::size_t b = 0; b < blocks.keys().size(); ++b) check_block_size(blocks.shape(static_cast<int>(b)), y.name());
  const auto lists = kept_lists(*ctx_, lists_key("out") + structure_key(y, labels) + rows + cols, [&] {
    MoveLists l(3 * blocks.keys().size());
    for (int c = 0; c < 3; ++c) {
      const int nc = count(1, col_class_[c]);
      const auto [r0, r1] = own_rows(c);
      for (int r = r0; r < r1; ++r)
        for (int k = 0; k < nc; ++k) {
          const Pair p = pair(0, c, row0(c) + r), q = pair(1, col_class_[c], k);
          int spin[4], orb[4];
          for (int j = 0; j < 2; ++j) {
            spin[at[j]] = p.spin[j];
            orb[at[j]] = p.index[j];
            spin[at[2 + j]] = q.spin[j];
            orb[at[2 + j]] = q.index[j];
          }
          const Where w = blocks.locate(spin, orb);
          if (w.sign != 0) l[3 * w.block + c].add(static_cast<std::int64_t>(r) * nc + k, w.offset, w.sign);
        }
    }
    return l;
  });
  // Each rank's part into whole copies of y's blocks, summed over the ranks into place.
  for (std::size_t b = 0; b < blocks.keys().size(); ++b) {
    const Shape& shape = blocks.shape(static_cast<int>(b));
    if (shape.packed_size() == 0) continue;
    Tensor part(*ctx_, shape, Mapping::replicated(ctx_->nranks()), name_ + " (part)");
    for (int c = 0; c < 3; ++c) (*lists)[3 * b + c].apply(alpha, data_[c].data(), part.data().data());
    remap(part, y.write_block(blocks.keys()[b]), identity_perm(4), 1.0, true);
  }
  clock.record("pairs " + y.name() + "[" + labels + "] += " + name_, 0.0, 0.0);
}

std::vector<double> PairMatrix::gather(int c) const {
  const int nc = count(1, col_class_[c]);
  std::vector<double> m(static_cast<std::size_t>(count(0, c)) * nc, 0.0);
  const auto [r0, r1] = own_rows(c);
  for (int r = r0; r < r1; ++r)
    std::copy_n(data_[c].begin() + static_cast<std::ptrdiff_t>(r) * nc, nc,
                m.begin() + static_cast<std::ptrdiff_t>(row0(c) + r) * nc);
  ctx_->comm().allreduce_sum(m.data(), m.size());
  return m;
}

}  // namespace cyclocc::tensor
