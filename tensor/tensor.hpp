// A distributed tensor with packed symmetric groups (see layout.hpp).
//
// All member functions that touch other ranks' data are collective: every rank
// of the Context's communicator calls them in the same order.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "parallel/buffer.hpp"
#include "tensor/context.hpp"
#include "tensor/layout.hpp"
#include "tensor/shape.hpp"

namespace cyclocc::tensor {

class Tensor;
template <class T>
class IndexedT;

// A tensor's local elements (constructors zero them; see Tensor).
using TensorData = par::Buffer<double>;
using Indexed = IndexedT<Tensor>;

// Whether a tensor holds its prepared copies (Tensor::hold_prepared). Not
// copied: a copy is another tensor, which may change on its own.
struct HeldFlag {
  bool on = false;
  HeldFlag() = default;
  HeldFlag(const HeldFlag&) {}
  HeldFlag& operator=(const HeldFlag&) {
    on = false;
    return *this;
  }
};

class Tensor {
 public:
  // A zero tensor with the default mapping (or the given one).
  Tensor(Context& ctx, Shape shape, std::string name = "");
  Tensor(Context& ctx, Shape shape, const Mapping& map, std::string name = "");
  // A zero tensor with the same shape and mapping as `like`.
  static Tensor zeros_like(const Tensor& like, std::string name = "");
  // For the tensor layer's own temporaries that are written whole before they
  // are read (remapped() in remap.hpp, a dgemm with beta = 0): the elements start
  // unset instead of zero, which saves a pass over them.
  struct Unset {};
  Tensor(Context& ctx, Shape shape, const Mapping& map, Unset, std::string name = "");

  Context& ctx() const { return *ctx_; }
  const Shape& shape() const { return layout_->shape(); }
  const Mapping& mapping() const { return layout_->mapping(); }
  const Layout& layout() const { return *layout_; }
  std::shared_ptr<const Layout> layout_ptr() const { return layout_; }
  int order() const { return shape().order(); }
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  // Any write (through data() or a method) ends constancy and holding (below).
  TensorData& data() {
    written();
    zero_ = false;
    return data_;
  }
  const TensorData& data() const { return data_; }

  // A constant tensor (e.g. the integrals) keeps the copies of itself that
  // contractions prepare (unpacked, redistributed into their matrix layout),
  // so later contractions with the same plan reuse them instead of moving the
  // data again. Any write clears them.
  void set_constant(bool constant);
  bool constant() const { return constant_; }
  // A tensor that stays unchanged for a while (the amplitudes during one
  // residual) may hold its prepared copies as a constant one does, for
  // contractions with the same plan to reuse, while the planner still counts
  // its moves at every use (a constant's count once, which changes plans).
  // Released, or written, it drops them. Logically const:
  // the copies are a cache.
  void hold_prepared(bool hold) const;
  bool keeps_prepared() const { return constant_ || held_.on; }
  // The prepared copy stored under `key`, or null (constant and held tensors only).
  std::shared_ptr<const Tensor> prepared(const std::string& key) const;
  void keep_prepared(const std::string& key, std::shared_ptr<const Tensor> copy) const;

  // Moves the data into another mapping (collective).
  void redistribute(const Mapping& map);

  // Sparse access by canonical packed index (packed_index in shape.hpp), from
  // any rank. write: element = beta*element + alpha*value (a key may appear
  // several times, also on several ranks: contributions add). read: values of
  // the requested keys.
  void write(const std::vector<std::int64_t>& keys, const std::vector<double>& values, double alpha = 1.0,
             double beta = 0.0);
  std::vector<double> read(const std::vector<std::int64_t>& keys) const;

  // Deterministic uniform values in [-1, 1) from the seed and each element's
  // canonical index: the same tensor on any number of ranks.
  void fill_random(std::uint64_t seed);
  void set_zero();
  void scale(double alpha);
  // Calls f(global index tuple, value) for every local element.
  void transform(const std::function<void(const int* idx, double& v)>& f);
  void for_each(const std::function<void(const int* idx, double v)>& f) const;
  // Calls f(global index tuple, offset in data()) for every local element.
  void for_each_offset(const std::function<void(const int* idx, std::int64_t offset)>& f) const;

  // Sums over the packed (unique) elements; `o` may have another mapping.
  double dot(const Tensor& o) const;
  // dot(*o) for every o at once: one pass over this tensor (in cache-sized
  // chunks, each read once for all of them) and one reduction.
  std::vector<double> dots(const std::vector<const Tensor*>& others) const;
  double norm2() const;  // sqrt of dot(*this, *this)
  double max_abs() const;

  // Canonical packed order in contiguous slabs: rank r holds elements
  // [slab_begin(r), slab_begin(r+1)). For checkpoints.
  std::int64_t slab_begin(int rank) const;
  std::vector<double> export_slab() const;
  void import_slab(const std::vector<double>& slab);

  // A sub-range of the indices as a new tensor of shape `shape`: element y is
  // this tensor at offsets + y (read through its symmetry, with sign). Used to
  // cut occupied and virtual blocks out of an orbital index.
  Tensor slice(const std::vector<int>& offsets, const Shape& shape, std::string name = "") const;
  // The converse of a slice along the first index: each stored element of
  // this tensor whose first index a lies in [first, first + part's first
  // edge) gains alpha * part[a - first, ...]. This tensor's first two indices
  // are a pair (SY or AS: its packed tuples a <= b or a < b) or two unpaired
  // indices, and part has them unpaired; the other indices, their groups and
  // the mapping, which may not distribute the first two, are this tensor's.
  // Builds a large tensor a window of rows at a time. Local: nothing moves.
  void add_rows(double alpha, const Tensor& part, int first);

  // Every rank receives the whole packed array in canonical order (tests).
  std::vector<double> gather_all() const;

  // The k stored (packed) elements of largest magnitude, or all if fewer,
  // with their index tuples, by decreasing magnitude (equal ones by
  // ascending index tuple); the same list on every rank (collective).
  struct Element {
    std::vector<int> index;
    double value = 0;
  };
  std::vector<Element> largest(int k) const;

  // Index-string access for the expression layer: T["abij"]. Operands may be
  // const; only the left-hand side of =, += and -= is written.
  Indexed operator[](const std::string& labels);
  Indexed operator[](const std::string& labels) const;
  // The value of an order-0 tensor (held by every rank).
  double scalar() const;

 private:
  Context* ctx_;
  std::shared_ptr<const Layout> layout_;
  TensorData data_;
  bool zero_ = false;  // known to hold zeros only (so that scale(0) has nothing to do)
  std::string name_;
  bool constant_ = false;
  mutable HeldFlag held_;
  // Every write ends constancy and holding, and drops the prepared copies.
  void written() {
    if (constant_) set_constant(false);
    if (held_.on) hold_prepared(false);
  }
  mutable std::shared_ptr<std::map<std::string, std::shared_ptr<const Tensor>>> prepared_;
};

// splitmix64 hash: the random value of element k for a seed (in [-1, 1)).
double random_value(std::uint64_t seed, std::int64_t k);

}  // namespace cyclocc::tensor
