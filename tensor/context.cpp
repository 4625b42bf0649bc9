#include "tensor/context.hpp"

#include <algorithm>
#include <cstdlib>

#include "parallel/comm.hpp"
#include "tensor/contract.hpp"

namespace cyclocc::tensor {

Context::Context(const par::Comm& comm)
    : comm_(comm),
      rank_(comm.rank()),
      nranks_(comm.size()),
      poison_unset_(std::getenv("CYCLOCC_POISON_UNSET") != nullptr) {}
Context::~Context() = default;

double Context::sum_over_ranks(double x) const { return comm_.allreduce_sum(x); }

bool Context::reserve_program_bytes(std::int64_t bytes) {
  if (bytes > 0 && program_bytes_ + bytes > program_budget_) return false;
  program_bytes_ += bytes;
  return true;
}

bool Context::reserve_local_list_bytes(std::int64_t bytes) {
  constexpr std::int64_t kLocalListBudget = std::int64_t{64} << 20;
  if (local_list_bytes_ + bytes > kLocalListBudget) return false;
  local_list_bytes_ += bytes;
  return true;
}

namespace {
std::string groups_key(const std::vector<Group>& groups, int phase) {
  std::string k = std::to_string(phase) + ":";
  for (const Group& g : groups)
    k += std::to_string(g.first) + "," + std::to_string(g.size) + "," + std::to_string(int(g.sym)) + "," +
         std::to_string(g.len) + ";";
  return k;
}
}  // namespace

std::shared_ptr<const ComponentTable> Context::table(const std::vector<Group>& groups, int phase) {
  const std::string key = groups_key(groups, phase);
  auto it = tables_.find(key);
  if (it != tables_.end()) return it->second;
  auto t = std::make_shared<const ComponentTable>(groups, phase);
  tables_[key] = t;
  return t;
}

std::shared_ptr<const Layout> Context::layout(const Shape& shape, const Mapping& map_in) {
  const Mapping map = map_in.normalized();
  // The key: the numbers of the shape and the mapping as raw bytes (cheaper
  // than their text, and looked up for every tensor made).
  std::string key;
  auto put = [&key](int v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(shape.order());
  for (int l : shape.lens) put(l);
  for (Sym s : shape.sym) put(static_cast<int>(s));
  for (std::size_t d = 0; d < map.grid.size(); ++d) {
    put(map.grid[d]);
    put(map.range[d].first);
    put(map.range[d].last);
  }
  auto it = layouts_.find(key);
  if (it != layouts_.end()) return it->second;
  check_mapping(shape, map);
  if (map.nranks() != nranks()) throw std::invalid_argument("layout: mapping for another number of ranks");
  std::vector<std::shared_ptr<const ComponentTable>> tables;
  for (const Component& c : components_of(shape, map)) tables.push_back(table(component_groups(shape, c), c.phase));
  auto l = std::make_shared<const Layout>(shape, map, rank(), tables);
  layouts_[key] = l;
  return l;
}

Mapping Context::default_mapping(const Shape& shape) const {
  // All ranks on the group with the most tuples when it has plenty per rank
  // (contractions map one group per matrix dimension, so a single grid
  // dimension lets them keep the tensor where it is). Otherwise factor P into
  // primes and give each prime to the group with the most tuples per current
  // phase, so the ranks hold nearly equal shares.
  Mapping m;
  {
    const auto groups = shape.groups();
    int best = -1;
    std::int64_t most = 0;
    for (std::size_t k = 0; k < groups.size(); ++k) {
      const std::int64_t c = group_count(groups[k].len, groups[k].size, groups[k].sym);
      if (c > most) most = c, best = static_cast<int>(k);
    }
    // A lone index that is long enough is preferred over a packed group:
    // contractions that keep it as a row or column index leave the tensor in
    // place, while a packed group is often split (unpacked) by them.
    int lone = -1;
    for (std::size_t k = 0; k < groups.size(); ++k)
      if (groups[k].size == 1 && groups[k].len >= 4 * nranks() &&
          (lone < 0 || groups[k].len > groups[lone].len))
        lone = static_cast<int>(k);
    if (lone >= 0) best = lone, most = groups[lone].len;
    if (nranks() == 1) return m;
    if (best >= 0 && most >= 4 * static_cast<std::int64_t>(nranks()))
      return Mapping::along(nranks(), groups[best].first, groups[best].first + groups[best].size);
  }
  int p = nranks();
  std::vector<int> primes;
  for (int f = 2; p > 1; ++f)
    while (p % f == 0) {
      primes.push_back(f);
      p /= f;
    }
  std::sort(primes.rbegin(), primes.rend());
  const auto groups = shape.groups();
  std::vector<double> share;
  for (const Group& g : groups) share.push_back(static_cast<double>(group_count(g.len, g.size, g.sym)));
  std::vector<int> phase(groups.size(), 1);
  for (int f : primes) {
    int best = -1;
    for (std::size_t k = 0; k < groups.size(); ++k)
      if (best < 0 || share[k] / phase[k] > share[best] / phase[best]) best = static_cast<int>(k);
    if (best < 0 || share[best] / phase[best] < f) {
      m.grid.push_back(f);  // too small to split: replicate along this factor
      m.range.push_back(Range{});
      continue;
    }
    phase[best] *= f;
    m.grid.push_back(f);
    m.range.push_back(Range{groups[best].first, groups[best].first + groups[best].size});
  }
  return m.normalized();
}

}  // namespace cyclocc::tensor
