// parse_input / parse_input_text: YAML text -> validated Input (DESIGN.md §3).
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <optional>
#include <set>

#include "input/geometry.hpp"
#include "input/input.hpp"
#include "input/schema.hpp"
#include "input/text.hpp"
#include "input/values.hpp"

namespace cyclocc::input {
namespace {

using detail::fail;
using detail::quote;
using detail::Section;
namespace fs = std::filesystem;

constexpr std::size_t kMaxInputBytes = std::size_t{1} << 20;
// yaml-cpp parses nested flow collections recursively; no input needs more than a few levels.
constexpr int kMaxFlowDepth = 32;

// Guards run before yaml-cpp sees the text: size, and nesting of [ and {.
void check_size_and_nesting(const std::string& text, const std::string& file) {
  if (text.size() > kMaxInputBytes) fail(file, 0, "", "the input is larger than 1 MB");
  int depth = 0, line = 1;
  for (char c : text) {
    if (c == '\n') ++line;
    if (c == '[' || c == '{') ++depth;
    if ((c == ']' || c == '}') && depth > 0) --depth;
    if (depth > kMaxFlowDepth)
      fail(file, line, "", "brackets nested more than " + std::to_string(kMaxFlowDepth) +
                               " levels deep");
  }
}

bool is_marker(std::string_view line, std::string_view marker) {
  return line.starts_with(marker) &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
}

// The offset of a mark's line and column in text, or npos if there is none.
std::size_t offset_of(const std::string& text, const YAML::Mark& mark) {
  if (mark.is_null() || mark.line < 0 || mark.column < 0) return std::string::npos;
  std::size_t start = 0;
  for (int line = 0; line < mark.line; ++line) {
    start = text.find('\n', start);
    if (start == std::string::npos) return start;
    ++start;
  }
  const std::size_t at = start + static_cast<std::size_t>(mark.column);
  return at < text.size() ? at : std::string::npos;
}

// The character at a mark's line and column, or '\0' if there is none.
char char_at(const std::string& text, const YAML::Mark& mark) {
  const std::size_t at = offset_of(text, mark);
  return at == std::string::npos ? '\0' : text[at];
}

// Whether the quoted scalar that opens at `at` (on its quote) closes on the
// same line: "..." with backslash escapes, '...' with '' for a quote.
bool closes_on_its_line(const std::string& text, std::size_t at) {
  const char q = text[at];
  for (std::size_t i = at + 1; i < text.size() && text[i] != '\n'; ++i) {
    if (q == '"' && text[i] == '\\') ++i;
    else if (text[i] == q && q == '\'' && i + 1 < text.size() && text[i + 1] == '\'') ++i;
    else if (text[i] == q) return true;
  }
  return false;
}

// The first line (1-based; 0 = none) whose value, after "key:" or "- ",
// opens a quote that does not close on the line: yaml-cpp's own error for
// one is often reported lines later, as "end of map not found".
int unclosed_quote_line(const std::string& text) {
  int number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++number;
    std::size_t at = text.find_first_not_of(" \t", start);
    if (at < end && text.compare(at, 2, "- ") == 0) at = text.find_first_not_of(" \t", at + 2);
    const std::size_t colon = text.find(": ", at);
    if (at < end && text[at] != '#' && text[at] != '"' && text[at] != '\'' && colon < end)
      at = text.find_first_not_of(" \t", colon + 1);
    if (at < end && (text[at] == '"' || text[at] == '\'') && !closes_on_its_line(text, at)) return number;
    start = end + 1;
  }
  return 0;
}

// yaml-cpp reads a quote that is never closed as a value running to the end
// of the file, swallowing the keys after it. No value of an input needs more
// than one line in quotes, so a quoted scalar must close on its own line.
// Each mapping and sequence once (by where it starts): an alias repeats its
// anchor's node, and an anchor may contain an alias of itself (&m {a: *m}).
void check_quotes(const YAML::Node& node, const std::string& text, const std::string& file,
                  const std::string& key, std::set<int>& seen) {
  if ((node.IsMap() || node.IsSequence()) && !seen.insert(node.Mark().pos).second) return;
  if (node.IsMap()) {
    for (const auto& kv : node) {
      check_quotes(kv.first, text, file, key, seen);
      const std::string name = kv.first.IsScalar() ? kv.first.Scalar() : key;
      check_quotes(kv.second, text, file, key.empty() ? name : key + "." + name, seen);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) check_quotes(item, text, file, key, seen);
  } else if (node.IsScalar() && node.Tag() == "!") {
    const std::size_t at = offset_of(text, node.Mark());
    if (at == std::string::npos || (text[at] != '"' && text[at] != '\'')) return;  // a block scalar (| or >)
    if (!closes_on_its_line(text, at))
      fail(file, node.Mark().line + 1, key,
           std::string("the quoted value has no closing ") + text[at] +
               " on its line (quoted values must fit on one line)");
  }
}

// Where the documents of a YAML text start: the first line with content and
// the line of a second document ("---", or text after "...", at column 0 once
// the first document has content); 0 = none. yaml-cpp's LoadAll can loop
// forever on some invalid inputs (jbeder/yaml-cpp#1319), so documents are
// told apart here and only YAML::Load parses.
struct DocumentLines {
  int first_content = 0;
  int second_document = 0;
};

DocumentLines document_lines(const std::string& text) {
  DocumentLines found;
  bool ended = false;
  int number = 0;
  for (std::size_t start = 0; start < text.size() && found.second_document == 0;) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    start = end + 1;
    ++number;
    const bool marker = is_marker(line, "---");
    const auto first = line.find_first_not_of(" \t\r", marker ? 3 : 0);
    const bool blank = first == std::string_view::npos || line[first] == '#';
    const bool content = found.first_content > 0;
    if (marker && (content || ended)) {
      found.second_document = number;
    } else if (is_marker(line, "...")) {
      ended = content;
    } else if (!blank && !(line.starts_with("%") && !content)) {
      if (ended) found.second_document = number;
      if (!content) found.first_content = number;
    }
  }
  return found;
}

