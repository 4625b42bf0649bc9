#include "input/values.hpp"

#include <stdexcept>

#include "input/text.hpp"

namespace cyclocc::input::detail {
namespace {

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a sequence";
    case YAML::NodeType::Null: return "no value";
    case YAML::NodeType::Scalar: return quote(node.Scalar());
    case YAML::NodeType::Undefined: break;
  }
  return "nothing";
}

std::string join(const std::vector<std::string_view>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

std::string expected(ValueKind kind) {
  switch (kind) {
    case ValueKind::Boolean: return "true or false";
    case ValueKind::Integer: return "an integer";
    case ValueKind::Real: return "a number";
    case ValueKind::FrozenCore: return "true, false or an integer count";
    case ValueKind::Geometry: return "lines \"symbol x y z\"";
    case ValueKind::Path: return "a file name";
    case ValueKind::Section: return "a mapping of keys";
    default: return "a single value";
  }
}

}  // namespace

int line_of(const YAML::Node& node) {
  if (!node.IsDefined()) return 0;
  const YAML::Mark mark = node.Mark();
  return mark.is_null() || mark.line < 0 ? 0 : mark.line + 1;
}

Section::Section(const YAML::Node& node, std::string name, std::string_view file, int line)
    : name_(std::move(name)), file_(file), line_(line) {
  if (node.IsNull()) return;
  if (!node.IsMap())
    fail(file_, line_of(node) > 0 ? line_of(node) : line_, name_.empty() ? "" : name_,
         "expected a mapping of keys (" + join(keys_in_section(name_)) + "), got " +
             describe(node));
  for (auto it = node.begin(); it != node.end(); ++it) add_entry(it->first, it->second);
}

void Section::add_entry(const YAML::Node& key, const YAML::Node& value) {
  const int line = line_of(key);
  if (!key.IsScalar() || key.Scalar().empty())
    fail(file_, line, name_, "keys must be plain names, got " + describe(key));
  const std::string leaf = key.Scalar();
  const std::string dotted = name_.empty() ? leaf : name_ + "." + leaf;
  if (leaf.find('.') != std::string::npos || find_key(dotted) == nullptr) {
    std::string what = "unknown key";
    const std::string suggestion = suggest_key(name_, leaf);
    if (find_key(dotted) != nullptr)
      what += "; write sections nested, one key per line";
    else if (!suggestion.empty())
      what += "; did you mean " + suggestion + "?";
    else
      what += " (valid here: " + join(keys_in_section(name_)) + ")";
    fail(file_, line, dotted, what);
  }
  if (const auto it = entries_.find(leaf); it != entries_.end())
    fail(file_, line, dotted,
         "given twice (first on line " + std::to_string(line_of(it->second.key)) + ")");
  entries_.emplace(leaf, Entry{key, value});
}

std::string Section::key(std::string_view leaf) const {
  return name_.empty() ? std::string(leaf) : name_ + "." + std::string(leaf);
}

int Section::line(std::string_view leaf) const {
  const auto it = entries_.find(leaf);
  if (it == entries_.end()) return line_;
  // A missing value (`key:`) has no position of its own worth reporting.
  const int value_line = it->second.value.IsNull() ? 0 : line_of(it->second.value);
  return value_line > 0 ? value_line : line_of(it->second.key);
}

int Section::key_line(std::string_view leaf) const {
  const auto it = entries_.find(leaf);
  return it == entries_.end() ? line_ : line_of(it->second.key);
}

const YAML::Node& Section::node(std::string_view leaf) const {
  const auto it = entries_.find(leaf);
  if (it == entries_.end()) throw std::logic_error("Section::node: absent key " + key(leaf));
  return it->second.value;
}

const KeySpec& Section::spec(std::string_view leaf) const {
  const KeySpec* spec = find_key(key(leaf));
  if (spec == nullptr) throw std::logic_error("input schema has no key " + key(leaf));
  return *spec;
}

void Section::fail_at(std::string_view leaf, const std::string& what) const {
  fail(file_, line(leaf), key(leaf), what);
}

