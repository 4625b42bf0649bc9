// A small JSON value and emitter for the results file (no external library).
//
// Objects keep their keys in insertion order, so the file reads in the order
// the contract lists its fields. Doubles are written with 17 significant
// digits, which round-trips every IEEE double; NaN and infinities, which JSON
// cannot represent, are written as null.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cyclocc::app::json {

class Value {
 public:
  enum class Kind { Null, Bool, Int, Double, String, Array, Object };

  Value() = default;                       // null
  Value(std::nullptr_t) {}                 // null
  Value(bool b) : kind_(Kind::Bool), b_(b) {}
  Value(int i) : kind_(Kind::Int), i_(i) {}
  Value(std::int64_t i) : kind_(Kind::Int), i_(i) {}
  Value(double d) : kind_(Kind::Double), d_(d) {}
  Value(std::string s) : kind_(Kind::String), s_(std::move(s)) {}
  Value(const char* s) : kind_(Kind::String), s_(s) {}

  static Value array();
  static Value object();
  static Value array_of(const std::vector<double>& xs);
  static Value array_of(const std::vector<std::string>& xs);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }

  // Arrays: append. Throws std::logic_error on a non-array.
  Value& push_back(Value v);
  // Objects: sets key (replacing an existing value in place, or appending).
  // Returns the stored value. Throws std::logic_error on a non-object.
  Value& set(const std::string& key, Value v);
  // Objects: the value of key, or nullptr.
  const Value* find(const std::string& key) const;
  Value* find(const std::string& key);

  // The number held by an Int or Double value; nothing for other kinds.
  std::optional<double> number() const;

  // Text with two-space indentation; arrays of scalars stay on one line.
  std::string dump() const;

 private:
  void dump_to(std::string& out, int depth) const;
  bool is_scalar() const { return kind_ != Kind::Array && kind_ != Kind::Object; }

  Kind kind_ = Kind::Null;
  bool b_ = false;
  std::int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<std::string> keys_;  // objects
  std::vector<Value> items_;       // array elements, or object values parallel to keys_
};

// The JSON string literal for s, with quotes, escaping quotes, backslashes and
// control characters (\n, \t, ... and \u00XX); other bytes pass through (UTF-8).
std::string quote(const std::string& s);
// %.17g, with a ".0" added to integral values so readers keep them floating;
// "null" for NaN and infinities.
std::string format_double(double d);

}  // namespace cyclocc::app::json
