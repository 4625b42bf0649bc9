#include "parallel/comm.hpp"
#include "tensor/tensor.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <ranges>
#include <stdexcept>

#include "tensor/contract.hpp"
#include "tensor/expr.hpp"
#include "tensor/remap.hpp"

namespace cyclocc::tensor {

double random_value(std::uint64_t seed, std::int64_t k) {
  // splitmix64 (Steele, Lea, Flood 2014) of the seed and the element index.
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(k) + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

Tensor::Tensor(Context& ctx, Shape shape, std::string name)
    : Tensor(ctx, shape, ctx.default_mapping(shape), std::move(name)) {}

Tensor::Tensor(Context& ctx, Shape shape, const Mapping& map, std::string name)
    : ctx_(&ctx), layout_(ctx.layout(shape, map)), name_(std::move(name)) {
  data_.assign(static_cast<std::size_t>(layout_->local_size()), 0.0);
  zero_ = true;
}

Tensor::Tensor(Context& ctx, Shape shape, const Mapping& map, Unset, std::string name)
    : ctx_(&ctx), layout_(ctx.layout(shape, map)), data_(static_cast<std::size_t>(layout_->local_size())),
      name_(std::move(name)) {
  if (ctx.poison_unset()) std::fill(data_.begin(), data_.end(), std::numeric_limits<double>::quiet_NaN());
}

Tensor Tensor::zeros_like(const Tensor& like, std::string name) {
  return Tensor(like.ctx(), like.shape(), like.mapping(), std::move(name));
}

void Tensor::redistribute(const Mapping& map) {
  if (map.normalized() == mapping()) return;
  written();
  const auto t0 = std::chrono::steady_clock::now();
  const par::Comm& comm = ctx().comm();
  const std::int64_t w0 = comm.words_sent() + comm.words_received();
  Tensor y = remapped(*this, shape(), map, identity_perm(order()), name_);
  layout_ = y.layout_;
  data_.swap(y.data_);
  par::OpRecord rec;
  rec.name = "redistribute " + (name_.empty() ? std::string("?") : name_);
  rec.mapping = map.str();
  rec.words = comm.words_sent() + comm.words_received() - w0;
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  comm.stats().record(rec);
}

namespace {

// Walks the local elements with their global index tuple.
template <class F>
void walk_indices(const Layout& L, F&& f) {
  const int K = static_cast<int>(L.comps().size());
  const std::int64_t n = L.local_size();
  if (n == 0) return;
  int x[kMaxOrder] = {0};
  std::vector<std::int64_t> u(K, 0);
  auto load = [&](int c) {
    const Component& comp = L.comps()[c];
    const int* t = comp.table->tuple(L.local_ids(c)[u[c]]);
    std::copy(t, t + (comp.last - comp.first), x + comp.first);
  };
  for (int c = 0; c < K; ++c) load(c);
  for (std::int64_t i = 0; i < n; ++i) {
    f(static_cast<const int*>(x), i);
    for (int c = K - 1; c >= 0; --c) {
      if (++u[c] < L.extent()[c]) {
        load(c);
        break;
      }
      u[c] = 0;
      load(c);
    }
  }
}

// Where the element with canonical index k lives, found by division alone: k
// splits into group ranks, which give each component's tuple id, and so its
// residue (the holders) and its position (the local offset). No unranking.
class KeyLocator {
 public:
  KeyLocator(const Layout& L, int rank)
      : L_(L), parts_(L.rank_parts()), replicas_(L.replica_offsets()), stride_(L.strides(rank)) {
    const auto groups = L.shape().groups();
    for (const Group& g : groups) count_.push_back(group_count(g.len, g.size, g.sym));
    for (std::size_t c = 0; c < L.comps().size(); ++c) {
      const Component& comp = L.comps()[c];
      for (std::size_t g = 0; g < groups.size(); ++g)
        if (groups[g].first >= comp.first && groups[g].first < comp.last) {
          comp_of_.push_back(static_cast<int>(c));
          std::int64_t st = 1;  // this group's stride inside the component's tuple ids
          for (std::size_t h = g + 1; h < groups.size() && groups[h].first < comp.last; ++h) st *= count_[h];
          group_stride_.push_back(st);
        }
    }
    id_.resize(L.comps().size());
    // The trailing groups of undistributed components: keys that differ only
    // in them have the same holders.
    run_ = 1;
    for (int g = static_cast<int>(count_.size()) - 1; g >= 0 && L.comps()[comp_of_[g]].phase == 1; --g)
      run_ *= count_[g];
  }
  // How many keys from k on (k the current key) share its holders.
  std::int64_t same_holders(std::int64_t k) const { return run_ - k % run_; }
  void decode(std::int64_t k) {
    std::fill(id_.begin(), id_.end(), 0);
    rank_.assign(count_.size(), 0);
    for (int g = static_cast<int>(count_.size()) - 1; g >= 0; --g) {
      rank_[g] = k % count_[g];
      id_[comp_of_[g]] += rank_[g] * group_stride_[g];
      k /= count_[g];
    }
  }
  // To key k + 1 after decode(k) (or step()), without divisions.
  void step() {
    for (int g = static_cast<int>(count_.size()) - 1; g >= 0; --g) {
      if (++rank_[g] < count_[g]) {
        id_[comp_of_[g]] += group_stride_[g];
        return;
      }
      id_[comp_of_[g]] -= (count_[g] - 1) * group_stride_[g];
      rank_[g] = 0;
    }
  }
  // The holder with replicated coordinates 0; all holders add replica offsets.
  int first_holder() const {
    int r = 0;
    for (std::size_t c = 0; c < id_.size(); ++c) r += parts_[c][L_.comps()[c].table->residue[id_[c]]];
    return r;
  }
  const std::vector<int>& replicas() const { return replicas_; }
  // The local offset on the rank given to the constructor (which must hold it).
  std::int64_t offset() const {
    std::int64_t off = 0;
    for (std::size_t c = 0; c < id_.size(); ++c) off += L_.comps()[c].table->pos[id_[c]] * stride_[c];
    return off;
  }

 private:
  const Layout& L_;
  std::vector<std::vector<int>> parts_;
  std::vector<int> replicas_;
  std::vector<std::int64_t> stride_, count_, group_stride_, id_, rank_;
  std::vector<int> comp_of_;
  std::int64_t run_ = 1;
};

}  // namespace

void Tensor::write(const std::vector<std::int64_t>& keys, const std::vector<double>& values, double alpha,
                   double beta) {
  if (keys.size() != values.size()) throw std::invalid_argument("write: keys and values differ in length");
  written();
  if (beta != 1.0) scale(beta);
  zero_ = false;
  const Layout& L = *layout_;
  const int P = ctx().nranks();
  const std::int64_t n = shape().packed_size();
  std::vector<std::vector<std::int64_t>> k_out(P);
  std::vector<std::vector<double>> v_out(P);
  KeyLocator at(L, ctx().rank());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] < 0 || keys[i] >= n) throw std::out_of_range("write: key outside the tensor");
    at.decode(keys[i]);
    const int first = at.first_holder();
    for (int o : at.replicas()) {
      k_out[first + o].push_back(keys[i]);
      v_out[first + o].push_back(values[i]);
    }
  }
  std::vector<std::int64_t> counts(P), kflat;
  std::vector<double> vflat;
  for (int r = 0; r < P; ++r) {
    counts[r] = static_cast<std::int64_t>(k_out[r].size());
    kflat.insert(kflat.end(), k_out[r].begin(), k_out[r].end());
    vflat.insert(vflat.end(), v_out[r].begin(), v_out[r].end());
  }
  std::vector<std::int64_t> rc;
  const auto kin = ctx().comm().alltoallv(kflat, counts, rc);
  const auto vin = ctx().comm().alltoallv(vflat, counts, rc);
  for (std::size_t i = 0; i < kin.size(); ++i) {
    at.decode(kin[i]);
    data_[at.offset()] += alpha * vin[i];
  }
}

