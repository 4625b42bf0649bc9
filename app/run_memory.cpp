#include "app/run_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "app/memory.hpp"

namespace cyclocc::app {

namespace {
constexpr double kMB = 1048576;
}  // namespace

double physical_bytes() {
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
}

double least_share_per_rank(RunContext& ctx) {
  const double mine = share_per_rank(available_bytes(), physical_bytes(), ctx.comm.ranks_on_this_node());
  return -ctx.comm.allreduce_max(-mine);
}

double peak_resident_mb(const par::Comm& comm) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);  // ru_maxrss: kilobytes on Linux
  return static_cast<double>(comm.allreduce_max(static_cast<std::int64_t>(usage.ru_maxrss))) / 1024.0;
}

void report_transform_memory(RunContext& ctx, const chem::Basis& basis, const chem::ActiveSpace& space,
                             bool restricted, cc::VvvvNeeds needs) {
  constexpr double kProgramBytes = 100.0 * kMB;
  const double need = chem::transform_peak_bytes(basis.nbf, space, restricted, needs, ctx.comm.size()) + kProgramBytes;
  const double least = least_share_per_rank(ctx);
  ctx.log.print("MO transform: about %.0f MB per rank at its peak (estimate, docs/methods.md)\n", need / kMB);
  if (need > least)
    ctx.log.print("warning: the MO transform needs about %.0f MB per rank, but a node has only %.0f MB available "
                  "for each of its ranks: the run may be killed for lack of memory (the need per rank falls as 1/P "
                  "with more nodes)\n",
                  need / kMB, least / kMB);
}

void report_diis_memory(RunContext& ctx, const std::string& label, double amplitude_words, int diis, int stored) {
  if (stored >= diis) return;
  const double pair_mb = 2 * 8 * amplitude_words / kMB;
  const double more_mb = (diis - stored) * pair_mb;
  const double peak_mb = peak_resident_mb(ctx.comm);
  const double least_mb = least_share_per_rank(ctx) / kMB;
  ctx.log.print("%s: peak memory %.0f MB per rank after %d iterations; the DIIS history (%d of %d vector pairs so "
                "far, %.1f MB per rank each) adds up to %.1f MB more: about %.0f MB at the peak\n",
                label.c_str(), peak_mb, stored, stored, diis, pair_mb, more_mb, peak_mb + more_mb);
  if (more_mb > least_mb)
    ctx.log.print("warning: the DIIS history needs about %.0f MB more per rank, but a node has only %.0f MB "
                  "available for each of its ranks: the run may be killed for lack of memory (cc.diis sets the "
                  "number of pairs kept; the need per rank falls as 1/P with more nodes)\n",
                  more_mb, least_mb);
}

}  // namespace cyclocc::app
