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

namespace {

// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms,
// surrogates or code points above U+10FFFF) starting at s[i], or 0.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto at = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned c = at(i);
  const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return at(k) >= lo && at(k) <= hi; };
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c == 0xE0) return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(i + 1) && cont(i + 2) ? 3 : 0;
  if (c == 0xED) return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : 0;
  if (c == 0xF0) return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (c == 0xF4) return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  return 0;
}

}  // namespace

// Bytes that are not UTF-8 (an input file in another encoding, quoted in an
// error message) become U+FFFD, so that the file stays valid JSON.
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_length(s, i);
      out += n ? s.substr(i, n) : "\xef\xbf\xbd";  // U+FFFD
      i += n ? n - 1 : 0;
      continue;
    }
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
