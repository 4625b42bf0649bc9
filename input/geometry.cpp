#include "input/geometry.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <system_error>

#include "input/text.hpp"

namespace cyclocc::input::detail {
namespace {

// Atoms closer than this (bohr) are an input error.
constexpr double kMinDistance = 1.0e-4;
// Coordinates beyond this (bohr) are an input error: their squares reach
// the integrals, and at 1e200 the SCF ran on infinities.
constexpr double kMaxCoordinate = 1.0e6;

// The line without a trailing "# comment".
std::string_view strip_comment(std::string_view text) {
  const auto hash = text.find('#');
  return hash == std::string_view::npos ? text : text.substr(0, hash);
}

double coordinate(std::string_view field, const SourceLine& line, std::string_view file,
                  std::string_view key) {
  double value = 0;
  switch (parse_real(field, value)) {
    case NumberStatus::Ok: return value;
    case NumberStatus::NotFinite:
      fail(file, line.line, key, "coordinate " + quote(field) + " is not a finite number");
    case NumberStatus::NotNumber: break;
  }
  fail(file, line.line, key, "coordinate " + quote(field) + " is not a number");
}

Atom parse_atom(const std::vector<std::string_view>& fields, const SourceLine& line,
                double to_bohr, std::string_view file, std::string_view key) {
  if (fields.size() != 4)
    fail(file, line.line, key,
         "expected \"symbol x y z\", got " + std::to_string(fields.size()) + " field" +
             (fields.size() == 1 ? "" : "s") + " in " + quote(line.text));
  Atom atom;
  atom.Z = atomic_number(std::string(fields[0]));
  if (atom.Z == 0)
    fail(file, line.line, key,
         "unknown element " + quote(fields[0]) + " (expected a plain element symbol, H to Rn)");
  atom.symbol = element_symbol(atom.Z);
  for (std::size_t k = 0; k < 3; ++k) {
    atom.xyz[k] = coordinate(fields[k + 1], line, file, key) * to_bohr;
    if (!(std::abs(atom.xyz[k]) <= kMaxCoordinate))
      fail(file, line.line, key,
           "coordinate " + quote(fields[k + 1]) + " is too large (at most 1e6 bohr from the origin)");
  }
  return atom;
}

std::string format_distance(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", d);
  return buf;
}

}  // namespace

std::vector<SourceLine> split_lines(std::string_view text, int first_line, int fallback_line) {
  std::vector<SourceLine> lines;
  std::size_t start = 0;
  int number = first_line;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back({text.substr(start, end - start), first_line > 0 ? number : fallback_line});
    ++number;
    start = end + 1;
  }
  return lines;
}

AtomList parse_atom_lines(const std::vector<SourceLine>& lines, double to_bohr,
                          std::string_view file, std::string_view key, bool comments) {
  AtomList list;
  for (const auto& line : lines) {
    const auto fields = split_fields(comments ? strip_comment(line.text) : line.text);
    if (fields.empty()) continue;
    list.atoms.push_back(parse_atom(fields, line, to_bohr, file, key));
    list.lines.push_back(line.line);
  }
  return list;
}

AtomList read_xyz_file(const std::string& path, std::string_view key, std::string_view input_file,
                       int input_line) {
  constexpr std::size_t kMaxBytes = std::size_t{64} << 20;
  std::string text, reason;
  if (!read_text_file(path, kMaxBytes, text, reason))
    fail(input_file, input_line, key, "the xyz file " + quote_path(path) + " " + reason);
  return parse_xyz_text(text, path, key);
}

AtomList parse_xyz_text(std::string_view text, std::string_view file, std::string_view key) {
  auto lines = split_lines(text, 1, 0);
  if (lines.size() > 1 && lines.back().text.empty()) lines.pop_back();  // the final newline
  const auto count_fields = split_fields(lines[0].text);
  int count = 0;
  if (count_fields.size() != 1 || parse_integer(count_fields[0], count) != NumberStatus::Ok ||
      count < 0)
    fail(file, 1, key, "the first line must be the number of atoms, got " + quote(lines[0].text));
  if (count == 0) fail(file, 1, key, "the xyz file has no atoms");
  const std::size_t n = static_cast<std::size_t>(count);
  if (lines.size() < n + 2)
    fail(file, 0, key,
         "expected " + std::to_string(n) + " atoms after the comment line, found " +
             std::to_string(lines.size() < 2 ? 0 : lines.size() - 2) + " lines");
  const auto first = lines.begin() + 2, last = first + static_cast<std::ptrdiff_t>(n);
  for (auto it = first; it != last; ++it)
    if (split_fields(it->text).empty()) fail(file, it->line, key, "blank line among the atoms");
  for (auto it = last; it != lines.end(); ++it)
    if (!split_fields(it->text).empty())
      fail(file, it->line, key,
           "text after the " + std::to_string(n) + " atoms the first line announces");
  // xyz has no comments: every announced line must be an atom
  AtomList list = parse_atom_lines({first, last}, 1.0 / kBohrAngstrom, file, key, false);
  check_coincident_atoms(list, file, key);
  return list;
}

void check_coincident_atoms(const AtomList& list, std::string_view file, std::string_view key) {
  // Sweep over the atoms sorted by x: only neighbours within kMinDistance in x can clash.
  const auto& atoms = list.atoms;
  std::vector<std::size_t> order(atoms.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return atoms[a].xyz[0] < atoms[b].xyz[0] || (atoms[a].xyz[0] == atoms[b].xyz[0] && a < b);
  });
  for (std::size_t p = 0; p < order.size(); ++p) {
    for (std::size_t q = p + 1; q < order.size(); ++q) {
      const Atom& a = atoms[order[p]];
      const Atom& b = atoms[order[q]];
      if (b.xyz[0] - a.xyz[0] >= kMinDistance) break;
      const double d = std::hypot(a.xyz[0] - b.xyz[0], a.xyz[1] - b.xyz[1], a.xyz[2] - b.xyz[2]);
      if (d >= kMinDistance) continue;
      const std::size_t i = std::min(order[p], order[q]), j = std::max(order[p], order[q]);
      fail(file, list.lines[j], key,
           "atoms " + std::to_string(i + 1) + " (" + atoms[i].symbol + ") and " +
               std::to_string(j + 1) + " (" + atoms[j].symbol + ") coincide: " +
               format_distance(d) + " bohr apart, less than 1e-4");
    }
  }
}

std::string file_problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return "does not exist";
  if (!fs::is_regular_file(status)) return "is not a regular file";
  return "";
}

bool read_text_file(const std::string& path, std::size_t max_bytes, std::string& text,
                    std::string& reason) {
  reason = file_problem(path);
  if (!reason.empty()) return false;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return reason = "cannot be read (" + ec.message() + ")", false;
  if (size > max_bytes)
    return reason = "is larger than " + std::to_string(max_bytes >> 20) + " MB", false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return reason = "cannot be opened (" + std::generic_category().message(errno) + ")", false;
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad() || text.size() > max_bytes) return reason = "cannot be read", false;
  return true;
}

}  // namespace cyclocc::input::detail
