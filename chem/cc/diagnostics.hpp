// Diagnostics of the coupled-cluster singles amplitudes, for the log and the
// results file: how far a single determinant describes the state.
#pragma once

#include <optional>

#include "chem/cc/amplitudes.hpp"

namespace cyclocc::cc {

struct SinglesDiagnostics {
  // T1 (Lee and Taylor, Int. J. Quantum Chem. Symp. 23, 199 (1989)): for
  // closed shells the norm of the spatial amplitudes t_i^a over sqrt(N), N
  // the number of correlated electrons; that is sqrt(sum over the spin
  // orbitals of (t_i^a)^2 / (2 N)), which is what is computed for RHF and
  // UHF alike, so that a closed-shell state has one value either way. (Psi4
  // 1.3.2 gives the RHF value, and sqrt(2) times this for UHF.)
  double t1 = 0;
  // D1 (Janssen and Nielsen, Chem. Phys. Lett. 290, 423 (1998)): the
  // largest singular value of the closed-shell matrix t_i^a. Restricted only.
  std::optional<double> d1;
};

SinglesDiagnostics singles_diagnostics(const Amplitudes& t);

}  // namespace cyclocc::cc
