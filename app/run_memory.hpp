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

// After `stored` iterations of a CC method (`label`, e.g. "CCSD") whose DIIS
// keeps up to `diis` pairs of amplitude vectors (the amplitudes and their
// change, each `amplitude_words` on the largest rank): the peak so far, and
// what the pairs still to come add, as they are kept until the DIIS history
// is full. A warning where that is more than a node has available for each
// of its ranks. Nothing when the history is full already.
void report_diis_memory(RunContext& ctx, const std::string& label, double amplitude_words, int diis, int stored);

}  // namespace cyclocc::app