std::optional<std::string> Section::raw(std::string_view leaf, bool plain_only) const {
  const KeySpec& s = spec(leaf);
  if (!has(leaf)) {
    if (s.default_value.empty()) return std::nullopt;
    return std::string(s.default_value);
  }
  const YAML::Node& value = node(leaf);
  if (value.IsNull()) fail_at(leaf, "has no value; expected " + expected(s.kind));
  if (!value.IsScalar()) fail_at(leaf, "expected " + expected(s.kind) + ", got " + describe(value));
  // A NUL would end the value in every message and file name made of it.
  if (value.Scalar().find('\0') != std::string::npos) fail_at(leaf, "the value contains a NUL byte");
  // A quoted "8" is text, not a number: plain scalars only for typed keys.
  if (plain_only && value.Tag() == "!")
    fail_at(leaf, "expected " + expected(s.kind) + ", got the quoted text " + quote(value.Scalar()));
  return value.Scalar();
}

std::optional<std::string> Section::text(std::string_view leaf) const { return raw(leaf, false); }

std::optional<std::string> Section::path(std::string_view leaf) const {
  auto value = raw(leaf, false);
  if (!value) return value;
  if (value->empty()) fail_at(leaf, "the file name is empty");
  return value;
}

std::optional<std::string> Section::choice_if_given(std::string_view leaf) const {
  if (!has(leaf)) return std::nullopt;
  return choice(leaf);
}

std::string Section::choice(std::string_view leaf) const {
  const KeySpec& s = spec(leaf);
  const auto value = raw(leaf, false);
  if (!value) throw std::logic_error("choice without a default: " + key(leaf));
  const std::string given = lower(*value);
  for (const auto& c : s.choices)
    if (given == c) return given;
  fail_at(leaf, "must be one of " + allowed_values(s) + " (got " + quote(*value) + ")");
}

std::optional<bool> Section::boolean(std::string_view leaf) const {
  const auto value = raw(leaf, true);
  if (!value) return std::nullopt;
  const std::string given = lower(*value);
  if (given == "true") return true;
  if (given == "false") return false;
  fail_at(leaf, "expected true or false (got " + quote(*value) + ")");
}

std::optional<int> Section::integer(std::string_view leaf) const {
  const KeySpec& s = spec(leaf);
  const auto value = raw(leaf, true);
  if (!value) return std::nullopt;
  int n = 0;
  switch (parse_integer(*value, n)) {
    case NumberStatus::Ok: break;
    case NumberStatus::NotFinite: fail_at(leaf, "integer out of range (got " + quote(*value) + ")");
    case NumberStatus::NotNumber: fail_at(leaf, "expected an integer (got " + quote(*value) + ")");
  }
  const bool below = s.min_exclusive ? n <= s.min : n < s.min;
  if (below || n > s.max) fail_at(leaf, "must be " + allowed_values(s) + " (got " + *value + ")");
  return n;
}

double Section::real(std::string_view leaf) const {
  const KeySpec& s = spec(leaf);
  const auto value = raw(leaf, true);
  if (!value) throw std::logic_error("number without a default: " + key(leaf));
  double x = 0;
  switch (parse_real(*value, x)) {
    case NumberStatus::Ok: break;
    case NumberStatus::NotFinite:
      fail_at(leaf, "must be a finite number (got " + quote(*value) + ")");
    case NumberStatus::NotNumber: fail_at(leaf, "expected a number (got " + quote(*value) + ")");
  }
  const bool below = s.min_exclusive ? x <= s.min : x < s.min;
  if (below || x > s.max) fail_at(leaf, "must be " + allowed_values(s) + " (got " + *value + ")");
  return x;
}

FrozenCore Section::frozen_core(std::string_view leaf) const {
  const auto value = raw(leaf, true);
  FrozenCore fc;
  if (!value) return fc;
  const std::string given = lower(*value);
  if (given == "false") return fc;
  if (given == "true") {
    fc.kind = FrozenCore::Kind::PerAtom;
    return fc;
  }
  int n = 0;
  if (parse_integer(*value, n) != NumberStatus::Ok || n < 0)
    fail_at(leaf, "expected true, false or an integer count >= 0 (got " + quote(*value) + ")");
  fc.kind = FrozenCore::Kind::Count;
  fc.count = n;
  return fc;
}

}  // namespace cyclocc::input::detail
