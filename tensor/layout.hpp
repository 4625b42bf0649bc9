// Distribution of a packed tensor over the ranks.
//
// A Mapping lays a processor grid (p_0 x p_1 x ... = P ranks) over the tensor:
// grid dimension d either distributes a range of index positions (a union of
// whole symmetric groups) or replicates the tensor along d. A rank with grid
// coordinate c_d owns the elements whose index sum over the range is congruent
// to c_d modulo p_d (several grid dimensions on one range split one combined
// phase). For a range that is a single index this is CTF's cyclic layout. For a
// symmetric group it is CTF's virtualised cyclic blocking with the same phase
// on every index of the group: block (r_1..r_k), r_i = x_i mod p, belongs to the
// rank with coordinate (r_1+...+r_k) mod p. The sum is invariant under
// permutations within the group, so (un)packing and antisymmetrising a group
// never moves data between ranks.
//
// Locally a rank stores its elements in canonical order: row-major over
// components (a mapped range, or an unmapped group), each component holding
// its owned packed tuples in lexicographic order. So the local array is the
// global packed array restricted to the rank, with no padding.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensor/shape.hpp"

namespace cyclocc::tensor {

struct Range {
  int first = 0;
  int last = 0;  // one past the end; first == last means "replicated"
  bool empty() const { return first == last; }
  bool operator==(const Range& o) const { return first == o.first && last == o.last; }
};

struct Mapping {
  std::vector<int> grid;     // grid dimension sizes, product = number of ranks
  std::vector<Range> range;  // per grid dimension: the positions it distributes

  static Mapping replicated(int nranks);
  // All ranks along the index positions [first, last) (a union of whole groups).
  static Mapping along(int nranks, int first, int last);
  // Whether every rank holds the whole tensor.
  bool whole_on_every_rank() const;
  int nranks() const;
  // Drops grid dimensions of size 1 so equal layouts compare equal.
  Mapping normalized() const;
  bool operator==(const Mapping& o) const { return grid == o.grid && range == o.range; }
  std::string str() const;   // e.g. "2@[0,2) x 2@*"
};

// Throws std::invalid_argument unless every range is a union of whole groups
// of `shape` and ranges are pairwise equal or disjoint.
void check_mapping(const Shape& shape, const Mapping& m);

// All packed tuples of a run of consecutive groups, in lexicographic order,
// with the residue of their index sum modulo `phase` and their position in
// the list of tuples of the same residue.
struct ComponentTable {
  int width = 0;
  int phase = 1;
  std::vector<Group> groups;               // positions relative to the run
  std::vector<std::int64_t> group_stride;  // tuple id = sum rank_g * stride_g
  std::int64_t count = 0;
  std::vector<int> tuples;                 // count x width
  std::vector<std::int32_t> residue;
  std::vector<std::int32_t> pos;
  std::vector<std::vector<std::int32_t>> members;  // per residue: tuple ids

  ComponentTable(std::vector<Group> groups, int phase);
  const int* tuple(std::int64_t id) const { return tuples.data() + id * width; }
  // Id of a packed tuple x (width values).
  std::int64_t id(const int* x) const;
};

struct Component {
  int first = 0;
  int last = 0;
  std::vector<int> dims;  // grid dimensions distributing this component
  int phase = 1;
  std::shared_ptr<const ComponentTable> table;
};

// The layout of one tensor (shape + mapping) as seen from every rank.
class Layout {
 public:
  Layout(Shape shape, Mapping map, int rank, const std::vector<std::shared_ptr<const ComponentTable>>& tables);

  const Shape& shape() const { return shape_; }
  const Mapping& mapping() const { return map_; }
  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  const std::vector<Component>& comps() const { return comps_; }

  // Grid coordinates of a rank, and the rank of coordinates.
  std::vector<int> coords(int rank) const;
  int rank_of(const std::vector<int>& coords) const;

  // Residue class of component c held by `rank`.
  int cls(int c, int rank) const;
  // Local extents and row-major strides of the components on `rank`.
  std::vector<std::int64_t> extents(int rank) const;
  std::vector<std::int64_t> strides(int rank) const;
  std::int64_t local_size(int rank) const;
  std::int64_t local_size() const { return local_size_; }
  const std::vector<std::int64_t>& extent() const { return extent_; }
  const std::vector<std::int64_t>& stride() const { return stride_; }

  // Tuple ids of component c stored on this rank, in local order.
  const std::vector<std::int32_t>& local_ids(int c) const;

  // Ranks holding the element whose component residues are `res` (one per
  // component, only mapped components matter). Several if replicated.
  std::vector<int> holders(const std::vector<int>& res) const;
  // Whether this rank is the first of the replicas of its elements (for
  // reductions that must count every element once).
  bool first_replica() const;
  // Grid dimensions that replicate the tensor.
  std::vector<int> replicated_dims() const;
  // rank_parts()[c][res]: the part of the holder's rank number fixed by
  // component c having residue res (the holder with replicated coordinates 0
  // is the sum of the parts); replica_offsets(): what to add to reach every
  // replica, ascending.
  std::vector<std::vector<int>> rank_parts() const;
  std::vector<int> replica_offsets() const;
  // The component index of every position.
  std::vector<int> comp_of_position() const;

 private:
  Shape shape_;
  Mapping map_;
  int rank_ = 0;
  int nranks_ = 1;
  std::vector<int> grid_stride_;
  std::vector<Component> comps_;
  std::vector<std::int64_t> extent_, stride_;
  std::int64_t local_size_ = 0;
};

// Splits positions into components for a shape and mapping (tables not filled).
std::vector<Component> components_of(const Shape& shape, const Mapping& m);
// The groups of a component, relative to its first position.
std::vector<Group> component_groups(const Shape& shape, const Component& c);

}  // namespace cyclocc::tensor