YAML::Node load_single_document(const std::string& text, const std::string& file) {
  const DocumentLines lines = document_lines(text);
  if (lines.second_document > 0)
    fail(file, lines.second_document, "",
         "more than one YAML document; remove the '---' separator");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    fail(file, e.mark.is_null() ? 0 : e.mark.line + 1, "",
         "nested more than " + std::to_string(e.depth()) + " levels deep");
  } catch (const YAML::ParserException& e) {
    if (const int line = unclosed_quote_line(text); line > 0)
      fail(file, line, "", "YAML syntax error: a quoted value has no closing quote on its line");
    fail(file, e.mark.is_null() ? 0 : e.mark.line + 1, "", "YAML syntax error: " + e.msg);
  } catch (const YAML::Exception& e) {
    fail(file, e.mark.is_null() ? 0 : e.mark.line + 1, "", "YAML error: " + e.msg);
  }
  if ((!root.IsDefined() || root.IsNull()) && lines.first_content > 0)
    fail(file, lines.first_content, "", "YAML syntax error: no document can be read from here");
  if (!root.IsDefined() || root.IsNull())
    fail(file, 0, "", "the input is empty; it needs at least molecule: and basis:");
  std::set<int> seen;
  check_quotes(root, text, file, "", seen);
  if (!root.IsMap())
    fail(file, detail::line_of(root), "",
         "expected a mapping of keys (molecule:, basis:, ...) at the top level");
  return root;
}

std::string resolve(const std::string& input_path, const std::string& name) {
  const fs::path p(name);
  if (p.is_absolute()) return p.lexically_normal().string();
  const fs::path dir = fs::path(input_path).parent_path();
  return (dir.empty() ? p : dir / p).lexically_normal().string();
}

std::string default_output(const std::string& input_path, const std::string& extension) {
  const fs::path in(input_path);
  std::string stem = in.stem().string();
  if (stem.empty()) stem = "input";
  return resolve(input_path, stem + extension);
}

// Lines of the geometry scalar with their line numbers: exact for a literal
// block (`geometry: |`), else every line is reported at the key's line.
std::vector<detail::SourceLine> geometry_lines(const YAML::Node& node, const std::string& text,
                                               int key_line) {
  const bool literal = char_at(text, node.Mark()) == '|';
  return detail::split_lines(node.Scalar(), literal ? node.Mark().line + 2 : 0, key_line);
}

