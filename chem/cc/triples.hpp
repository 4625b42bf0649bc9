// The (T) correction of Raghavachari, Trucks, Pople and Head-Gordon,
// Chem. Phys. Lett. 157, 479 (1989), on converged CCSD amplitudes, for RHF
// and (through the same spin-orbital formula on canonical UHF orbitals, as
// in Watts, Gauss and Bartlett, J. Chem. Phys. 98, 8718 (1993)) UHF references.
#pragma once

#include <functional>

#include "chem/cc/amplitudes.hpp"
#include "chem/cc/mo_integrals.hpp"

namespace cyclocc::cc {

// (triples or batches done, their total); see TriplesOptions::progress.
using TriplesProgress = std::function<void(long done, long total)>;

struct TriplesOptions {
  // Occupied orbitals (per spin) in each batch of the first index; 0: one
  // per rank (the ranks share a batch along its first index).
  int window = 0;
  // One occupied triple at a time on local copies (triples_rhf.cpp for
  // restricted references, triples_uhf.cpp otherwise); false: the windowed
  // path on the spin layer (their twin in the tests).
  bool per_triple = true;
  // If set, called on every rank at the same points, about 100 times in all
  // (after whole rounds of triples, one per rank, or after each batch of
  // the windowed path) and once at the end: a collective point where the
  // caller may report progress or stop the run by throwing.
  TriplesProgress progress;
};

// E(T). Never stores the whole T3: the triples are built one batch of the
// first occupied index at a time (memory about v^3 o^2 window / 12 per batch,
// shared by the ranks).
double triples_correction(const MoIntegrals& mo, const Amplitudes& t, const TriplesOptions& opt = {});

// The words each rank holds for the per-triple kernels (their local copies of
// the integrals and amplitudes, and the v^3 work arrays): restricted
// o v^3 + o^3 v + 3 o^2 v^2 + o v + 2 v^3; unrestricted the same sums over
// the spin blocks (every spin-conserving pattern, <ov||vv> also once spread
// over the ranks while it is unpacked) and 3 v^3.
double per_triple_words(const SpinDims& d, int nranks);

// E(T) of a restricted (closed-shell) reference in spatial orbitals, one
// occupied triple at a time (memory: the (ia|bd) integrals, o v^3 words, and
// 2 v^3 per rank).
double closed_shell_triples(const MoIntegrals& mo, const Amplitudes& t, const TriplesProgress& progress = {});

// E(T) for any reference, one occupied triple at a time in each spin case
// (memory: every unpacked spin block of <ov||vv>, about 6 o v^3 words, and
// 3 v^3 per rank).
double spin_case_triples(const MoIntegrals& mo, const Amplitudes& t, const TriplesProgress& progress = {});

}  // namespace cyclocc::cc
