// Internal text helpers of the parser: one-line error messages
// "FILE:LINE: key: what is wrong" (input.hpp), strict number parsing, fields.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cyclocc::input::detail {

// Throws InputError("FILE:LINE: key: what"); line <= 0 drops ":LINE", an empty
// key drops "key: ". Newlines and control characters never reach the message.
[[noreturn]] void fail(std::string_view file, int line, std::string_view key,
                       std::string_view what);

// Text with control characters escaped (\n, \t, \xNN), so it stays on one line.
std::string one_line(std::string_view text);

// User text for a message: in double quotes, control characters escaped,
// shortened to about 40 characters.
std::string quote(std::string_view text);
// A file path for a message: in double quotes, control characters escaped,
// never shortened (the user must see which file).
std::string quote_path(std::string_view path);

// ASCII lower case.
std::string lower(std::string_view text);

enum class NumberStatus { Ok, NotNumber, NotFinite };

// A decimal number: [+-] digits [. digits] [e[+-]digits] (or .digits). "nan",
// "inf", ".inf" and overflowing values are NotFinite; other text NotNumber.
NumberStatus parse_real(std::string_view text, double& value);

// A decimal integer [+-]digits that fits in int; NotFinite = out of range.
NumberStatus parse_integer(std::string_view text, int& value);

// Whitespace-separated fields of one line.
std::vector<std::string_view> split_fields(std::string_view line);

}  // namespace cyclocc::input::detail