detail::AtomList read_atoms(const Section& mol, const std::string& text, Input& input) {
  const bool has_geometry = mol.has("geometry"), has_xyz = mol.has("xyz");
  if (has_geometry && has_xyz)
    fail(input.path, mol.line("xyz"), "molecule.xyz",
         "give either molecule.geometry or molecule.xyz, not both");
  if (!has_geometry && !has_xyz)
    fail(input.path, mol.line(), "molecule", "needs geometry (atom lines) or xyz (a file)");
  if (has_xyz) {
    if (mol.has("units") && mol.choice("units") != "angstrom")
      fail(input.path, mol.line("units"), "molecule.units",
           "xyz files are always in angstrom; remove units: bohr");
    input.molecule.xyz_file = resolve(input.path, *mol.path("xyz"));
    return detail::read_xyz_file(input.molecule.xyz_file, "molecule.xyz", input.path,
                                 mol.line("xyz"));
  }
  const YAML::Node& node = mol.node("geometry");
  if (!node.IsScalar())
    fail(input.path, mol.line("geometry"), "molecule.geometry",
         "expected lines \"symbol x y z\" (a block: geometry: |)");
  const double to_bohr = input.molecule.units == "bohr" ? 1.0 : 1.0 / kBohrAngstrom;
  auto list = detail::parse_atom_lines(geometry_lines(node, text, mol.line("geometry")), to_bohr,
                                       input.path, "molecule.geometry", true);
  if (list.atoms.empty())
    fail(input.path, mol.line("geometry"), "molecule.geometry", "no atoms");
  detail::check_coincident_atoms(list, input.path, "molecule.geometry");
  return list;
}

// Charge and multiplicity against the electron count.
void set_charge_and_multiplicity(const Section& mol, MoleculeInput& m, const std::string& file) {
  m.charge = *mol.integer("charge");
  m.charge_line = mol.line("charge");
  long long nuclear = 0;
  for (const auto& atom : m.atoms) nuclear += atom.Z;
  const long long electrons = nuclear - m.charge;
  if (electrons < 0)
    fail(file, mol.line("charge"), "molecule.charge",
         "charge " + std::to_string(m.charge) + " leaves " + std::to_string(electrons) +
             " electrons (the nuclei hold " + std::to_string(nuclear) + ")");
  if (electrons > INT_MAX / 2)
    fail(file, mol.line("charge"), "molecule.charge", "too many electrons");
  const auto given = mol.integer("multiplicity");
  m.multiplicity = given ? *given : (electrons % 2 == 0 ? 1 : 2);
  const std::string counts = " (" + std::to_string(electrons) + " electrons)";
  if (m.multiplicity > electrons + 1)
    fail(file, mol.line("multiplicity"), "molecule.multiplicity",
         "multiplicity " + std::to_string(m.multiplicity) + " needs more unpaired electrons than"
         " there are" + counts);
  if ((electrons + m.multiplicity - 1) % 2 != 0)
    fail(file, mol.line("multiplicity"), "molecule.multiplicity",
         "multiplicity " + std::to_string(m.multiplicity) + " does not fit " +
             (electrons % 2 == 0 ? "an even" : "an odd") + " electron count" + counts);
}

void read_molecule(const Section& top, const std::string& text, Input& input) {
  const Section mol(top.node("molecule"), "molecule", input.path, top.key_line("molecule"));
  MoleculeInput& m = input.molecule;
  m.units = mol.choice("units");
  auto list = read_atoms(mol, text, input);
  m.atoms = std::move(list.atoms);
  set_charge_and_multiplicity(mol, m, input.path);
}

// A basis value that names a file rather than a set of the library.
bool names_basis_file(const std::string& value) {
  const std::string low = detail::lower(value);
  return value.find('/') != std::string::npos || low.ends_with(".g94") || low.ends_with(".gbs");
}

void read_basis(const Section& top, Input& input) {
  const std::string value = *top.text("basis");
  if (value.empty()) fail(input.path, top.line("basis"), "basis", "the basis name is empty");
  input.basis_line = top.line("basis");
  input.basis_is_file = names_basis_file(value);
  if (!input.basis_is_file) {
    input.basis = detail::lower(value);
    return;
  }
  input.basis = resolve(input.path, *top.path("basis"));
  const std::string problem = detail::file_problem(input.basis);
  if (!problem.empty())
    fail(input.path, top.line("basis"), "basis", "the basis file " + detail::quote_path(input.basis) + " " + problem);
}

void read_scf(const Section& top, Input& input) {
  const Section scf(top.has("scf") ? top.node("scf") : YAML::Node(), "scf", input.path,
                    top.key_line("scf"));
  const auto reference = scf.choice_if_given("reference");
  const bool singlet = input.molecule.multiplicity == 1;
  if (reference == "rhf" && !singlet)
    fail(input.path, scf.line("reference"), "scf.reference",
         "rhf needs multiplicity 1 (got " + std::to_string(input.molecule.multiplicity) +
             "); use uhf");
  input.scf.reference = reference ? *reference : (singlet ? "rhf" : "uhf");
  input.scf.guess = scf.choice("guess");
  input.scf.convergence = scf.real("convergence");
  input.scf.max_iterations = *scf.integer("max_iterations");
  input.scf.diis = *scf.integer("diis");
}

