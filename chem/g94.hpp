// Reader for basis sets in Gaussian-94 format (the format of Psi4's .gbs
// files and of Basis Set Exchange's "gaussian94" output).
//
// Grammar, as written by those programs:
//   comment lines start with '!'; blank lines are ignored;
//   an optional first line "spherical" or "cartesian" (Psi4's header);
//   per element (the first may be preceded by a "****" line):
//                 SYMBOL 0
//                 then shells  LABEL NPRIM SCALE [0.0]   (LABEL = S P D F G H I K or SP)
//                 each followed by NPRIM lines  EXPONENT COEF [COEF_P for SP]
//                 and the block ends with a line  ****
// Numbers may use Fortran's D exponent (0.5D-01). A SCALE other than 1 scales
// the exponents by SCALE^2 (Gaussian's convention). SP shells are split into an
// s and a p shell with the same exponents.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cyclocc::chem {

// One contracted shell as written in the file: coefficients refer to
// normalised primitives (libint2 multiplies in the normalisation).
struct RawShell {
  int l = 0;
  std::vector<double> exponents;
  std::vector<double> coefficients;
};

struct G94File {
  std::string path;
  std::optional<bool> pure;                  // from a "spherical"/"cartesian" header line
  std::map<int, std::vector<RawShell>> shells;  // by atomic number
};

// Parses text; `path` names the file in error messages. Throws
// input::InputError("PATH:LINE: what") on malformed content.
G94File parse_g94(const std::string& text, const std::string& path);

// Reads and parses a file; a missing or unreadable file is an InputError.
G94File read_g94(const std::string& path);

}  // namespace cyclocc::chem
