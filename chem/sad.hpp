// Superposition of atomic densities (SAD) guess.
//
// For each distinct element, a spin-restricted SCF of the neutral atom in the
// molecule's own basis for that element, with fractional occupations: the
// Z electrons fill orbitals in order of energy, and a partly filled set of
// degenerate orbitals shares its electrons equally, so the atomic density is
// spherical and spin-averaged (e.g. O: 1s2 2s2 2p(4/3 each)). The atomic
// densities are placed block-diagonally. The SCF then builds the first Fock
// matrix from this density and diagonalises it, which is how Psi4 and NWChem
// start too.
#pragma once

#include <Eigen/Dense>

#include "chem/basis.hpp"
#include "input/input.hpp"
#include "parallel/comm.hpp"

namespace cyclocc::chem {

// The shells of one atom of `basis`, as a Basis of their own.
Basis atom_basis(const Basis& basis, int atom);

// Spin-averaged occupations for `n_electrons` in orbitals of energies `eps`
// (ascending): 2 per orbital, the last partly filled degenerate group shared.
Eigen::VectorXd fractional_occupations(const Eigen::VectorXd& eps, double n_electrons);

// Total (alpha + beta) density of the neutral atom Z in `basis` (one atom's
// shells), from the fractional-occupation SCF described above.
Eigen::MatrixXd atomic_density(const Basis& basis, int Z);

// The block-diagonal SAD density (alpha + beta) of the molecule. Distinct
// elements are shared out over the ranks of `comm` and summed, so every rank
// returns the same matrix.
Eigen::MatrixXd sad_density(const par::Comm& comm, const Basis& basis,
                            const std::vector<input::Atom>& atoms);

}  // namespace cyclocc::chem
