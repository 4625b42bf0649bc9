// The input schema: every key of the YAML input (DESIGN.md §3) with its type,
// default, allowed values and a one-line description.
//
// This table is the single source of truth. The parser (parse.cpp) takes the
// keys, defaults, choices and ranges from it, and input_reference_markdown()
// turns it into the input reference in README.md (a test keeps the two equal).
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cyclocc::input {

enum class ValueKind {
  Section,     // a mapping of further keys
  Text,        // any scalar, kept as written
  Choice,      // one of `choices`, case-insensitive, stored lower-case
  Boolean,     // true | false
  Integer,     // a decimal integer within [min, max]
  Real,        // a finite number within [min, max]
  FrozenCore,  // false | true | an integer count >= 0
  Geometry,    // lines "symbol x y z"
  Path,        // a file name; relative names resolve against the input's folder
  Basis,       // a library name, or a path to a .g94/.gbs file
};

struct KeySpec {
  std::string_view key;            // dotted: "scf.convergence"
  ValueKind kind = ValueKind::Text;
  // Literal default, read by the parser exactly like user text. Empty when the
  // key has no default or the default is computed (see default_doc).
  std::string_view default_value;
  // How the default reads in the documentation when it is not default_value.
  std::string_view default_doc;
  std::vector<std::string_view> choices;  // ValueKind::Choice
  double min = -std::numeric_limits<double>::infinity();
  bool min_exclusive = false;             // true: value must be > min
  double max = std::numeric_limits<double>::infinity();
  bool required = false;
  std::string_view description;
};

// All keys, sections first within their parent, in documentation order.
const std::vector<KeySpec>& input_schema();

// The spec of a dotted key, or nullptr.
const KeySpec* find_key(std::string_view dotted);

// Leaf names of the keys directly inside `section` ("" = top level).
std::vector<std::string_view> keys_in_section(std::string_view section);

// The closest valid dotted key for an unknown key `leaf` met inside `section`,
// or "" if nothing is close: a near spelling in the same section, or the same
// name in another section ("geometry" at top level -> "molecule.geometry").
std::string suggest_key(std::string_view section, std::string_view leaf);

// "> 0", ">= 1", "rhf | uhf", ... as used in messages and in the reference.
std::string allowed_values(const KeySpec& spec);

// The input reference (Markdown) that README.md holds between the markers
// <!-- input-reference:begin --> and <!-- input-reference:end -->.
std::string input_reference_markdown();

inline constexpr std::string_view kReferenceBegin = "<!-- input-reference:begin -->";
inline constexpr std::string_view kReferenceEnd = "<!-- input-reference:end -->";

// The text between the marker lines of `readme`, or nullopt without markers.
std::optional<std::string> marked_reference(const std::string& readme);
// `readme` with the text between the marker lines replaced by `body`.
std::optional<std::string> replace_marked_reference(const std::string& readme,
                                                    const std::string& body);

}  // namespace cyclocc::input
