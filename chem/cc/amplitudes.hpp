// Cluster amplitudes t_i^a, t_ij^ab (and t_ijk^abc for CCSDT) as spin tensors,
// with the vector operations the solvers need (DIIS, norms, denominators).
#pragma once

#include <optional>
#include <vector>

#include "chem/cc/mo_integrals.hpp"

namespace cyclocc::cc {

struct Amplitudes {
  SpinTensor t1;                  // "vo"
  SpinTensor t2;                  // "vvoo", antisymmetric pairs
  std::optional<SpinTensor> t3;   // "vvvooo", antisymmetric triples (CCSDT only)

  Amplitudes(tensor::Context& ctx, const SpinDims& d, bool triples);
  static Amplitudes zeros_like(const Amplitudes& a);

  void set_zero();
  void scale(double alpha);
  void axpy(double alpha, const Amplitudes& x);  // this += alpha * x
  void multiply(const Amplitudes& f);            // this *= f, element by element
  // this *= f and d = this - x, element by element, in one pass (the solver's
  // step: d is the change of every amplitude).
  void multiply_and_difference(const Amplitudes& f, const Amplitudes& x, Amplitudes& d);
  // this = sum_i c[i] * x[i] (same structure), in one pass over the x[i] (DIIS).
  void combine(const std::vector<double>& c, const std::vector<const Amplitudes*>& x);
  double dot(const Amplitudes& o) const;         // over all unique (packed) amplitudes
  std::vector<double> dots(const std::vector<const Amplitudes*>& others) const;  // dot(*o) for each, in one pass
  double norm2() const;
  double norm2_t3() const;
  std::int64_t local_words() const;  // elements this rank stores (SpinTensor::local_words)
};

// Divides every amplitude by its denominator:
// t_i^a /= e_i - e_a, t_ij^ab /= e_i + e_j - e_a - e_b, and likewise for t3.
void divide_by_denominators(Amplitudes& t, const MoIntegrals& mo);
// The reciprocals of those denominators, as amplitudes shaped like `like`:
// the solvers multiply by them every iteration instead of dividing.
Amplitudes inverse_denominators(const Amplitudes& like, const MoIntegrals& mo);

}  // namespace cyclocc::cc
