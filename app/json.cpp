#include "app/json.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace cyclocc::app::json {

Value Value::array() {
  Value v;
  v.kind_ = Kind::Array;
  return v;
}

Value Value::object() {
  Value v;
  v.kind_ = Kind::Object;
  return v;
}

Value Value::array_of(const std::vector<double>& xs) {
  Value v = array();
  for (double x : xs) v.push_back(x);
  return v;
}

Value Value::array_of(const std::vector<std::string>& xs) {
  Value v = array();
  for (const auto& x : xs) v.push_back(x);
  return v;
}

Value& Value::push_back(Value v) {
  if (kind_ != Kind::Array) throw std::logic_error("json: push_back on a non-array");
  items_.push_back(std::move(v));
  return items_.back();
}

Value& Value::set(const std::string& key, Value v) {
  if (kind_ != Kind::Object) throw std::logic_error("json: set on a non-object");
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) {
      items_[i] = std::move(v);
      return items_[i];
    }
  }
  keys_.push_back(key);
  items_.push_back(std::move(v));
  return items_.back();
}

const Value* Value::find(const std::string& key) const {
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key) return &items_[i];
  return nullptr;
}

Value* Value::find(const std::string& key) {
  return const_cast<Value*>(static_cast<const Value*>(this)->find(key));
}

std::optional<double> Value::number() const {
  if (kind_ == Kind::Int) return static_cast<double>(i_);
  if (kind_ == Kind::Double) return d_;
  return std::nullopt;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string format_double(double d) {
  if (!std::isfinite(d)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

void Value::dump_to(std::string& out, int depth) const {
  const std::string pad(2 * (depth + 1), ' ');
  const std::string close_pad(2 * depth, ' ');
  switch (kind_) {
    case Kind::Null: out += "null"; return;
    case Kind::Bool: out += b_ ? "true" : "false"; return;
    case Kind::Int: out += std::to_string(i_); return;
    case Kind::Double: out += format_double(d_); return;
    case Kind::String: out += quote(s_); return;
    case Kind::Array: {
      bool flat = true;
      for (const auto& v : items_) flat = flat && v.is_scalar();
      if (items_.empty()) { out += "[]"; return; }
      out += flat ? "[" : "[\n";
      for (std::size_t i = 0; i < items_.size(); ++i) {
        if (!flat) out += pad;
        items_[i].dump_to(out, depth + 1);
        if (i + 1 < items_.size()) out += flat ? ", " : ",\n";
      }
      out += flat ? "]" : "\n" + close_pad + "]";
      return;
    }
    case Kind::Object: {
      if (items_.empty()) { out += "{}"; return; }
      out += "{\n";
      for (std::size_t i = 0; i < items_.size(); ++i) {
        out += pad + quote(keys_[i]) + ": ";
        items_[i].dump_to(out, depth + 1);
        out += i + 1 < items_.size() ? ",\n" : "\n";
      }
      out += close_pad + "}";
      return;
    }
  }
}

std::string Value::dump() const {
  std::string out;
  dump_to(out, 0);
  out += '\n';
  return out;
}

}  // namespace cyclocc::app::json
