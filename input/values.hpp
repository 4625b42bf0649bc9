// Internal: the keys of one YAML mapping, checked against the schema, and
// their values converted with the schema's types, defaults and ranges.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "input/input.hpp"
#include "input/schema.hpp"

namespace cyclocc::input::detail {

// 1-based line of a node, or 0 when it has no position.
int line_of(const YAML::Node& node);

class Section {
 public:
  // Checks every key of `node` against the schema section `name` ("" = top
  // level): unknown, duplicate and non-scalar keys are errors. A null node is
  // an empty section; anything else that is not a mapping is an error.
  // `line` locates the section for errors about missing keys.
  Section(const YAML::Node& node, std::string name, std::string_view file, int line);

  bool has(std::string_view leaf) const { return entries_.contains(leaf); }
  std::string key(std::string_view leaf) const;  // dotted name
  int line(std::string_view leaf) const;         // the value's line, else the section's
  int line() const { return line_; }
  int key_line(std::string_view leaf) const;     // the key's line, else the section's
  const YAML::Node& node(std::string_view leaf) const;  // leaf must be present

  // Typed values. An absent key gives the schema's literal default, or
  // nullopt for the optional ones when the schema has none.
  std::optional<std::string> text(std::string_view leaf) const;
  std::optional<std::string> path(std::string_view leaf) const;  // non-empty, unresolved
  std::string choice(std::string_view leaf) const;               // lower case
  std::optional<std::string> choice_if_given(std::string_view leaf) const;
  std::optional<bool> boolean(std::string_view leaf) const;
  std::optional<int> integer(std::string_view leaf) const;
  double real(std::string_view leaf) const;
  FrozenCore frozen_core(std::string_view leaf) const;

 private:
  struct Entry {
    YAML::Node key;
    YAML::Node value;
  };
  const KeySpec& spec(std::string_view leaf) const;
  // The scalar text of a present key, or the schema default; nullopt if neither.
  std::optional<std::string> raw(std::string_view leaf, bool plain_only) const;
  void add_entry(const YAML::Node& key, const YAML::Node& value);
  [[noreturn]] void fail_at(std::string_view leaf, const std::string& what) const;

  std::string name_;
  std::string_view file_;
  int line_ = 0;
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace cyclocc::input::detail
