// Molecule-level quantities derived from the validated input geometry (bohr).
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "input/input.hpp"

namespace cyclocc::chem {

// Nuclear repulsion energy sum_{A<B} Z_A Z_B / R_AB (hartree).
double nuclear_repulsion(const std::vector<input::Atom>& atoms);

// Point charges in the form libint2's nuclear-attraction engine takes.
std::vector<std::pair<double, std::array<double, 3>>> point_charges(
    const std::vector<input::Atom>& atoms);

// Distinct atomic numbers in order of first appearance.
std::vector<int> unique_elements(const std::vector<input::Atom>& atoms);

}  // namespace cyclocc::chem