std::vector<double> Tensor::read(const std::vector<std::int64_t>& keys) const {
  const Layout& L = *layout_;
  const int P = ctx().nranks(), me = ctx().rank();
  const std::int64_t n = shape().packed_size();
  std::vector<std::vector<std::int64_t>> k_out(P);
  std::vector<std::vector<std::size_t>> where(P);
  KeyLocator at(L, me);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] < 0 || keys[i] >= n) throw std::out_of_range("read: key outside the tensor");
    at.decode(keys[i]);
    const int first = at.first_holder();
    int r = first;
    for (int o : at.replicas())
      if (first + o == me) r = me;
    k_out[r].push_back(keys[i]);
    where[r].push_back(i);
  }
  std::vector<std::int64_t> counts(P), kflat, rc;
  for (int r = 0; r < P; ++r) {
    counts[r] = static_cast<std::int64_t>(k_out[r].size());
    kflat.insert(kflat.end(), k_out[r].begin(), k_out[r].end());
  }
  const auto kin = ctx().comm().alltoallv(kflat, counts, rc);
  std::vector<double> answer(kin.size());
  for (std::size_t i = 0; i < kin.size(); ++i) {
    at.decode(kin[i]);
    answer[i] = data_[at.offset()];
  }
  std::vector<std::int64_t> back;
  const auto vin = ctx().comm().alltoallv(answer, rc, back);
  std::vector<double> out(keys.size());
  std::size_t pos = 0;
  for (int r = 0; r < P; ++r)
    for (std::size_t i : where[r]) out[i] = vin[pos++];
  return out;
}

