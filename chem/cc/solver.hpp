// The coupled-cluster iteration: Jacobi updates with DIIS, until both the
// energy change and the 2-norm of the change of all amplitudes fall below
// the threshold (DESIGN.md §8). Knows nothing of MPI, files or printing:
// the caller's hook reports progress, writes checkpoints and asks to stop.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "chem/cc/amplitudes.hpp"

namespace cyclocc::cc {

struct SolverOptions {
  double convergence = 1e-9;
  int max_iterations = 100;
  int diis = 8;
};

struct Iteration {
  int number = 0;          // counting iterations done before a restart too
  double energy = 0;       // correlation energy
  double delta_e = 0;
  double delta_t = 0;      // sqrt(sum of squared amplitude changes), all blocks
  double delta_t3 = 0;     // the triples' share (CCSDT)
  double seconds = 0;
  // Words this rank holds for one pair of the DIIS history, the amplitudes
  // and their change as stored (restricted, the change also holds the
  // derived blocks its norm filled): the history's mean, or without DIIS
  // what a pair would hold.
  std::int64_t diis_pair_words = 0;
};

struct SolverResult {
  bool converged = false;
  bool stopped = false;    // the hook asked to stop
  // Iteration `diverged_at` gave amplitudes or an energy that are not finite
  // numbers: it is dropped (no hook call), and iterations, energy and the
  // amplitudes are those of the iteration before (or of the guess).
  int diverged_at = 0;
  int iterations = 0;
  double energy = 0;
  std::vector<double> seconds;  // wall time of each iteration of this run
};

// rhs(t, r): the right-hand sides of the amplitude equations (before dividing
// by the denominators). energy(t): the correlation energy.
struct Equations {
  std::function<void(const Amplitudes&, Amplitudes&)> rhs;
  std::function<double(const Amplitudes&)> energy;
};

// hook(t, it) after each iteration: returns true to stop (e.g. on a signal).
using IterationHook = std::function<bool(const Amplitudes&, const Iteration&)>;

// Iterates from t (the guess, updated in place). first_iteration continues the
// numbering of a restarted run; start_energy is the energy of the guess.
SolverResult solve(const Equations& eq, const MoIntegrals& mo, Amplitudes& t, const SolverOptions& opt,
                   int first_iteration, const IterationHook& hook);

}  // namespace cyclocc::cc
