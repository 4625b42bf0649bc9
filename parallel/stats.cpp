#include "parallel/stats.hpp"

#include <algorithm>
#include <cstdio>

namespace cyclocc::par {

void Stats::record(const OpRecord& r) {
  Total& t = totals_[r.name];
  t.calls += 1;
  t.flops += r.flops;
  t.words += r.words;
  if (r.predicted >= 0) t.predicted += r.predicted;
  t.seconds += r.seconds;
  t.gemm_seconds += r.gemm_seconds;
  t.mapping = r.mapping;
  last_ = r;
}

void Stats::clear() {
  totals_.clear();
  last_ = OpRecord{};
}

std::string Stats::table(std::size_t n) const {
  std::vector<std::pair<std::string, Total>> rows(totals_.begin(), totals_.end());
  Total all;
  for (const auto& [name, t] : rows) {
    all.calls += t.calls;
    all.flops += t.flops;
    all.words += t.words;
    all.seconds += t.seconds;
    all.gemm_seconds += t.gemm_seconds;
  }
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  if (rows.size() > n) rows.resize(n);
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%10s %7s %9s %6s %12s  %s\n", "seconds", "calls", "GFLOP/s", "dgemm", "words",
                "operation");
  out += line;
  for (const auto& [name, t] : rows) {
    double gf = t.seconds > 0 ? t.flops / t.seconds * 1e-9 : 0.0;
    const double share = t.seconds > 0 ? 100.0 * t.gemm_seconds / t.seconds : 0.0;
    const std::string how = t.mapping.empty() ? "" : "  {" + t.mapping + "}";
    std::snprintf(line, sizeof line, "%10.3f %7lld %9.2f %5.0f%% %12lld  %s%s\n", t.seconds,
                  static_cast<long long>(t.calls), gf, share, static_cast<long long>(t.words), name.c_str(),
                  how.c_str());
    out += line;
  }
  const double gf = all.seconds > 0 ? all.flops / all.seconds * 1e-9 : 0.0;
  std::snprintf(line, sizeof line, "%10.3f %7lld %9.2f %5.0f%% %12lld  all %zu operations (%.3g flops)\n",
                all.seconds, static_cast<long long>(all.calls), gf,
                all.seconds > 0 ? 100.0 * all.gemm_seconds / all.seconds : 0.0, static_cast<long long>(all.words),
                totals_.size(), all.flops);
  out += line;
  return out;
}

}  // namespace cyclocc::par