void Tensor::fill_random(std::uint64_t seed) {
  written();
  zero_ = false;
  const Shape& s = shape();
  walk_indices(*layout_, [&](const int* x, std::int64_t i) { data_[i] = random_value(seed, packed_index(s, x)); });
}

void Tensor::set_zero() {
  written();
  std::fill(data_.begin(), data_.end(), 0.0);
  zero_ = true;
}

void Tensor::scale(double alpha) {
  written();
  if (alpha == 0.0) return zero_ ? void() : set_zero();
  for (double& v : data_) v *= alpha;
}

void Tensor::transform(const std::function<void(const int*, double&)>& f) {
  written();
  zero_ = false;
  walk_indices(*layout_, [&](const int* x, std::int64_t i) { f(x, data_[i]); });
}

void Tensor::for_each(const std::function<void(const int*, double)>& f) const {
  walk_indices(*layout_, [&](const int* x, std::int64_t i) { f(x, data_[i]); });
}

void Tensor::for_each_offset(const std::function<void(const int*, std::int64_t)>& f) const {
  walk_indices(*layout_, f);
}

double Tensor::dot(const Tensor& o) const { return dots({&o})[0]; }

std::vector<double> Tensor::dots(const std::vector<const Tensor*>& others) const {
  std::vector<const Tensor*> y;
  std::vector<Tensor> moved;  // only those whose mappings differ
  moved.reserve(others.size());
  for (const Tensor* o : others) {
    if (!(o->shape() == shape())) throw std::invalid_argument("dot: shapes differ");
    if (o->mapping() == mapping()) {
      y.push_back(o);
      continue;
    }
    moved.push_back(remapped(*o, shape(), mapping(), identity_perm(order())));
    y.push_back(&moved.back());
  }
  // BLAS's ddot (several partial sums at once, where one running sum would
  // wait on the latency of every addition), over chunks of this tensor that
  // stay in cache while every other tensor's chunk is read against them.
  std::vector<double> s(y.size(), 0.0);
  if (layout_->first_replica()) {
    constexpr std::size_t kChunk = 4096;
    for (std::size_t i = 0; i < data_.size(); i += kChunk) {
      const auto n = static_cast<int>(std::min(kChunk, data_.size() - i));
      for (std::size_t j = 0; j < y.size(); ++j) s[j] += cblas_ddot(n, data_.data() + i, 1, y[j]->data_.data() + i, 1);
    }
  }
  ctx().comm().allreduce_sum(s.data(), s.size());
  return s;
}

double Tensor::norm2() const { return std::sqrt(dot(*this)); }

double Tensor::max_abs() const {
  double m = 0;
  for (double v : data_) m = std::max(m, std::abs(v));
  return ctx().comm().allreduce_max(m);
}

std::int64_t Tensor::slab_begin(int rank) const {
  const std::int64_t n = shape().packed_size();
  const int P = ctx().nranks();
  return rank * (n / P) + std::min<std::int64_t>(rank, n % P);
}

