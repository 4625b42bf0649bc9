// CCSDT (Noga and Bartlett, J. Chem. Phys. 86, 7041 (1987); erratum 89, 3401
// (1988)) in spin-orbital form through the spin layer.
#pragma once

#include "chem/cc/amplitudes.hpp"
#include "chem/cc/mo_integrals.hpp"

namespace cyclocc::cc {

// The right-hand sides of the CCSDT equations for T1, T2 and T3 (t.t3 and r.t3
// must exist); dividing by the denominators gives the next amplitudes. The
// energy is ccsd_energy (T3 does not enter it).
void ccsdt_rhs(const MoIntegrals& mo, const Amplitudes& t, Amplitudes& r);

}  // namespace cyclocc::cc