void read_cc(const Section& top, Input& input) {
  const Section cc(top.has("cc") ? top.node("cc") : YAML::Node(), "cc", input.path,
                   top.key_line("cc"));
  input.cc.method = cc.choice("method");
  input.cc.convergence = cc.real("convergence");
  input.cc.max_iterations = *cc.integer("max_iterations");
  input.cc.diis = *cc.integer("diis");
  FrozenCore& fc = input.cc.frozen_core;
  fc = cc.frozen_core("frozen_core");
  if (fc.kind == FrozenCore::Kind::PerAtom) {
    fc.count = 0;
    for (const auto& atom : input.molecule.atoms) fc.count += frozen_core_per_atom(atom.Z);
  }
  const int n_beta = input.molecule.n_beta();
  if (fc.count > n_beta)
    fail(input.path, cc.line("frozen_core"), "cc.frozen_core",
         "freezes " + std::to_string(fc.count) + " orbitals per spin, more than the " +
             std::to_string(n_beta) + " beta electrons");
}

void read_files(const Section& top, Input& input) {
  const Section ck(top.has("checkpoint") ? top.node("checkpoint") : YAML::Node(), "checkpoint",
                   input.path, top.key_line("checkpoint"));
  const auto file = ck.path("file");
  input.checkpoint.file = file ? resolve(input.path, *file) : default_output(input.path, ".h5");
  input.checkpoint.interval = *ck.integer("interval");

  const Section out(top.has("output") ? top.node("output") : YAML::Node(), "output", input.path,
                    top.key_line("output"));
  const auto json = out.path("json");
  input.output.json = json ? resolve(input.path, *json) : default_output(input.path, ".json");
  const auto molden = out.path("molden");
  input.output.molden = molden ? resolve(input.path, *molden) : "";
}

}  // namespace

OutputHints output_hints(const std::string& path) {
  OutputHints h{default_output(path, ".json"), default_output(path, ".h5"), {}};
  std::string text, reason;
  if (!detail::read_text_file(path, kMaxInputBytes, text, reason)) return h;
  try {
    check_size_and_nesting(text, path);
    const YAML::Node root = YAML::Load(text);
    // (A key that is not there gives a node that throws when asked its type.)
    auto scalar = [](const YAML::Node& map, const char* key) -> std::optional<std::string> {
      if (!map || !map.IsMap()) return std::nullopt;
      const YAML::Node v = map[key];
      if (!v || !v.IsScalar() || v.Scalar().find('\0') != std::string::npos) return std::nullopt;
      return v.Scalar();
    };
    auto given = [&](const char* section, const char* key, std::string& out) {
      if (!root || !root.IsMap()) return;
      if (const auto v = scalar(root[section], key)) out = resolve(path, *v);
    };
    given("output", "json", h.json);
    given("checkpoint", "file", h.checkpoint);
    std::string xyz;
    given("molecule", "xyz", xyz);
    if (!xyz.empty()) h.reads.push_back(xyz);
    if (const auto basis = scalar(root, "basis"); basis && names_basis_file(*basis))
      h.reads.push_back(resolve(path, *basis));
  } catch (const YAML::Exception&) {
    // Not YAML: the defaults.
  } catch (const InputError&) {
    // Too large or too deeply nested to read: the defaults.
  }
  return h;
}

Input parse_input(const std::string& path) {
  std::string text, reason;
  if (!detail::read_text_file(path, kMaxInputBytes, text, reason))
    fail(path, 0, "", "the input file " + reason);
  return parse_input_text(text, path);
}

Input parse_input_text(const std::string& text, const std::string& path) {
  check_size_and_nesting(text, path);
  const YAML::Node root = load_single_document(text, path);
  const Section top(root, "", path, 0);
  for (const auto& spec : input_schema())
    if (spec.required && !top.has(spec.key))
      fail(path, 0, spec.key, "missing; every input needs molecule and basis");
  Input input;
  input.path = path;
  input.title = top.text("title").value_or("");
  read_molecule(top, text, input);
  read_basis(top, input);
  input.puream = top.boolean("puream");
  read_scf(top, input);
  read_cc(top, input);
  read_files(top, input);
  return input;
}

}  // namespace cyclocc::input
