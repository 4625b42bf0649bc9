// Molden file of the SCF orbitals, for Jmol, Avogadro, Molden, Multiwfn.
//
// Format: https://www.theochem.ru.nl/molden/molden_format.html. Conventions
// (from that page, and as PySCF's tools/molden.py reads and writes them):
//  - [Atoms] AU; [GTO] lists, per atom, shells with exponents and the
//    contraction coefficients of normalised primitives (Molden normalises
//    the contraction itself);
//  - every basis function in [MO] is normalised, cartesian ones included
//    (so x^2 and xy both have unit norm, unlike libint2, where all components
//    of a cartesian shell share the x^l normalisation);
//  - function order within a shell:
//      p   x, y, z
//      6D  xx, yy, zz, xy, xz, yz
//      10F xxx, yyy, zzz, xyy, xxy, xxz, xzz, yzz, yyz, xyz
//      15G xxxx yyyy zzzz xxxy xxxz yyyx yyyz zzzx zzzy xxyy xxzz yyzz xxyz yyxz zzxy
//      5D/7F/9G  m = 0, +1, -1, +2, -2, ...
//    while libint2 (standard ordering) has cartesian components in CCA order
//    (xx, xy, xz, yy, yz, zz, ...) and pure ones as m = -l..l;
//  - [5D]/[7F]/[9G] mark spherical shells (written when the basis is pure).
// Shells with l > 4 are not part of the format; they are left out of [GTO]
// and their coefficients dropped (the file then notes it in a comment).
#pragma once

#include <string>
#include <vector>

#include "chem/basis.hpp"
#include "chem/scf.hpp"
#include "input/input.hpp"

namespace cyclocc::chem {

void write_molden(const std::string& path, const input::Input& in, const Basis& basis,
                  const ScfResult& scf);

// For each Molden function of a shell (in Molden's order), the index of the
// same function in libint2's order. Exposed for tests.
std::vector<int> molden_order(int l, bool pure);

// Molden's norm of a libint2 cartesian component with exponents (lx, ly, lz):
// sqrt((2lx-1)!!(2ly-1)!!(2lz-1)!! / (2l-1)!!). A libint2 coefficient times
// this is the coefficient of the individually normalised function.
double cartesian_component_norm(int lx, int ly, int lz);

}  // namespace cyclocc::chem
