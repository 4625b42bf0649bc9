// The run's memory reports (collective: every rank calls them alike): the MO
// transform's estimate before it starts, what the CC iterations' DIIS history
// still adds once they have started, the peak so far, and the shares of the
// node's memory that the ranks may use (app/memory.hpp).
#pragma once

#include <string>

#include "app/stages.hpp"
#include "chem/basis.hpp"
#include "chem/motransform.hpp"

namespace cyclocc::app {

// This machine's memory, bytes.
double physical_bytes();

// The least share of memory any rank may still use (app/memory.hpp: the
// node's MemAvailable and the job's cgroup limits, shared by the ranks on a
// node).
double least_share_per_rank(RunContext& ctx);

// The largest peak resident set size of the ranks so far, in MB.
double peak_resident_mb(const par::Comm& comm);

// The transform's estimated peak per rank (chem::transform_peak_bytes and
// about 100 MB for the program, its libraries and MPI), and a warning where a
// node has less memory available for each of its ranks.
void report_transform_memory(RunContext& ctx, const chem::Basis& basis, const chem::ActiveSpace& space,
                             bool restricted, cc::VvvvNeeds needs);

// The warning that a rank may need more memory than a node has available
// for each of its ranks: "warning: BEFORE NEED MB AFTER, but a node has only
// LEAST MB available for each of its ranks: the run may be killed for lack
// of memory" and the hint, if any (e.g. " (cc.diis sets ...)").
void warn_short_of_memory(const RunContext& ctx, const char* before, double need_mb, const char* after,
                          double least_mb, const char* hint = "");

// During a CC method's iterations: the peak so far, set with `held` pairs
// of amplitude vectors in the DIIS history (the amplitudes and their
// change, `pair_words` together on the largest rank), and the peak to
// expect with `full` pairs held (`label` starts the line, e.g. "CCSD: peak
// memory after 3 iterations"). A warning where a rank would need more than
// a node has available for each of its ranks: the expected peak less what
// it holds now.
void report_diis_memory(RunContext& ctx, const std::string& label, double pair_words, int held, int full);

}  // namespace cyclocc::app
