// Tensor shapes: edge lengths and CTF-style symmetry flags, grouped into
// symmetric index groups with packed (lexicographic) ranking.
//
// sym[i] relates index i and index i+1 (as in Cyclops Tensor Framework):
//   NS  no symmetry,
//   AS  antisymmetric: stored packed with x_i < x_{i+1},
//   SY  symmetric:     stored packed with x_i <= x_{i+1}.
// A maximal run of indices joined by AS (or SY) flags is a group; all indices
// of a group have the same edge length. The last flag is always NS.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cyclocc::tensor {

enum class Sym : std::uint8_t { NS, AS, SY };

inline constexpr int kMaxOrder = 8;

struct Group {
  int first = 0;      // first index position
  int size = 1;       // number of indices
  Sym sym = Sym::NS;  // NS for a single index
  int len = 0;        // edge length shared by the group's indices
};

// Number of packed tuples of a group: C(n,k) (AS), C(n+k-1,k) (SY), n (NS, k=1).
std::int64_t group_count(int len, int size, Sym sym);

// Lexicographic rank of a packed tuple among all packed tuples of its group.
// x must be valid (strictly increasing for AS, non-decreasing for SY).
std::int64_t group_rank(const int* x, int size, int len, Sym sym);

// All packed tuples of a group in lexicographic order, flattened (count x size).
std::vector<int> group_tuples(int len, int size, Sym sym);

struct Shape {
  std::vector<int> lens;
  std::vector<Sym> sym;

  Shape() = default;
  Shape(std::vector<int> lens_, std::vector<Sym> sym_);
  int order() const { return static_cast<int>(lens.size()); }
  std::vector<Group> groups() const;
  // Number of stored (packed) elements.
  std::int64_t packed_size() const;
  // Number of elements of the dense (unpacked) tensor.
  double dense_size() const;
  bool operator==(const Shape& o) const { return lens == o.lens && sym == o.sym; }
  std::string str() const;  // e.g. "[5,5|AS][7,7|AS]"
};

// Checks a packed tuple: increasing inside AS groups, non-decreasing inside SY.
bool is_packed(const Shape& s, const int* x);

// Sorts x inside each group of s (in place). Returns the sign of the sort for
// antisymmetric groups (+1 or -1), or 0 if an antisymmetric group repeats a value.
int canonicalize(const Shape& s, int* x);

// Canonical packed linear index (lexicographic over groups, each group packed).
std::int64_t packed_index(const Shape& s, const int* x);
// Inverse of packed_index.
void packed_unindex(const Shape& s, std::int64_t k, int* x);

}  // namespace cyclocc::tensor