namespace {

// Canonical index contribution of each local tuple of each component.
std::vector<std::vector<std::int64_t>> canonical_parts(const Layout& L) {
  const auto groups = L.shape().groups();
  std::vector<std::int64_t> gstride(groups.size(), 1);
  for (int g = static_cast<int>(groups.size()) - 2; g >= 0; --g)
    gstride[g] = gstride[g + 1] * group_count(groups[g + 1].len, groups[g + 1].size, groups[g + 1].sym);
  std::vector<std::vector<std::int64_t>> parts(L.comps().size());
  for (std::size_t c = 0; c < L.comps().size(); ++c) {
    const Component& comp = L.comps()[c];
    for (std::int32_t id : L.local_ids(static_cast<int>(c))) {
      const int* x = comp.table->tuple(id);
      std::int64_t k = 0;
      for (std::size_t g = 0; g < groups.size(); ++g) {
        const Group& gr = groups[g];
        if (gr.first < comp.first || gr.first >= comp.last) continue;
        k += group_rank(x + gr.first - comp.first, gr.size, gr.len, gr.sym) * gstride[g];
      }
      parts[c].push_back(k);
    }
  }
  return parts;
}

}  // namespace

std::vector<double> Tensor::export_slab() const {
  const Layout& L = *layout_;
  const int P = ctx().nranks();
  std::vector<std::int64_t> counts(P, 0);
  if (L.first_replica()) {
    // Local order is canonical order: the data goes out as it is, each
    // destination's part sorted; only the counts are needed, and as the
    // canonical index grows with the local one, each slab's first local
    // element is found by bisection.
    const auto parts = canonical_parts(L);
    const auto n = static_cast<std::int64_t>(data_.size());
    auto key = [&](std::int64_t i) {  // the canonical index of local element i
      std::int64_t k = 0;
      for (int c = static_cast<int>(parts.size()) - 1; c >= 0; --c) {
        k += parts[c][static_cast<std::size_t>(i % L.extent()[c])];
        i /= L.extent()[c];
      }
      return k;
    };
    const auto local = std::views::iota(std::int64_t{0}, n);
    auto first_at_least = [&](std::int64_t k) {
      const auto it = std::ranges::partition_point(local, [&](std::int64_t i) { return key(i) < k; });
      return static_cast<std::int64_t>(std::ranges::distance(local.begin(), it));
    };
    std::int64_t from = 0;
    for (int r = 0; r < P; ++r) {
      const std::int64_t to = r + 1 < P ? first_at_least(slab_begin(r + 1)) : n;
      counts[r] = to - from;
      from = to;
    }
  }
  std::vector<std::int64_t> rc;
  const auto recv =
      ctx().comm().alltoallv(L.first_replica() ? std::span<const double>(data_) : std::span<const double>(), counts, rc);
  std::vector<std::int64_t> next(P, 0);
  for (int s = 1; s < P; ++s) next[s] = next[s - 1] + rc[s - 1];
  const std::int64_t b = slab_begin(ctx().rank()), e = slab_begin(ctx().rank() + 1);
  std::vector<double> slab(static_cast<std::size_t>(e - b));
  KeyLocator at(L, ctx().rank());
  for (std::int64_t k = b; k < e;) {  // a run of keys with one holder at a time
    at.decode(k);
    const std::int64_t n = std::min(e - k, at.same_holders(k));
    std::int64_t& from = next[at.first_holder()];
    std::copy(recv.begin() + from, recv.begin() + from + n, slab.begin() + (k - b));
    from += n;
    k += n;
  }
  return slab;
}

void Tensor::import_slab(const std::vector<double>& slab) {
  written();
  zero_ = false;
  const Layout& L = *layout_;
  const int P = ctx().nranks();
  const std::int64_t b = slab_begin(ctx().rank()), e = slab_begin(ctx().rank() + 1);
  if (static_cast<std::int64_t>(slab.size()) != e - b) throw std::invalid_argument("import_slab: wrong slab size");
  std::vector<std::vector<double>> out(P);
  KeyLocator at(L, ctx().rank());
  if (b < e) at.decode(b);
  for (std::int64_t k = b; k < e; ++k, at.step()) {
    const int holder = at.first_holder();
    for (int o : at.replicas()) out[holder + o].push_back(slab[k - b]);
  }
  std::vector<std::int64_t> counts(P), rc;
  std::vector<double> send;
  for (int r = 0; r < P; ++r) {
    counts[r] = static_cast<std::int64_t>(out[r].size());
    send.insert(send.end(), out[r].begin(), out[r].end());
  }
  const auto recv = ctx().comm().alltoallv(send, counts, rc);
  // Received in canonical order from each slab owner; local order is
  // canonical order, so walk it and take from the owner of each index.
  std::vector<std::int64_t> next(P, 0);
  for (int s = 1; s < P; ++s) next[s] = next[s - 1] + rc[s - 1];
  const auto parts = canonical_parts(L);
  std::vector<std::int64_t> u(L.comps().size(), 0);
  int owner = 0;
  for (std::size_t i = 0; i < data_.size(); ++i) {
    std::int64_t k = 0;
    for (std::size_t c = 0; c < u.size(); ++c) k += parts[c][u[c]];
    while (owner + 1 < P && k >= slab_begin(owner + 1)) ++owner;
    data_[i] = recv[next[owner]++];
    for (int c = static_cast<int>(u.size()) - 1; c >= 0; --c) {
      if (++u[c] < L.extent()[c]) break;
      u[c] = 0;
    }
  }
}

