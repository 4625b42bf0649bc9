#include "tensor/layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace cyclocc::tensor {

Mapping Mapping::replicated(int nranks) {
  Mapping m;
  m.grid = {nranks};
  m.range = {Range{}};
  return m.normalized();
}

Mapping Mapping::along(int nranks, int first, int last) {
  Mapping m;
  m.grid = {nranks};
  m.range = {Range{first, last}};
  return m.normalized();
}

bool Mapping::whole_on_every_rank() const {
  for (std::size_t d = 0; d < grid.size(); ++d)
    if (grid[d] > 1 && !range[d].empty()) return false;
  return true;
}

int Mapping::nranks() const {
  int p = 1;
  for (int g : grid) p *= g;
  return p;
}

Mapping Mapping::normalized() const {
  Mapping m;
  for (std::size_t d = 0; d < grid.size(); ++d) {
    if (grid[d] == 1) continue;
    m.grid.push_back(grid[d]);
    m.range.push_back(range[d]);
  }
  return m;
}

std::string Mapping::str() const {
  if (grid.empty()) return "1";
  std::string s;
  for (std::size_t d = 0; d < grid.size(); ++d) {
    if (d) s += " x ";
    s += std::to_string(grid[d]) + "@";
    s += range[d].empty() ? "*" : "[" + std::to_string(range[d].first) + "," + std::to_string(range[d].last) + ")";
  }
  return s;
}

void check_mapping(const Shape& shape, const Mapping& m) {
  if (m.grid.size() != m.range.size()) throw std::invalid_argument("mapping: grid and range differ in length");
  const auto groups = shape.groups();
  for (std::size_t d = 0; d < m.grid.size(); ++d) {
    const Range& r = m.range[d];
    if (m.grid[d] < 1) throw std::invalid_argument("mapping: grid dimension < 1");
    if (r.empty()) continue;
    if (r.first < 0 || r.last > shape.order() || r.first > r.last)
      throw std::invalid_argument("mapping: range outside the tensor");
    bool start = false, end = false;
    for (const Group& g : groups) {
      start |= g.first == r.first;
      end |= g.first + g.size == r.last;
    }
    if (!start || !end) throw std::invalid_argument("mapping: range splits a symmetric group");
    for (std::size_t e = 0; e < d; ++e) {
      const Range& q = m.range[e];
      if (q.empty() || q == r) continue;
      if (q.first < r.last && r.first < q.last) throw std::invalid_argument("mapping: overlapping ranges");
    }
  }
}

ComponentTable::ComponentTable(std::vector<Group> groups_, int phase_) : phase(phase_), groups(std::move(groups_)) {
  width = 0;
  for (const Group& g : groups) width += g.size;
  group_stride.assign(groups.size(), 1);
  count = 1;
  for (int k = static_cast<int>(groups.size()) - 1; k >= 0; --k) {
    group_stride[k] = count;
    count *= group_count(groups[k].len, groups[k].size, groups[k].sym);
  }
  // Tuples of the run: the row-major product of each group's packed tuples.
  std::vector<std::vector<int>> per_group;
  for (const Group& g : groups) per_group.push_back(group_tuples(g.len, g.size, g.sym));
  tuples.resize(static_cast<std::size_t>(count * width));
  residue.resize(static_cast<std::size_t>(count));
  pos.resize(static_cast<std::size_t>(count));
  members.assign(static_cast<std::size_t>(phase), {});
  for (std::int64_t id = 0; id < count; ++id) {
    int* x = tuples.data() + id * width;
    std::int64_t rest = id;
    long sum = 0;
    for (std::size_t k = 0; k < groups.size(); ++k) {
      const std::int64_t r = rest / group_stride[k];
      rest %= group_stride[k];
      const Group& g = groups[k];
      for (int t = 0; t < g.size; ++t) {
        x[g.first + t] = per_group[k][r * g.size + t];
        sum += x[g.first + t];
      }
    }
    const int res = static_cast<int>(sum % phase);
    residue[id] = res;
    pos[id] = static_cast<std::int32_t>(members[res].size());
    members[res].push_back(static_cast<std::int32_t>(id));
  }
}

std::int64_t ComponentTable::id(const int* x) const {
  std::int64_t k = 0;
  for (std::size_t g = 0; g < groups.size(); ++g)
    k += group_rank(x + groups[g].first, groups[g].size, groups[g].len, groups[g].sym) * group_stride[g];
  return k;
}

std::vector<Component> components_of(const Shape& shape, const Mapping& m) {
  std::vector<Component> comps;
  for (const Group& g : shape.groups()) {
    if (!comps.empty() && g.first < comps.back().last) continue;  // inside a mapped range already
    Component c;
    c.first = g.first;
    c.last = g.first + g.size;
    for (std::size_t d = 0; d < m.grid.size(); ++d) {
      const Range& r = m.range[d];
      if (!r.empty() && r.first <= g.first && g.first < r.last) {
        c.first = r.first;
        c.last = r.last;
        c.dims.push_back(static_cast<int>(d));
        c.phase *= m.grid[d];
      }
    }
    comps.push_back(c);
  }
  return comps;
}

