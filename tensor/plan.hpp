// Internal: how a contraction or summation is carried out (contract.cpp).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace cyclocc::tensor {

// A symmetric group written as labels, e.g. {"ab", AS}.
struct LGroup {
  std::string labels;
  Sym sym = Sym::NS;
};
using LGroups = std::vector<LGroup>;

LGroups label_groups(const Shape& s, const std::string& labels);
std::string concat(const LGroups& g);
Shape shape_of(const LGroups& g, const std::map<char, int>& len);
// For each label of `to`: its position in `from`.
std::vector<int> positions(const std::string& from, const std::string& to);
// The position range [first, last) of group k of g.
Range range_of(const LGroups& g, std::size_t k);

// One operand: A -> A' (relabel inside groups) -> A_c (remap to the matrix layout).
struct OperandPlan {
  LGroups refined;              // A'
  Shape ref_shape;
  bool relabel = false;         // A' differs from A
  std::vector<int> q;           // A' position -> A position
  Shape mat_shape;              // A_c
  Mapping mat_map;
  std::vector<int> perm;        // A_c position -> A' position
  bool alias = false;           // A_c is A' (no remap)
  // Set when A moves packed, to this mapping (A_c's on A's positions; whole
  // groups of A only), and then unpacks locally into A_c.
  std::optional<Mapping> packed_first;
  bool trans = false;           // A_c is [H|K|I] (B: [H|J|K]) rather than [H|I|K] ([H|K|J])
  std::int64_t predicted = 0;   // words this rank moves for this operand's remap
};

struct ContractionPlan {
  bool swapped = false;         // operands exchanged so that C_c is [H|I|J]
  OperandPlan a, b;
  LGroups c_refined;            // C'': C's positions with the product's symmetry
  Shape c_ref_shape;
  bool c_relabel = false;       // C'' differs from C
  std::vector<int> c_q;         // C position -> C'' position
  Shape c_mat_shape;            // C_c
  Mapping c_mat_map;
  std::vector<int> c_perm;      // C'' position -> C_c position
  bool c_direct = false;        // the dgemm writes into C itself
  // C''': C'' with each group of C that C'' splits packed again, where no
  // grid dimension of C_c's mapping distributes a part of it. Packing such a
  // group is local, so when C_c must move, C''' moves instead: fewer words.
  struct Mid {
    Shape shape;
    Mapping map;                // C_c's mapping, on C'' (equally C''') positions
    std::vector<int> q;         // C''' position -> C'' position
    std::vector<int> back;      // C position -> C''' position
  };
  std::optional<Mid> c_mid;
  bool partial = false;         // contracted indices split over ranks
  int n_batch = 0;              // leading batch (weighting) components of A_c, B_c, C_c
  bool a_unbatched = false;     // A_c lacks them: the same A_c for every batch value
  int n_i = 0, n_j = 0, n_k = 0;  // row, column and contracted components
  double factor = 1;            // prod k! over folded contracted groups
  // Folded contracted symmetric groups, as position ranges in A_c and B_c.
  // The dgemm runs over their packed tuples times k!, which counts a tuple
  // with repeated values (e = f) too often: one operand's copy scales each
  // element by 1 / prod(m!) over the multiplicities m of its values.
  std::vector<Range> a_sy_k, b_sy_k;
  std::string mapping;
  std::int64_t predicted = 0;   // words this rank sends + receives
  double flops = 0;             // this rank's dgemm flops
  double useful = 0;            // the useful flops of the whole contraction (all ranks)
};

// Whether a copy of a constant operand laid out as `copy` is light enough to
// keep: on no rank larger than Context::kept_copy_words(). The plans count a
// light copy's words once, and contract() keeps only light copies.
bool light_kept_copy(const Context& ctx, const Layout& copy);

std::shared_ptr<const ContractionPlan> plan_contraction(const Tensor& A, const std::string& la, const Tensor& B,
                                                        const std::string& lb, const Tensor& C, const std::string& lc);

}  // namespace cyclocc::tensor
