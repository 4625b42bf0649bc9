#include "tensor/shape.hpp"

#include <algorithm>
#include <stdexcept>

namespace cyclocc::tensor {

namespace {
std::int64_t binom(std::int64_t n, int k) {
  if (k < 0 || n < k) return 0;
  std::int64_t r = 1;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}
}  // namespace

std::int64_t group_count(int len, int size, Sym sym) {
  if (sym == Sym::AS) return binom(len, size);
  if (sym == Sym::SY) return binom(static_cast<std::int64_t>(len) + size - 1, size);
  return len;
}

// Rank of a strictly increasing tuple y in [0,n): the number of smaller tuples
// is sum_t [C(n - y_{t-1} - 1, k - t) - C(n - y_t, k - t)] with y_{-1} = -1
// (hockey-stick identity on the count of tuples that start with a smaller value).
static std::int64_t strict_rank(const int* y, int k, std::int64_t n) {
  std::int64_t r = 0;
  std::int64_t prev = -1;
  for (int t = 0; t < k; ++t) {
    r += binom(n - prev - 1, k - t) - binom(n - y[t], k - t);
    prev = y[t];
  }
  return r;
}

std::int64_t group_rank(const int* x, int size, int len, Sym sym) {
  if (sym == Sym::NS || size == 1) return x[0];
  if (sym == Sym::AS) return strict_rank(x, size, len);
  int y[kMaxOrder];
  for (int t = 0; t < size; ++t) y[t] = x[t] + t;  // non-decreasing -> strictly increasing
  return strict_rank(y, size, static_cast<std::int64_t>(len) + size - 1);
}

std::vector<int> group_tuples(int len, int size, Sym sym) {
  std::vector<int> out;
  const std::int64_t count = group_count(len, size, sym);
  out.reserve(static_cast<std::size_t>(count * size));
  if (count == 0) return out;
  std::vector<int> x(size);
  const int step = (sym == Sym::AS) ? 1 : 0;
  for (int t = 0; t < size; ++t) x[t] = t * step;
  while (true) {
    out.insert(out.end(), x.begin(), x.end());
    // Odometer: advance the last position that can still grow.
    int t = size - 1;
    while (t >= 0 && x[t] >= len - 1 - (size - 1 - t) * step) --t;
    if (t < 0) break;
    ++x[t];
    for (int u = t + 1; u < size; ++u) x[u] = x[u - 1] + step;
  }
  return out;
}

Shape::Shape(std::vector<int> lens_, std::vector<Sym> sym_) : lens(std::move(lens_)), sym(std::move(sym_)) {
  if (sym.empty()) sym.assign(lens.size(), Sym::NS);
  if (sym.size() != lens.size()) throw std::invalid_argument("Shape: lens and sym differ in length");
  if (order() > kMaxOrder) throw std::invalid_argument("Shape: order above 8");
  if (!sym.empty() && sym.back() != Sym::NS) throw std::invalid_argument("Shape: last symmetry flag must be NS");
  for (int i = 0; i < order(); ++i) {
    if (lens[i] < 0) throw std::invalid_argument("Shape: negative edge length");
    if (sym[i] != Sym::NS) {
      if (lens[i] != lens[i + 1]) throw std::invalid_argument("Shape: symmetric indices differ in length");
      if (i > 0 && sym[i - 1] != Sym::NS && sym[i - 1] != sym[i])
        throw std::invalid_argument("Shape: a group mixes AS and SY");
    }
  }
}

std::vector<Group> Shape::groups() const {
  std::vector<Group> g;
  for (int i = 0; i < order();) {
    Group grp;
    grp.first = i;
    grp.len = lens[i];
    grp.sym = sym[i];
    int j = i;
    while (sym[j] != Sym::NS) ++j;
    grp.size = j - i + 1;
    if (grp.size == 1) grp.sym = Sym::NS;
    g.push_back(grp);
    i = j + 1;
  }
  return g;
}

std::int64_t Shape::packed_size() const {
  std::int64_t n = 1;
  for (const Group& g : groups()) n *= group_count(g.len, g.size, g.sym);
  return n;
}

double Shape::dense_size() const {
  double n = 1;
  for (int l : lens) n *= l;
  return n;
}

std::string Shape::str() const {
  std::string s;
  for (const Group& g : groups()) {
    s += "[";
    for (int t = 0; t < g.size; ++t) s += (t ? "," : "") + std::to_string(g.len);
    if (g.sym == Sym::AS) s += "|AS";
    if (g.sym == Sym::SY) s += "|SY";
    s += "]";
  }
  return s;
}

bool is_packed(const Shape& s, const int* x) {
  for (int i = 0; i < s.order(); ++i) {
    if (x[i] < 0 || x[i] >= s.lens[i]) return false;
    if (s.sym[i] == Sym::AS && !(x[i] < x[i + 1])) return false;
    if (s.sym[i] == Sym::SY && !(x[i] <= x[i + 1])) return false;
  }
  return true;
}

int canonicalize(const Shape& s, int* x) {
  int sign = 1;
  for (const Group& g : s.groups()) {
    if (g.size == 1) continue;
    // Insertion sort counting transpositions.
    for (int a = g.first + 1; a < g.first + g.size; ++a) {
      for (int b = a; b > g.first && x[b - 1] > x[b]; --b) {
        std::swap(x[b - 1], x[b]);
        sign = -sign;
      }
    }
    if (g.sym == Sym::AS) {
      for (int a = g.first + 1; a < g.first + g.size; ++a)
        if (x[a] == x[a - 1]) return 0;
    } else {
      sign = 1;
    }
  }
  return sign;
}

std::int64_t packed_index(const Shape& s, const int* x) {
  std::int64_t k = 0;
  for (const Group& g : s.groups()) {
    k = k * group_count(g.len, g.size, g.sym) + group_rank(x + g.first, g.size, g.len, g.sym);
  }
  return k;
}

void packed_unindex(const Shape& s, std::int64_t k, int* x) {
  const auto groups = s.groups();
  for (auto it = groups.rbegin(); it != groups.rend(); ++it) {
    const Group& g = *it;
    const std::int64_t c = group_count(g.len, g.size, g.sym);
    std::int64_t r = k % c;
    k /= c;
    // Unrank by walking the lexicographic order position by position.
    const int step = (g.sym == Sym::AS) ? 1 : 0;
    int lo = 0;
    for (int t = 0; t < g.size; ++t) {
      const int rest = g.size - 1 - t;
      for (int v = lo;; ++v) {
        // Number of completions of positions t+1.. when position t holds v.
        std::int64_t n_after = (g.sym == Sym::AS) ? binom(g.len - v - 1, rest)
                                                  : binom(static_cast<std::int64_t>(g.len) - v + rest - 1, rest);
        if (r < n_after) {
          x[g.first + t] = v;
          lo = v + step;
          break;
        }
        r -= n_after;
      }
    }
  }
}

}  // namespace cyclocc::tensor