namespace {
// Every rank's `mine`, concatenated in rank order, on every rank.
std::vector<double> from_every_rank(const Context& ctx, const std::vector<double>& mine) {
  const int P = ctx.nranks();
  std::vector<std::int64_t> counts(P, static_cast<std::int64_t>(mine.size())), received;
  std::vector<double> send;
  for (int r = 0; r < P; ++r) send.insert(send.end(), mine.begin(), mine.end());
  const auto all = ctx.comm().alltoallv(send, counts, received);
  return std::vector<double>(all.begin(), all.end());
}

// Element x comes before y in a list of the largest.
bool comes_before(const Tensor::Element& x, const Tensor::Element& y) {
  const double ax = std::abs(x.value), ay = std::abs(y.value);
  return ax != ay ? ax > ay : x.index < y.index;
}
}  // namespace

std::vector<Tensor::Element> Tensor::largest(int k) const {
  const int n = order();
  // This rank's k first, as a heap whose front is the last of them; a
  // replicated tensor's elements from their first copy only.
  std::vector<Element> mine;
  if (layout_->first_replica() && k > 0) {
    for_each([&](const int* idx, double v) {
      const bool full = static_cast<int>(mine.size()) == k;
      if (full && std::abs(v) < std::abs(mine.front().value)) return;  // (the common case: no tuple built)
      Element e{std::vector<int>(idx, idx + n), v};
      if (!full) {
        mine.push_back(std::move(e));
        std::push_heap(mine.begin(), mine.end(), comes_before);
      } else if (comes_before(e, mine.front())) {
        std::pop_heap(mine.begin(), mine.end(), comes_before);
        mine.back() = std::move(e);
        std::push_heap(mine.begin(), mine.end(), comes_before);
      }
    });
  }
  // Every rank's to every rank, as doubles (value, then the indices).
  std::vector<double> packed;
  for (const Element& e : mine) {
    packed.push_back(e.value);
    packed.insert(packed.end(), e.index.begin(), e.index.end());
  }
  const std::vector<double> all = from_every_rank(ctx(), packed);
  std::vector<Element> merged;
  for (std::size_t at = 0; at < all.size(); at += n + 1) {
    Element e{std::vector<int>(n), all[at]};
    for (int p = 0; p < n; ++p) e.index[p] = static_cast<int>(all[at + 1 + p]);
    merged.push_back(std::move(e));
  }
  std::sort(merged.begin(), merged.end(), comes_before);
  if (static_cast<int>(merged.size()) > k) merged.resize(std::max(k, 0));
  return merged;
}

std::vector<double> Tensor::gather_all() const { return from_every_rank(ctx(), export_slab()); }

}  // namespace cyclocc::tensor

namespace cyclocc::tensor {
Indexed Tensor::operator[](const std::string& labels) { return Indexed(this, labels); }
Indexed Tensor::operator[](const std::string& labels) const { return Indexed(const_cast<Tensor*>(this), labels); }
}  // namespace cyclocc::tensor

namespace cyclocc::tensor {
double Tensor::scalar() const {
  if (order() != 0) throw std::invalid_argument("scalar: tensor has indices");
  return data_.empty() ? 0.0 : data_[0];
}
}  // namespace cyclocc::tensor

