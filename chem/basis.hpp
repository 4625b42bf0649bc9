// Basis sets: the shipped library (share/basis/*.g94) or a user .g94 file.
//
// Library names are case-insensitive and map to file names as Psi4 does
// (DESIGN.md §8): '*' -> 's', '+' -> 'p', '(' ',' ')' -> '_', so "6-31G(d,p)"
// is 6-31g_d_p_.g94 and "6-311++G**" is 6-311ppgss.g94. share/basis/index.yaml
// records each file's pure/cartesian convention and the elements whose
// effective core potential was stripped (those are input errors).
#pragma once

#include <libint2.hpp>
#include <map>
#include <string>
#include <vector>

#include "input/input.hpp"

namespace cyclocc::chem {

struct Basis {
  std::string name;                  // library name or file path, as in the input
  std::string file;                  // the .g94 file that was read
  bool pure = true;                  // spherical (true) or cartesian d/f/g shells
  // Spherical only by default: a basis file without a spherical/cartesian
  // first line, and no puream in the input.
  bool pure_by_default = false;
  std::vector<libint2::Shell> shells;
  std::vector<int> shell_atom;       // atom index of each shell
  std::vector<int> shell_offset;     // first basis function of each shell
  int nbf = 0;
  int max_l = 0;
  int max_nprim = 0;
};

// Loads the basis for the molecule in `in`. Throws input::InputError for an
// unknown name, a missing file, or an element the basis lacks.
Basis load_basis(const input::Input& in);

// The shells as numbers, in order (per contraction: l, pure; then the
// exponents and the normalised coefficients), without their centres: what
// a checkpoint keeps to tell its basis from another of the same name (an
// edited .g94 file).
std::vector<double> shell_data(const Basis& basis);

// Folder of the shipped library (compile-time default, overridable with the
// CYCLOCC_BASIS_DIR environment variable).
std::string basis_library_dir();

// The library file stem of a basis name: "6-31G*" -> "6-31gs".
std::string basis_file_stem(const std::string& name);

// The contents of share/basis/index.yaml.
struct BasisIndex {
  std::map<std::string, bool> pure;                       // stem -> spherical?
  std::map<std::string, std::vector<int>> ecp_elements;   // stem -> Z needing an ECP
};
BasisIndex read_basis_index(const std::string& dir);

// Builds the shells of `atoms` (coordinates in bohr) from parsed file data.
// `pure` applies to every shell with l >= 2. `label` starts the error message
// for a missing element ("water.yaml: basis: cc-pvdz").
struct G94File;
Basis make_basis(const G94File& file, const std::vector<input::Atom>& atoms, bool pure,
                 const std::string& label);

}  // namespace cyclocc::chem
