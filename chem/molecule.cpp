#include "chem/molecule.hpp"

#include <algorithm>
#include <cmath>

namespace cyclocc::chem {

double nuclear_repulsion(const std::vector<input::Atom>& atoms) {
  double e = 0;
  for (std::size_t a = 0; a < atoms.size(); ++a)
    for (std::size_t b = 0; b < a; ++b) {
      const double dx = atoms[a].xyz[0] - atoms[b].xyz[0];
      const double dy = atoms[a].xyz[1] - atoms[b].xyz[1];
      const double dz = atoms[a].xyz[2] - atoms[b].xyz[2];
      e += atoms[a].Z * atoms[b].Z / std::sqrt(dx * dx + dy * dy + dz * dz);
    }
  return e;
}

std::vector<std::pair<double, std::array<double, 3>>> point_charges(
    const std::vector<input::Atom>& atoms) {
  std::vector<std::pair<double, std::array<double, 3>>> q;
  for (const auto& a : atoms) q.emplace_back(static_cast<double>(a.Z), a.xyz);
  return q;
}

std::vector<int> unique_elements(const std::vector<input::Atom>& atoms) {
  std::vector<int> out;
  for (const auto& a : atoms)
    if (std::find(out.begin(), out.end(), a.Z) == out.end()) out.push_back(a.Z);
  return out;
}

}  // namespace cyclocc::chem
