// The validated input of one calculation (DESIGN.md §3).
//
// parse_input() reads a YAML file, checks it against the schema (schema.hpp)
// and returns an Input whose values are all in range, with every default
// filled in and every relative path resolved against the input's folder.
// Any problem throws InputError, whose what() is one line naming the file,
// the line and/or key, and what is wrong.
//
// input/ is free of MPI so the fuzz target links on its own.
#pragma once

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cyclocc::input {

// Bohr radius in angstrom, CODATA 2014 (the value Psi4 1.3.2 uses).
inline constexpr double kBohrAngstrom = 0.52917721067;

class InputError : public std::runtime_error {
 public:
  // message: one line, e.g. "water.yaml:7: scf.convergence: must be > 0 (got -1)"
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

struct Atom {
  std::string symbol;               // as written, normalised: "O", "He"
  int Z = 0;                        // atomic number
  std::array<double, 3> xyz{};      // bohr
};

struct MoleculeInput {
  std::vector<Atom> atoms;
  int charge = 0;
  int charge_line = 0;              // line of molecule.charge (else of the section), for later messages
  int multiplicity = 1;
  std::string units = "angstrom";   // as given; atoms[] are always in bohr
  std::string xyz_file;             // resolved path if the geometry came from a file
  int n_electrons() const;
  int n_alpha() const { return (n_electrons() + multiplicity - 1) / 2; }
  int n_beta() const { return (n_electrons() - multiplicity + 1) / 2; }
};

struct ScfOptions {
  std::string reference = "rhf";    // rhf | uhf
  std::string guess = "sad";        // sad | core
  double convergence = 1.0e-10;
  int max_iterations = 100;
  int diis = 8;
};

struct FrozenCore {
  enum class Kind { None, PerAtom, Count } kind = Kind::None;
  int count = 0;                    // orbitals per spin; filled in for PerAtom too
};

struct CcOptions {
  std::string method = "none";      // none | mp2 | ccsd | ccsd(t) | ccsdt
  FrozenCore frozen_core;
  double convergence = 1.0e-9;
  int max_iterations = 100;
  int diis = 8;
};

struct CheckpointOptions {
  std::string file;                 // resolved; default INPUT stem + .h5
  int interval = 1;
};

struct OutputOptions {
  std::string json;                 // resolved; default INPUT stem + .json
  std::string molden;               // resolved; empty = none
};

struct Input {
  std::string path;                 // the input file as given
  std::string title;
  MoleculeInput molecule;
  std::string basis;                // library name (lower case) or resolved .g94 path
  bool basis_is_file = false;
  int basis_line = 0;               // line of `basis:` in the file, for later messages
  std::optional<bool> puream;       // override; unset = the basis set's convention
  ScfOptions scf;
  CcOptions cc;
  CheckpointOptions checkpoint;
  OutputOptions output;
};

// Reads and validates the file. Throws InputError.
Input parse_input(const std::string& path);
// The same from text; `path` names the file in messages and anchors relative paths.
Input parse_input_text(const std::string& text, const std::string& path);

// Where the results file and the checkpoint of `path` go by its output.json
// and checkpoint.file, read leniently (an input that does not validate still
// gets its results file where it asked for it), else the defaults: INPUT stem
// + .json and .h5; and the files it names to be read (molecule.xyz, a basis
// file), which no output may replace. Never throws.
struct OutputHints {
  std::string json, checkpoint;
  std::vector<std::string> reads;
};
OutputHints output_hints(const std::string& path);

// The message of an InputError: "FILE:LINE: key: what" on one line (line <= 0
// drops ":LINE", an empty key drops "key: "). For errors found after parsing,
// e.g. chem/ reporting an unknown basis name at input.path, input.basis_line.
std::string input_error_message(const std::string& file, int line, const std::string& key,
                                const std::string& what);

// Frozen orbitals per spin for `frozen_core: true` (DESIGN.md §8 table).
int frozen_core_per_atom(int Z);

// Atomic number of an element symbol (case-insensitive), or 0 if unknown.
int atomic_number(const std::string& symbol);
// Symbol of an atomic number ("X" if out of range).
std::string element_symbol(int Z);

}  // namespace cyclocc::input
