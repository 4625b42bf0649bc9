// How much memory the ranks may still use, for the log's memory warnings
// (run_memory.hpp): the node's and the batch job's limits.
#pragma once

#include <string>

namespace cyclocc::app {

// Bytes this process and those that share its node and its cgroups may
// still allocate together: the least of the node's MemAvailable
// (PROC/meminfo) and the room left under the memory limit of its cgroup and
// of every ancestor (cgroup v2: memory.max - (memory.current - inactive_file);
// v1: memory.limit_in_bytes - (memory.usage_in_bytes - total_inactive_file),
// under CGROUP_FS/memory; inactive file cache is reclaimed before the limit
// is hit), found through PROC/self/cgroup. Infinity if none can be read. The
// folders are parameters for tests.
double available_bytes(const std::string& proc = "/proc", const std::string& cgroup_fs = "/sys/fs/cgroup");

// One rank's share of `available` bytes (available_bytes()) on a node of
// `physical` bytes that `ranks_on_node` ranks share: the node's memory
// bounds it when no limit could be read (available is infinite).
double share_per_rank(double available, double physical, int ranks_on_node);

}  // namespace cyclocc::app
