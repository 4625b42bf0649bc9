// DIIS for coupled-cluster amplitudes (Pulay 1980; Scuseria, Lee and Schaefer,
// Chem. Phys. Lett. 130, 236 (1986)): extrapolates the amplitudes from the last
// n iterates, with the change of all amplitudes (every block of T1, T2 and T3
// together, DESIGN.md §8) as the error vector.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "chem/cc/amplitudes.hpp"

namespace cyclocc::cc {

// Whether a DIIS history of `max_vectors` pairs extrapolates at all: one
// vector alone extrapolates to itself, so below 2 DIIS is off.
inline bool diis_on(int max_vectors) { return max_vectors >= 2; }

class AmplitudeDiis {
 public:
  explicit AmplitudeDiis(int max_vectors) : max_(max_vectors) {}
  // Stores (t, error) and overwrites t with the extrapolation once two or
  // more vectors are stored (dropping the oldest while the errors are
  // linearly dependent). Does nothing, and stores nothing, unless
  // diis_on(max_vectors). Returns <error|error>, one of the overlaps it
  // computes (the solver's convergence test takes the norm from it), or
  // nothing with DIIS off.
  std::optional<double> extrapolate(Amplitudes& t, const Amplitudes& error);
  int size() const { return static_cast<int>(vectors_.size()); }
  // Words this rank holds for the stored pairs (Amplitudes::local_words).
  std::int64_t local_words() const;

 private:
  void drop_oldest();
  // The extrapolation's coefficients, or none if the system is singular.
  std::optional<std::vector<double>> coefficients() const;

  int max_;
  std::deque<Amplitudes> vectors_, errors_;
  std::deque<std::vector<double>> overlaps_;  // overlaps_[i][j] = <e_i|e_j>, j <= i
};

}  // namespace cyclocc::cc
