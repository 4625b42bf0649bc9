#include "chem/g94.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include <libint2/libint2_params.h>

#include "input/input.hpp"

namespace cyclocc::chem {
namespace {

using input::InputError;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::string> words;
  for (std::string w; is >> w;) words.push_back(w);
  return words;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Lines of the file with their 1-based numbers, comments and blanks removed.
struct Line {
  int number;
  std::string text;
};

class Cursor {
 public:
  Cursor(const std::string& text, std::string path) : path_(std::move(path)) {
    std::istringstream is(text);
    int n = 0;
    for (std::string raw; std::getline(is, raw);) {
      ++n;
      std::string t = trim(raw);
      if (t.empty() || t[0] == '!') continue;
      lines_.push_back({n, t});
    }
  }
  bool done() const { return pos_ >= lines_.size(); }
  const Line& peek() const { return lines_[pos_]; }
  const Line& next(const char* expecting) {
    if (done()) fail(last_line(), std::string("unexpected end of file, expected ") + expecting);
    return lines_[pos_++];
  }
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw InputError(path_ + ":" + std::to_string(line) + ": " + what);
  }
  int last_line() const { return lines_.empty() ? 1 : lines_.back().number; }

 private:
  std::string path_;
  std::vector<Line> lines_;
  std::size_t pos_ = 0;
};

// Parses a real number, accepting Fortran's D/d exponent marker.
double parse_real(const Cursor& cur, const Line& line, std::string word) {
  for (auto& c : word)
    if (c == 'D' || c == 'd') c = 'E';
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(word, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != word.size() || !std::isfinite(v))
    cur.fail(line.number, "not a number: '" + word + "'");
  return v;
}

int parse_count(const Cursor& cur, const Line& line, const std::string& word) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(word, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != word.size() || v < 1 || v > 100)
    cur.fail(line.number, "bad number of primitives '" + word + "'");
  return v;
}

// Angular momentum of a shell label, -1 for SP, -2 if unknown.
int shell_label_l(const std::string& label) {
  static const std::string letters = "SPDFGHIK";
  const std::string up = [&] {
    std::string u = label;
    for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
  }();
  if (up == "SP" || up == "L") return -1;
  if (up.size() == 1) {
    const auto p = letters.find(up[0]);
    if (p != std::string::npos) return static_cast<int>(p);
  }
  return -2;
}

void read_shell(Cursor& cur, const Line& head, std::vector<RawShell>& out) {
  const auto w = split_words(head.text);
  // Some files add a fourth field (0.0) after the scale; it is ignored.
  if (w.size() < 2 || w.size() > 4) cur.fail(head.number, "expected 'LABEL NPRIM SCALE', got '" + head.text + "'");
  if (w.size() == 4) parse_real(cur, head, w[3]);
  const int l = shell_label_l(w[0]);
  if (l == -2) cur.fail(head.number, "unknown shell label '" + w[0] + "'");
  // The two-electron integrals of this Libint2 build stop at l = 5 (H).
  if (l > LIBINT2_MAX_AM_eri)
    cur.fail(head.number, w[0] + " shells (l = " + std::to_string(l) + ") are beyond the integral library (Libint2 " +
                              "here computes up to l = " + std::to_string(LIBINT2_MAX_AM_eri) + ")");
  const int nprim = parse_count(cur, head, w[1]);
  const double scale = w.size() == 3 ? parse_real(cur, head, w[2]) : 1.0;
  if (!(scale > 0)) cur.fail(head.number, "scale factor must be > 0");
  const int ncoef = l == -1 ? 2 : 1;
  RawShell s, p;
  s.l = l == -1 ? 0 : l;
  p.l = 1;
  for (int k = 0; k < nprim; ++k) {
    const Line& line = cur.next("a primitive line");
    const auto v = split_words(line.text);
    if (static_cast<int>(v.size()) != 1 + ncoef)
      cur.fail(line.number, "expected exponent and " + std::to_string(ncoef) +
                                " coefficient(s), got '" + line.text + "'");
    const double alpha = parse_real(cur, line, v[0]) * scale * scale;
    if (!(alpha > 0)) cur.fail(line.number, "exponent must be > 0");
    s.exponents.push_back(alpha);
    s.coefficients.push_back(parse_real(cur, line, v[1]));
    if (l == -1) {
      p.exponents.push_back(alpha);
      p.coefficients.push_back(parse_real(cur, line, v[2]));
    }
  }
  // A contraction of nothing cannot be normalised (it made the overlap NaN).
  auto all_zero = [](const RawShell& x) {
    return std::all_of(x.coefficients.begin(), x.coefficients.end(), [](double c) { return c == 0.0; });
  };
  if (all_zero(s) || (l == -1 && all_zero(p)))
    cur.fail(head.number, "every contraction coefficient of this " + w[0] + " shell is zero");
  out.push_back(std::move(s));
  if (l == -1) out.push_back(std::move(p));
}

// Reads one element block starting at its "SYMBOL 0" line, through "****".
void read_element(Cursor& cur, G94File& file) {
  const Line& head = cur.next("an element line");
  const auto w = split_words(head.text);
  std::string symbol = w[0];
  if (!symbol.empty() && symbol[0] == '-') symbol = symbol.substr(1);  // "-H 0" style
  const int Z = input::atomic_number(symbol);
  if (w.size() != 2 || Z == 0) cur.fail(head.number, "expected 'ELEMENT 0', got '" + head.text + "'");
  if (file.shells.count(Z)) cur.fail(head.number, "element " + symbol + " appears twice");
  auto& shells = file.shells[Z];
  for (;;) {
    const Line& line = cur.next("'****' closing the element block");
    if (line.text.rfind("****", 0) == 0) break;
    read_shell(cur, line, shells);
  }
  if (shells.empty()) cur.fail(head.number, "element " + symbol + " has no shells");
}

}  // namespace

G94File parse_g94(const std::string& text, const std::string& path) {
  G94File file;
  file.path = path;
  Cursor cur(text, path);
  if (!cur.done()) {
    const std::string first = lower(cur.peek().text);
    if (first == "spherical" || first == "cartesian") {
      file.pure = first == "spherical";
      cur.next("header");
    }
  }
  while (!cur.done()) {
    if (cur.peek().text.rfind("****", 0) == 0) {  // separator before the first element
      cur.next("separator");
      continue;
    }
    read_element(cur, file);
  }
  if (file.shells.empty()) cur.fail(cur.last_line(), "no basis functions in the file");
  return file;
}

G94File read_g94(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open basis set file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_g94(ss.str(), path);
}

}  // namespace cyclocc::chem
