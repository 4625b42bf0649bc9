// Per-operation statistics: flops, words moved, time, mapping and prediction.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cyclocc::par {

struct OpRecord {
  std::string name;             // e.g. "contract Z[abij]+=V[abef]*T[efij]"
  std::string mapping;          // the chosen mapping, human readable
  double flops = 0;             // useful floating-point operations on this rank
  std::int64_t words = 0;       // words sent + received by this rank
  std::int64_t predicted = -1;  // the cost model's words for this rank (-1: no model)
  double seconds = 0;
  double gemm_seconds = 0;      // of which in the local dgemm (contractions)
};

// Accumulates records by name; keeps the last one verbatim for inspection.
class Stats {
 public:
  struct Total {
    std::int64_t calls = 0;
    double flops = 0;
    std::int64_t words = 0;
    std::int64_t predicted = 0;
    double seconds = 0;
    double gemm_seconds = 0;
    std::string mapping;
  };
  void record(const OpRecord& r);
  const OpRecord& last() const { return last_; }
  const std::map<std::string, Total>& totals() const { return totals_; }
  void clear();
  // The top n operations by time with their GFLOP/s, one per line.
  std::string table(std::size_t n) const;
  // Whether contraction mappings are printed as they are chosen (rank 0 only).
  bool verbose = false;

 private:
  std::map<std::string, Total> totals_;
  OpRecord last_;
};

}  // namespace cyclocc::par
