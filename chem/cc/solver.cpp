#include "chem/cc/solver.hpp"

#include <chrono>
#include <cmath>
#include <optional>
#include <utility>

#include "chem/cc/diis.hpp"

namespace cyclocc::cc {

namespace {
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

SolverResult solve(const Equations& eq, const MoIntegrals& mo, Amplitudes& t, const SolverOptions& opt,
                   int first_iteration, const IterationHook& hook) {
  SolverResult res;
  AmplitudeDiis diis(opt.diis);
  double energy = eq.energy(t);
  res.iterations = first_iteration;
  res.energy = energy;
  Amplitudes next = Amplitudes::zeros_like(t), change = Amplitudes::zeros_like(t);
  const Amplitudes inverse = inverse_denominators(t, mo);
  for (int k = 0; k < opt.max_iterations; ++k) {
    const double t0 = now();
    eq.rhs(t, next);
    // Divided by the denominators; `change` gets the change of every
    // amplitude, before extrapolation (one pass, into storage kept from the
    // last iteration).
    next.multiply_and_difference(inverse, t, change);
    Iteration it;
    it.number = first_iteration + k + 1;
    it.delta_t3 = change.norm2_t3();
    const std::int64_t pair_words = next.local_words() + change.local_words();
    // The new amplitudes in next's storage (no copy); t's old storage takes
    // the next right-hand side. DIIS computes <change|change> among its
    // overlaps: no second pass for the norm.
    const std::optional<double> change2 = diis.extrapolate(next, change);
    it.delta_t = change2 ? std::sqrt(*change2) : change.norm2();
    it.diis_pair_words = diis.size() > 0 ? diis.local_words() / diis.size() : pair_words;
    std::swap(t, next);
    const double e = eq.energy(t);
    if (!std::isfinite(e) || !std::isfinite(it.delta_t)) {
      std::swap(t, next);  // back to the last finite amplitudes, untouched in next
      res.diverged_at = it.number;
      break;
    }
    it.energy = e;
    it.delta_e = e - energy;
    energy = e;
    it.seconds = now() - t0;
    res.iterations = it.number;
    res.energy = e;
    res.converged = std::abs(it.delta_e) < opt.convergence && it.delta_t < opt.convergence;
    const bool stop = hook && hook(t, it);
    res.seconds.push_back(now() - t0);  // including what the hook did (checkpoints)
    if (res.converged) break;
    if (stop) {
      res.stopped = true;
      break;
    }
  }
  return res;
}

}  // namespace cyclocc::cc
