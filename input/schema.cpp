#include "input/schema.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

#include "input/input.hpp"
#include "input/text.hpp"

namespace cyclocc::input {
namespace {

using K = ValueKind;

// Builds one KeySpec: spec("scf.diis", K::Integer, "...").value("8").at_least(0).
class Spec {
 public:
  Spec(std::string_view key, ValueKind kind, std::string_view description) {
    s_.key = key;
    s_.kind = kind;
    s_.description = description;
  }
  Spec& value(std::string_view v) { return s_.default_value = v, *this; }
  Spec& doc(std::string_view d) { return s_.default_doc = d, *this; }
  Spec& choices(std::vector<std::string_view> c) { return s_.choices = std::move(c), *this; }
  Spec& at_least(double m) { return s_.min = m, *this; }
  Spec& above(double m) { return s_.min = m, s_.min_exclusive = true, *this; }
  Spec& required() { return s_.required = true, *this; }
  operator KeySpec() const { return s_; }  // NOLINT: builder

 private:
  KeySpec s_;
};

std::vector<KeySpec> make_schema() {
  return {
      Spec("title", K::Text, "Free text shown in the log.").doc("empty"),

      Spec("molecule", K::Section,
           "The molecule: `geometry` or `xyz` (exactly one), charge, multiplicity.")
          .required(),
      Spec("molecule.units", K::Choice, "Units of `geometry` (an xyz file is always in angstrom).")
          .value("angstrom")
          .choices({"angstrom", "bohr"}),
      Spec("molecule.charge", K::Integer, "Total charge of the molecule.").value("0"),
      Spec("molecule.multiplicity", K::Integer,
           "Spin multiplicity 2S+1; must fit the electron count.")
          .doc("1 for an even electron count, 2 for odd")
          .at_least(1),
      Spec("molecule.geometry", K::Geometry,
           "One atom per line: element symbol, x, y, z. `#` starts a comment.")
          .doc("none"),
      Spec("molecule.xyz", K::Path,
           "An xyz file instead of `geometry`: atom count, comment line, then `symbol x y z` "
           "in angstrom.")
          .doc("none"),

      Spec("basis", K::Basis,
           "A basis set of the shipped library (case-insensitive), or a .g94 file: a value "
           "containing `/` or ending in `.g94`/`.gbs` is a path.")
          .required(),
      Spec("puream", K::Boolean, "true: spherical (pure) shells for l >= 2; false: cartesian.")
          .doc("the basis set's convention (a file's `spherical`/`cartesian` first line; spherical without one)"),

      Spec("scf", K::Section, "Self-consistent field options."),
      Spec("scf.reference", K::Choice,
           "Restricted (closed-shell singlets only) or unrestricted Hartree-Fock.")
          .doc("rhf for singlets, uhf otherwise")
          .choices({"rhf", "uhf"}),
      Spec("scf.guess", K::Choice,
           "Starting density: superposition of atomic densities, or core Hamiltonian.")
          .value("sad")
          .choices({"sad", "core"}),
      Spec("scf.convergence", K::Real,
           "Converged when the energy change and the RMS orbital gradient are below this. Before a correlated "
           "method the SCF then takes up to 10 more iterations (usually 1-3; beyond scf.max_iterations if "
           "need be), until the gradient is 100 times lower, so that runs from different guesses agree to well "
           "below 1e-9 Eh.")
          .value("1.0e-10")
          .above(0),
      Spec("scf.max_iterations", K::Integer, "Iterations before the SCF gives up (exit code 3).")
          .value("100")
          .at_least(1),
      Spec("scf.diis", K::Integer, "Number of DIIS vectors; 0 turns DIIS off.")
          .value("8")
          .at_least(0),

      Spec("cc", K::Section, "Correlation method options."),
      Spec("cc.method", K::Choice, "Correlation method run after the SCF (case-insensitive).")
          .value("none")
          .choices({"none", "mp2", "ccsd", "ccsd(t)", "ccsdt"}),
      Spec("cc.frozen_core", K::FrozenCore,
           "Core orbitals per spin left out: true = per atom (Li-Ne 1, Na-Ar 5, K-Kr 9, "
           "Rb-Xe 18, Cs-Rn 27), or a count; at most the beta electron count.")
          .value("false"),
      Spec("cc.convergence", K::Real,
           "Converged when the energy change and the 2-norm of the amplitude change are below "
           "this.")
          .value("1.0e-9")
          .above(0),
      Spec("cc.max_iterations", K::Integer,
           "Iterations before the CC solver gives up (exit code 3).")
          .value("100")
          .at_least(1),
      Spec("cc.diis", K::Integer, "Number of DIIS vectors; 0 or 1 turns DIIS off (it extrapolates from two or more).")
          .value("8")
          .at_least(0),

      Spec("checkpoint", K::Section, "HDF5 checkpoint options."),
      Spec("checkpoint.file", K::Path, "Checkpoint file (`--checkpoint` overrides it).")
          .doc("INPUT stem + `.h5`"),
      Spec("checkpoint.interval", K::Integer, "CC iterations between amplitude checkpoints.")
          .value("1")
          .at_least(1),

      Spec("output", K::Section, "Result files."),
      Spec("output.json", K::Path, "QCSchema results file (`--json` overrides it).")
          .doc("INPUT stem + `.json`"),
      Spec("output.molden", K::Path, "Orbitals in Molden format, for Jmol or Avogadro.")
          .doc("none"),
  };
}

std::string_view parent_of(std::string_view dotted) {
  const auto dot = dotted.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : dotted.substr(0, dot);
}

std::string_view leaf_of(std::string_view dotted) {
  const auto dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

// Levenshtein distance (Levenshtein, Sov. Phys. Dokl. 10, 707 (1966)).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Is `given` (lower case) a plausible misspelling of the leaf name `valid`?
bool close_spelling(const std::string& given, std::string_view valid) {
  if (given.size() >= 3 && (valid.starts_with(given) || given.starts_with(valid))) return true;
  if (given.size() >= 4 && valid.find(given) != std::string_view::npos) return true;
  const std::size_t limit = std::max<std::size_t>(1, valid.size() / 3);
  return edit_distance(given, valid) <= limit;
}

std::string format_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::string_view kind_name(ValueKind kind) {
  switch (kind) {
    case K::Section: return "section";
    case K::Text: return "text";
    case K::Choice: return "choice";
    case K::Boolean: return "boolean";
    case K::Integer: return "integer";
    case K::Real: return "number";
    case K::FrozenCore: return "boolean or integer";
    case K::Geometry: return "lines";
    case K::Path: return "path";
    case K::Basis: return "name or path";
  }
  return "";
}

std::string doc_default(const KeySpec& spec) {
  if (spec.required) return "required";
  if (!spec.default_doc.empty()) return std::string(spec.default_doc);
  if (!spec.default_value.empty()) return "`" + std::string(spec.default_value) + "`";
  return "";
}

std::string doc_allowed(const KeySpec& spec) {
  if (spec.kind != K::Choice) return allowed_values(spec);
  std::string out;
  for (const auto& c : spec.choices) out += (out.empty() ? "`" : ", `") + std::string(c) + "`";
  return out;
}

std::string reference_table() {
  std::ostringstream out;
  out << "| Key | Type | Default | Allowed | Description |\n"
      << "|-----|------|---------|---------|-------------|\n";
  for (const auto& spec : input_schema()) {
    out << "| `" << spec.key << "` | " << kind_name(spec.kind) << " | " << doc_default(spec) << " | "
        << doc_allowed(spec) << " | " << spec.description << " |\n";
  }
  return out.str();
}

}  // namespace

const std::vector<KeySpec>& input_schema() {
  static const std::vector<KeySpec> schema = make_schema();  // immutable table
  return schema;
}

const KeySpec* find_key(std::string_view dotted) {
  for (const auto& spec : input_schema())
    if (spec.key == dotted) return &spec;
  return nullptr;
}

std::vector<std::string_view> keys_in_section(std::string_view section) {
  std::vector<std::string_view> out;
  for (const auto& spec : input_schema())
    if (parent_of(spec.key) == section) out.push_back(leaf_of(spec.key));
  return out;
}

std::string suggest_key(std::string_view section, std::string_view leaf) {
  const std::string given = detail::lower(leaf);
  if (given.empty()) return "";
  // 1. the same name or a near spelling in the same section
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& spec : input_schema()) {
    if (parent_of(spec.key) != section || !close_spelling(given, leaf_of(spec.key))) continue;
    const std::size_t d = edit_distance(given, leaf_of(spec.key));
    if (d < best_distance) best = std::string(spec.key), best_distance = d;
  }
  if (!best.empty()) return best;
  // 2. the exact name in other sections ("convergence" -> "scf.convergence or cc.convergence")
  for (const auto& spec : input_schema()) {
    if (parent_of(spec.key) == section || leaf_of(spec.key) != given) continue;
    best += (best.empty() ? "" : " or ") + std::string(spec.key);
  }
  return best;
}

std::string allowed_values(const KeySpec& spec) {
  switch (spec.kind) {
    case K::Choice: {
      std::string out;
      for (const auto& c : spec.choices) out += (out.empty() ? "" : ", ") + std::string(c);
      return out;
    }
    case K::Integer:
    case K::Real: {
      const bool has_min = std::isfinite(spec.min), has_max = std::isfinite(spec.max);
      const std::string lo = (spec.min_exclusive ? "> " : ">= ") + format_number(spec.min);
      if (has_min && has_max) return lo + " and <= " + format_number(spec.max);
      if (has_min) return lo;
      if (has_max) return "<= " + format_number(spec.max);
      return spec.kind == K::Integer ? "any integer" : "any finite number";
    }
    case K::Boolean: return "true, false";
    case K::FrozenCore: return "true, false, integer >= 0";
    case K::Section: return "mapping";
    case K::Text: return "any text";
    case K::Geometry: return "at least one atom";
    case K::Path: return "file name";
    case K::Basis: return "library name or file";
  }
  return "";
}

std::string input_reference_markdown() {
  std::ostringstream out;
  char bohr[64];
  std::snprintf(bohr, sizeof bohr, "%.11f", kBohrAngstrom);
  out << "<!-- Generated from input/schema.cpp: run `cyclocc_input_reference --update README.md`"
         " after changing the schema. -->\n"
      << "The input is one YAML mapping. Only `molecule` and `basis` are required:\n\n"
      << "```yaml\n"
      << "molecule:\n"
      << "  geometry: |\n"
      << "    O  0.000000  0.000000  0.117300\n"
      << "    H  0.000000  0.757200 -0.469200\n"
      << "    H  0.000000 -0.757200 -0.469200\n"
      << "basis: cc-pvdz\n"
      << "cc:\n"
      << "  method: ccsd(t)\n"
      << "```\n\n"
      << reference_table() << "\n"
      << "- Unknown keys, wrong types and out-of-range values are errors: cyclocc prints one line\n"
      << "  `FILE:LINE: key: what is wrong` and exits with code 2. A quoted value (`\"...\"` or\n"
      << "  `'...'`) must end on its own line: an unclosed quote is an error, not text.\n"
      << "- Relative paths (`molecule.xyz`, a basis file, `checkpoint.file`, `output.json`,\n"
      << "  `output.molden`) resolve against the input file's folder. `--json` and\n"
      << "  `--checkpoint` on the command line override the YAML.\n"
      << "- Angstrom coordinates are converted to bohr with " << bohr << " angstrom/bohr\n"
      << "  (CODATA 2014). Element symbols are case-insensitive (H to Rn); atoms closer than\n"
      << "  1e-4 bohr, and coordinates beyond 1e6 bohr, are errors.\n"
      << "- Multiplicity and charge must fit the electron count; `rhf` needs multiplicity 1;\n"
      << "  the frozen-core count may not exceed the number of beta electrons.\n";
  return out.str();
}

namespace {

// [start, end) of the text between the marker lines, if both markers are there.
std::optional<std::pair<std::size_t, std::size_t>> marked_range(const std::string& readme) {
  const std::size_t begin = readme.find(kReferenceBegin);
  if (begin == std::string::npos) return std::nullopt;
  const std::size_t end = readme.find(kReferenceEnd, begin);
  const std::size_t start = readme.find('\n', begin);
  if (end == std::string::npos || start == std::string::npos || start > end) return std::nullopt;
  return std::make_pair(start + 1, end);
}

}  // namespace

std::optional<std::string> marked_reference(const std::string& readme) {
  const auto range = marked_range(readme);
  if (!range) return std::nullopt;
  return readme.substr(range->first, range->second - range->first);
}

std::optional<std::string> replace_marked_reference(const std::string& readme,
                                                    const std::string& body) {
  const auto range = marked_range(readme);
  if (!range) return std::nullopt;
  return readme.substr(0, range->first) + body + readme.substr(range->second);
}

}  // namespace cyclocc::input