std::vector<Group> component_groups(const Shape& shape, const Component& c) {
  std::vector<Group> out;
  for (Group g : shape.groups()) {
    if (g.first >= c.first && g.first < c.last) {
      g.first -= c.first;
      out.push_back(g);
    }
  }
  return out;
}

Layout::Layout(Shape shape, Mapping map, int rank, const std::vector<std::shared_ptr<const ComponentTable>>& tables)
    : shape_(std::move(shape)), map_(std::move(map)), rank_(rank) {
  nranks_ = map_.nranks();
  grid_stride_.assign(map_.grid.size(), 1);
  for (std::size_t d = 1; d < map_.grid.size(); ++d) grid_stride_[d] = grid_stride_[d - 1] * map_.grid[d - 1];
  comps_ = components_of(shape_, map_);
  if (tables.size() != comps_.size()) throw std::logic_error("layout: one table per component expected");
  for (std::size_t c = 0; c < comps_.size(); ++c) comps_[c].table = tables[c];
  extent_ = extents(rank_);
  stride_ = strides(rank_);
  local_size_ = local_size(rank_);
}

std::vector<int> Layout::coords(int rank) const {
  std::vector<int> c(map_.grid.size());
  for (std::size_t d = 0; d < map_.grid.size(); ++d) c[d] = (rank / grid_stride_[d]) % map_.grid[d];
  return c;
}

int Layout::rank_of(const std::vector<int>& c) const {
  int r = 0;
  for (std::size_t d = 0; d < c.size(); ++d) r += c[d] * grid_stride_[d];
  return r;
}

int Layout::cls(int c, int rank) const {
  const Component& comp = comps_[c];
  int res = 0, mult = 1;
  for (int d : comp.dims) {
    res += ((rank / grid_stride_[d]) % map_.grid[d]) * mult;
    mult *= map_.grid[d];
  }
  return res;
}

std::vector<std::int64_t> Layout::extents(int rank) const {
  std::vector<std::int64_t> e(comps_.size());
  for (std::size_t c = 0; c < comps_.size(); ++c)
    e[c] = static_cast<std::int64_t>(comps_[c].table->members[cls(static_cast<int>(c), rank)].size());
  return e;
}

std::vector<std::int64_t> Layout::strides(int rank) const {
  const auto e = extents(rank);
  std::vector<std::int64_t> s(e.size(), 1);
  for (int c = static_cast<int>(e.size()) - 2; c >= 0; --c) s[c] = s[c + 1] * e[c + 1];
  return s;
}

std::int64_t Layout::local_size(int rank) const {
  std::int64_t n = 1;
  for (std::int64_t e : extents(rank)) n *= e;
  return n;
}

const std::vector<std::int32_t>& Layout::local_ids(int c) const {
  return comps_[c].table->members[cls(c, rank_)];
}

std::vector<int> Layout::replicated_dims() const {
  std::vector<int> dims;
  for (std::size_t d = 0; d < map_.grid.size(); ++d)
    if (map_.range[d].empty()) dims.push_back(static_cast<int>(d));
  return dims;
}

std::vector<int> Layout::holders(const std::vector<int>& res) const {
  std::vector<int> base(map_.grid.size(), 0);
  for (std::size_t c = 0; c < comps_.size(); ++c) {
    int r = res[c];
    for (int d : comps_[c].dims) {
      base[d] = r % map_.grid[d];
      r /= map_.grid[d];
    }
  }
  std::vector<int> out{rank_of(base)};
  for (int d : replicated_dims()) {
    std::vector<int> more;
    for (int r : out)
      for (int k = 0; k < map_.grid[d]; ++k) more.push_back(r + k * grid_stride_[d]);
    out.swap(more);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::vector<int>> Layout::rank_parts() const {
  std::vector<std::vector<int>> parts(comps_.size());
  for (std::size_t c = 0; c < comps_.size(); ++c) {
    parts[c].assign(comps_[c].phase, 0);
    for (int res = 0; res < comps_[c].phase; ++res) {
      int r = res, part = 0;
      for (int d : comps_[c].dims) {
        part += (r % map_.grid[d]) * grid_stride_[d];
        r /= map_.grid[d];
      }
      parts[c][res] = part;
    }
  }
  return parts;
}

std::vector<int> Layout::comp_of_position() const {
  std::vector<int> owner(shape_.order(), -1);
  for (std::size_t c = 0; c < comps_.size(); ++c)
    for (int p = comps_[c].first; p < comps_[c].last; ++p) owner[p] = static_cast<int>(c);
  return owner;
}

std::vector<int> Layout::replica_offsets() const {
  std::vector<int> off{0};
  for (int d : replicated_dims()) {
    std::vector<int> more;
    for (int o : off)
      for (int k = 0; k < map_.grid[d]; ++k) more.push_back(o + k * grid_stride_[d]);
    off.swap(more);
  }
  std::sort(off.begin(), off.end());
  return off;
}

bool Layout::first_replica() const {
  const auto c = coords(rank_);
  for (int d : replicated_dims())
    if (c[d] != 0) return false;
  return true;
}

}  // namespace cyclocc::tensor
