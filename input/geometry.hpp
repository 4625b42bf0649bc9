// Internal: atoms from `molecule.geometry` lines or from an xyz file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "input/input.hpp"

namespace cyclocc::input::detail {

// One line of source text and its 1-based line number in `file` (0 = unknown).
struct SourceLine {
  std::string_view text;
  int line = 0;
};

// Atoms with the line each came from, for messages.
struct AtomList {
  std::vector<Atom> atoms;
  std::vector<int> lines;
};

// Splits text into lines numbered first_line, first_line+1, ...; with
// first_line <= 0 every line gets `fallback_line` instead.
std::vector<SourceLine> split_lines(std::string_view text, int first_line, int fallback_line);

// Reads "symbol x y z" lines (blank lines are skipped, and with `comments`
// so is text from '#' on) and converts the coordinates to bohr by multiplying
// with `to_bohr`. Errors name `file`, the line and `key`. Does not check for
// an empty list.
AtomList parse_atom_lines(const std::vector<SourceLine>& lines, double to_bohr,
                          std::string_view file, std::string_view key, bool comments);

// Reads a standard xyz file (atom count, comment line, then "symbol x y z" in
// angstrom) and checks for coincident atoms. Errors in its content name the
// xyz file and its line; a file that cannot be read is reported at
// input_file:input_line.
AtomList read_xyz_file(const std::string& path, std::string_view key, std::string_view input_file,
                       int input_line);

// The same from the text of an xyz file named `file`; checks coincident atoms.
AtomList parse_xyz_text(std::string_view text, std::string_view file, std::string_view key);

// Throws when two atoms are closer than 1e-4 bohr, naming both.
void check_coincident_atoms(const AtomList& list, std::string_view file, std::string_view key);

// Why `path` cannot be read as a file ("does not exist", ...), or "".
std::string file_problem(const std::string& path);

// Reads a whole file of at most max_bytes; false if it cannot (reason set).
bool read_text_file(const std::string& path, std::size_t max_bytes, std::string& text,
                    std::string& reason);

}  // namespace cyclocc::input::detail
