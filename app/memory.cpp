#include "app/memory.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

namespace cyclocc::app {
namespace {

constexpr double kUnknown = std::numeric_limits<double>::infinity();

// MemAvailable of a meminfo file, in bytes.
double mem_available(const std::string& meminfo) {
  std::ifstream in(meminfo);
  for (std::string key; in >> key;) {
    double kb = 0;
    in >> kb;
    if (key == "MemAvailable:") return 1024 * kb;
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return kUnknown;
}

// The bytes of inactive file cache in a cgroup's memory.stat (v2:
// inactive_file; v1: total_inactive_file, or inactive_file), 0 if none: the
// kernel reclaims them before the limit is hit, so they are room (as
// container runtimes count a group's working set).
double inactive_file(const std::string& stat_file) {
  std::ifstream in(stat_file);
  double v1_total = -1, own = 0;
  for (std::string key; in >> key;) {
    double bytes = 0;
    in >> bytes;
    if (key == "total_inactive_file") v1_total = bytes;
    if (key == "inactive_file") own = bytes;
  }
  return v1_total >= 0 ? v1_total : own;
}

// The room left under the limits of the cgroup folder `dir` and of its
// ancestors down to `root` (files `limit` and `usage`, less the inactive
// file cache; a limit of "max", or no files, is no limit).
double room_in_cgroup(std::string dir, const std::string& root, const std::string& limit,
                      const std::string& usage) {
  double room = kUnknown;
  while (true) {
    std::ifstream l(dir + "/" + limit), u(dir + "/" + usage);
    double max = 0, current = 0;
    if (l >> max && u >> current)
      room = std::min(room, max - std::max(0.0, current - inactive_file(dir + "/memory.stat")));
    if (dir.size() <= root.size()) return room;
    dir.erase(dir.find_last_of('/'));
  }
}

bool lists_memory(const std::string& controllers) {
  std::stringstream list(controllers);
  for (std::string c; std::getline(list, c, ',');)
    if (c == "memory") return true;
  return false;
}

}  // namespace

double available_bytes(const std::string& proc, const std::string& cgroup_fs) {
  double room = mem_available(proc + "/meminfo");
  std::ifstream cgroups(proc + "/self/cgroup");
  // Lines "hierarchy:controllers:path"; cgroup v2's is "0::path".
  for (std::string line; std::getline(cgroups, line);) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string path = line.substr(b + 1);
    while (!path.empty() && path.back() == '/') path.pop_back();
    const std::string controllers = line.substr(a + 1, b - a - 1);
    if (line.compare(0, a, "0") == 0 && controllers.empty())
      room = std::min(room, room_in_cgroup(cgroup_fs + path, cgroup_fs, "memory.max", "memory.current"));
    else if (lists_memory(controllers))
      room = std::min(room, room_in_cgroup(cgroup_fs + "/memory" + path, cgroup_fs + "/memory",
                                           "memory.limit_in_bytes", "memory.usage_in_bytes"));
  }
  return room;
}

double share_per_rank(double available, double physical, int ranks_on_node) {
  return std::min(available, physical) / std::max(1, ranks_on_node);
}

}  // namespace cyclocc::app
