#include "app/run_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "app/memory.hpp"

namespace cyclocc::app {

namespace {

constexpr double kMB = 1048576;

// This process's peak resident set size so far, MB.
double own_peak_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);  // ru_maxrss: kilobytes on Linux
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// This process's resident set size now, MB (0 if /proc cannot be read).
double resident_mb() {
  std::ifstream statm("/proc/self/statm");
  double pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return resident * static_cast<double>(sysconf(_SC_PAGE_SIZE)) / kMB;
}

}  // namespace

double physical_bytes() {
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
}

double least_share_per_rank(RunContext& ctx) {
  const double mine = share_per_rank(available_bytes(), physical_bytes(), ctx.comm.ranks_on_this_node());
  return -ctx.comm.allreduce_max(-mine);
}

double peak_resident_mb(const par::Comm& comm) { return comm.allreduce_max(own_peak_mb()); }

void report_transform_memory(RunContext& ctx, const chem::Basis& basis, const chem::ActiveSpace& space,
                             bool restricted, cc::VvvvNeeds needs) {
  constexpr double kProgramBytes = 100.0 * kMB;
  const double need = chem::transform_peak_bytes(basis.nbf, space, restricted, needs, ctx.comm.size()) + kProgramBytes;
  const double least = least_share_per_rank(ctx);
  ctx.log.print("MO transform: about %.0f MB per rank at its peak (estimate, docs/methods.md)\n", need / kMB);
  if (need > least)
    warn_short_of_memory(ctx, "the MO transform needs about", need / kMB, "per rank", least / kMB,
                         " (the need per rank falls as 1/P with more nodes)");
}

void warn_short_of_memory(const RunContext& ctx, const char* before, double need_mb, const char* after,
                          double least_mb, const char* hint) {
  ctx.log.warning("%s %.0f MB %s, but a node has only %.0f MB available for each of its ranks: the run may be "
                  "killed for lack of memory%s\n",
                  before, need_mb, after, least_mb, hint);
}

void report_diis_memory(RunContext& ctx, const std::string& label, double pair_words, int held, int full) {
  // Rounded as printed, so that the printed numbers add up.
  const double peak_mb = std::round(peak_resident_mb(ctx.comm));
  const double pair_mb = std::round(100 * 8 * pair_words / kMB) / 100;
  const int more = std::max(0, full - held);
  const double more_mb = more * pair_mb;
  // Each rank's own peak, grown by the pairs still to come, less what it
  // holds now (the residual's temporaries are freed between iterations).
  const double need_mb = ctx.comm.allreduce_max(own_peak_mb() + more_mb - resident_mb());
  const double least_mb = least_share_per_rank(ctx) / kMB;
  if (full == 0)
    ctx.log.print("%s: %.0f MB per rank (no DIIS)\n", label.c_str(), peak_mb);
  else if (more == 0)
    ctx.log.print("%s: %.0f MB per rank, with the DIIS history full (%d vector pairs)\n", label.c_str(), peak_mb,
                  held);
  else
    ctx.log.print("%s: %.0f MB per rank, with %d DIIS vector pairs of %.2f MB per rank held; with %d held, up to "
                  "about %.0f MB\n",
                  label.c_str(), peak_mb, held, pair_mb, full, peak_mb + more_mb);
  if (need_mb > least_mb)
    warn_short_of_memory(ctx, "the CC iterations may need up to", need_mb, "more per rank than they hold now",
                         least_mb,
                         " (cc.diis sets the number of DIIS vector pairs held; the need per rank falls as 1/P with "
                         "more nodes)");
}

}  // namespace cyclocc::app
