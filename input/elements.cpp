// Element symbols, atomic numbers and frozen-core counts.
#include <array>
#include <stdexcept>
#include <string_view>

#include "input/input.hpp"
#include "input/text.hpp"

namespace cyclocc::input {
namespace {

// Symbols of Z = 1..86 (IUPAC).
constexpr std::array<std::string_view, 86> kSymbols = {
    "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si", "P",
    "S",  "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn",
    "Ga", "Ge", "As", "Se", "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru", "Rh",
    "Pd", "Ag", "Cd", "In", "Sn", "Sb", "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd",
    "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W",  "Re",
    "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At", "Rn"};

}  // namespace

int atomic_number(const std::string& symbol) {
  const std::string wanted = detail::lower(symbol);
  for (std::size_t i = 0; i < kSymbols.size(); ++i)
    if (detail::lower(kSymbols[i]) == wanted) return static_cast<int>(i) + 1;
  return 0;
}

std::string element_symbol(int Z) {
  if (Z < 1 || Z > static_cast<int>(kSymbols.size())) return "X";
  return std::string(kSymbols[static_cast<std::size_t>(Z - 1)]);
}

// Psi4's `freeze_core true` count per atom: the orbitals of the previous
// noble-gas shell (DESIGN.md §8).
int frozen_core_per_atom(int Z) {
  if (Z < 1 || Z > 86) throw std::invalid_argument("frozen_core_per_atom: Z out of range 1..86");
  if (Z <= 2) return 0;
  if (Z <= 10) return 1;
  if (Z <= 18) return 5;
  if (Z <= 36) return 9;
  if (Z <= 54) return 18;
  return 27;
}

int MoleculeInput::n_electrons() const {
  long long total = -static_cast<long long>(charge);
  for (const auto& atom : atoms) total += atom.Z;
  return static_cast<int>(total);
}

}  // namespace cyclocc::input
