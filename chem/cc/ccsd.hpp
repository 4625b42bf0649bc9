// CCSD in spin-orbital form through the spin layer (tensor/spin.hpp), for
// canonical (RHF and UHF) orbitals: the Fock matrix is diagonal, so f_ia = 0
// and the terms in it are left out.
#pragma once

#include "chem/cc/amplitudes.hpp"
#include "chem/cc/mo_integrals.hpp"

namespace cyclocc::cc {

// E_CC = 1/4 sum <ij||ab> t_ij^ab + 1/2 sum <ij||ab> t_i^a t_j^b.
double ccsd_energy(const MoIntegrals& mo, const Amplitudes& t);

// The same energy by the spins of the electron pairs ij (Psi4's split, and
// QCSchema's *_same_spin_ and *_opposite_spin_correlation_energy):
// E_CC = 1/4 sum <ij||ab> tau_ij^ab with tau = t2 + P(ij) t_i^a t_j^b,
// summed over the pairs of one spin and over those of opposite spins.
struct PairEnergies {
  double same_spin = 0;
  double opposite_spin = 0;
};
PairEnergies pair_energies(const MoIntegrals& mo, const Amplitudes& t);

// The right-hand sides D_i^a t_i^a and D_ij^ab t_ij^ab of the CCSD equations
// (into r.t1 and r.t2); dividing by the denominators gives the next amplitudes.
void ccsd_rhs(const MoIntegrals& mo, const Amplitudes& t, Amplitudes& r);

// First-order (MP2) amplitudes t_ij^ab = <ij||ab> / D_ij^ab, t_i^a = f_ia / D_i^a = 0.
void mp2_amplitudes(const MoIntegrals& mo, Amplitudes& t);

}  // namespace cyclocc::cc
