#include "input/text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "input/input.hpp"

namespace cyclocc::input::detail {

// Replaces control characters, so the message stays on one line.
std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    }
  }
  return out;
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Skips digits from `i`; returns how many.
std::size_t skip_digits(std::string_view s, std::size_t& i) {
  const std::size_t start = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  return i - start;
}

bool looks_non_finite(std::string_view text) {
  std::string t = lower(text);
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.erase(0, 1);
  if (!t.empty() && t[0] == '.') t.erase(0, 1);
  return t == "nan" || t == "inf" || t == "infinity";
}

bool is_decimal_number(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t digits = skip_digits(s, i);
  if (i < s.size() && s[i] == '.') {
    ++i;
    digits += skip_digits(s, i);
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (skip_digits(s, i) == 0) return false;
  }
  return i == s.size();
}

}  // namespace

void fail(std::string_view file, int line, std::string_view key, std::string_view what) {
  throw InputError(
      input_error_message(std::string(file), line, std::string(key), std::string(what)));
}

std::string quote(std::string_view text) {
  constexpr std::size_t kMax = 40;
  const bool long_text = text.size() > kMax;
  std::string out = "\"" + one_line(text.substr(0, kMax));
  return out + (long_text ? "...\"" : "\"");
}

std::string quote_path(std::string_view path) { return "\"" + one_line(path) + "\""; }

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

NumberStatus parse_real(std::string_view text, double& value) {
  if (looks_non_finite(text)) return NumberStatus::NotFinite;
  if (!is_decimal_number(text)) return NumberStatus::NotNumber;
  if (text[0] == '+') text.remove_prefix(1);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    // overflow is not finite; underflow (1e-400) is a tiny number: let strtod tell them apart
    value = std::strtod(std::string(text).c_str(), nullptr);
    return std::isfinite(value) ? NumberStatus::Ok : NumberStatus::NotFinite;
  }
  if (ec != std::errc() || end != text.data() + text.size()) return NumberStatus::NotNumber;
  return std::isfinite(value) ? NumberStatus::Ok : NumberStatus::NotFinite;
}

NumberStatus parse_integer(std::string_view text, int& value) {
  std::size_t i = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  if (skip_digits(text, i) == 0 || i != text.size()) return NumberStatus::NotNumber;
  if (text[0] == '+') text.remove_prefix(1);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) return NumberStatus::NotFinite;
  if (ec != std::errc() || end != text.data() + text.size()) return NumberStatus::NotNumber;
  return NumberStatus::Ok;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  constexpr std::string_view kSpace = " \t\r\v\f";
  std::vector<std::string_view> fields;
  std::size_t i = line.find_first_not_of(kSpace);
  while (i != std::string_view::npos) {
    const std::size_t end = line.find_first_of(kSpace, i);
    fields.push_back(line.substr(i, end == std::string_view::npos ? end : end - i));
    i = line.find_first_not_of(kSpace, end == std::string_view::npos ? line.size() : end);
  }
  return fields;
}

}  // namespace cyclocc::input::detail

namespace cyclocc::input {

std::string input_error_message(const std::string& file, int line, const std::string& key,
                                const std::string& what) {
  std::string message = detail::one_line(file);
  if (line > 0) message += ":" + std::to_string(line);
  message += ": ";
  constexpr std::size_t kMaxKey = 60;  // unknown keys can be anything
  if (!key.empty())
    message += detail::one_line(key.substr(0, kMaxKey)) + (key.size() > kMaxKey ? "...: " : ": ");
  message += detail::one_line(what);
  return message;
}

}  // namespace cyclocc::input