namespace cyclocc::tensor {
Tensor Tensor::slice(const std::vector<int>& offsets, const Shape& yshape, std::string name) const {
  if (static_cast<int>(offsets.size()) != order() || yshape.order() != order())
    throw std::invalid_argument("slice: offsets and shape must match the tensor's order");
  for (int i = 0; i < order(); ++i)
    if (offsets[i] < 0 || offsets[i] + yshape.lens[i] > shape().lens[i])
      throw std::invalid_argument("slice: range outside the tensor");
  Tensor y(ctx(), yshape, std::move(name));
  // Pull: every rank asks for the source elements of its own elements.
  std::vector<std::int64_t> keys;
  std::vector<int> sign;
  std::vector<std::int64_t> where;
  int x[kMaxOrder];
  walk_indices(y.layout(), [&](const int* yi, std::int64_t i) {
    for (int k = 0; k < order(); ++k) x[k] = offsets[k] + yi[k];
    const int s = canonicalize(shape(), x);
    if (s == 0) return;
    keys.push_back(packed_index(shape(), x));
    sign.push_back(s);
    where.push_back(i);
  });
  const auto vals = read(keys);
  for (std::size_t k = 0; k < vals.size(); ++k) y.data()[where[k]] = sign[k] * vals[k];
  return y;
}

namespace {

// Why part cannot be added to whole's rows (Tensor::add_rows), or "".
std::string rows_mismatch(const Tensor& whole, const Tensor& part, int first) {
  const Shape &w = whole.shape(), &p = part.shape();
  if (w.order() < 2 || p.order() != w.order()) return "part and tensor need the same order, at least 2";
  if (w.sym[1] != Sym::NS || p.sym[0] != Sym::NS || p.sym[1] != Sym::NS)
    return "the first two indices must be a pair of the tensor and unpaired in part";
  for (int i = 1; i < w.order(); ++i)
    if (p.lens[i] != w.lens[i] || (i >= 2 && p.sym[i] != w.sym[i])) return "part's other indices differ";
  if (first < 0 || first + p.lens[0] > w.lens[0]) return "rows outside the tensor";
  if (!(whole.mapping().normalized() == part.mapping().normalized())) return "part has another mapping";
  for (const Range& r : whole.mapping().range)
    if (!r.empty() && r.first < 2) return "the mapping distributes the first two indices";
  return "";
}

}  // namespace

void Tensor::add_rows(double alpha, const Tensor& part, int first) {
  if (const std::string why = rows_mismatch(*this, part, first); !why.empty())
    throw std::invalid_argument("add_rows: " + why);
  // Locally both are [leading tuples] x [the rest], the rest alike on every
  // rank (layout.hpp): this tensor's tuples (a, b) in lexicographic order,
  // part's (a - first, b) as a full matrix. For each a the stored b's are
  // consecutive in both.
  const Sym pair = shape().sym[0];
  const std::int64_t n1 = shape().lens[1], rows = part.shape().lens[0];
  const ComponentTable& lead = *layout().comps()[0].table;
  const std::int64_t tuples = pair == Sym::NS ? lead.count * n1 : lead.count;
  const std::int64_t rest = tuples == 0 ? 0 : layout().local_size() / tuples;
  if (part.layout().local_size() != rows * n1 * rest) throw std::logic_error("add_rows: local sizes differ");
  constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();  // cblas counts are int
  double* base = data().data();  // (a write: drops prepared copies and the zero mark)
  for (int a = first; a < first + rows; ++a) {
    const int b0 = pair == Sym::SY ? a : pair == Sym::AS ? a + 1 : 0;
    if (b0 >= n1 || rest == 0) continue;
    const int x[2] = {a, b0};
    const double* from = part.data().data() + ((a - first) * n1 + b0) * rest;
    double* to = base + (pair == Sym::NS ? a * n1 + b0 : lead.id(x)) * rest;
    for (std::int64_t i = 0, n = (n1 - b0) * rest; i < n; i += kMaxInt)
      cblas_daxpy(static_cast<int>(std::min(kMaxInt, n - i)), alpha, from + i, 1, to + i, 1);
  }
}

}  // namespace cyclocc::tensor

namespace cyclocc::tensor {
void Tensor::set_constant(bool constant) {
  constant_ = constant;
  prepared_.reset();
}

void Tensor::hold_prepared(bool hold) const {
  held_.on = hold;
  if (!constant_) prepared_.reset();
}

std::shared_ptr<const Tensor> Tensor::prepared(const std::string& key) const {
  if (!keeps_prepared() || !prepared_) return nullptr;
  auto it = prepared_->find(key);
  return it == prepared_->end() ? nullptr : it->second;
}

void Tensor::keep_prepared(const std::string& key, std::shared_ptr<const Tensor> copy) const {
  if (!keeps_prepared()) return;
  if (!prepared_) prepared_ = std::make_shared<std::map<std::string, std::shared_ptr<const Tensor>>>();
  (*prepared_)[key] = std::move(copy);
}
}  // namespace cyclocc::tensor
