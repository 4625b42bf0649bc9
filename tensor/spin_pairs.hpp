// Spin-orbital four-index quantities as matrices over index pairs, for the
// ring (particle-hole) products of open-shell CC: R_aibj = sum_em T_aiem W_embj
// as a few large matrix products instead of one product per spin case.
//
// A pair (p q) joins one upper and one lower index of a SpinTensor. Its spin
// transfer d = spin(p) - spin(q) (alpha 0, beta 1) sorts the pairs into three
// classes: class 0 holds the pairs of equal spins, (alpha alpha) and
// (beta beta); class 1 the (beta alpha) pairs (d = +1); class 2 the
// (alpha beta) pairs (d = -1). Spin conservation makes the matrix
// M[(p q), (r s)] of a quantity block diagonal: each row class meets one
// column class. So a PairMatrix holds one dense matrix per row class, and a
// product of two is one dgemm per class. For a UHF ring product the
// same-spin class is one (o_a v_a + o_b v_b)^2 matrix, where the spin blocks
// give eight smaller products, each with its own moves.
//
// Rows and ranks: rank r of P holds the rows of the pairs whose first index
// p is r modulo P. A class orders its pairs by that rank, then (class 0)
// alpha before beta, then p, then q, so each rank's rows are consecutive
// (pair() gives the order). A matrix is held by `rows` (each rank its rows)
// or `whole` (every rank all of it, the same numbers).
//
// Building a matrix held by rows reads a block of a term where it lies if
// the block's ranks lie along the row pair's first index (SpinTensor's
// `along`) and that index is alone in its antisymmetric group (W_mbej along
// b for rows bj, not t2 along a); otherwise, and for a whole matrix, it
// reads a copy of the block gathered whole on every rank. add_to() scatters
// the rank's part into whole copies of the output's blocks and sums those
// over the ranks into place. Which element goes where is worked out on each
// of the first two uses and kept in the Context from the second on, while it
// fits (Context::reserve_local_list_bytes); otherwise on every use.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensor/spin.hpp"

namespace cyclocc::tensor {

class PairMatrix {
 public:
  // One term alpha * x[labels] of a matrix's elements: labels name x's four
  // indices, rows and cols (given to the constructor) two each of them.
  struct Term {
    double alpha = 1.0;
    const SpinTensor* x = nullptr;
    std::string labels;
  };
  enum class Placement { rows, whole };

  // M[(rows[0] rows[1]), (cols[0] cols[1])] = sum of the terms' spin-orbital
  // elements, held as `placement`. Each pair must join an
  // upper and a lower index, and all terms must give the pairs the same
  // orbital spaces. Collective.
  PairMatrix(const std::vector<Term>& terms, const std::string& rows, const std::string& cols, Placement placement,
             std::string name);

  // this += alpha a b, and alpha a b held by rows: a held by rows or whole
  // (its rows of this rank are read), b whole. One local dgemm per class.
  // Not collective.
  void add_product(double alpha, const PairMatrix& a, const PairMatrix& b);
  static PairMatrix product(double alpha, const PairMatrix& a, const PairMatrix& b, std::string name);

  // y[labels] += alpha * M, rows and cols naming the positions of M's pairs
  // among labels. As in contract(), y's declared antisymmetry adds the
  // permutations M lacks: y_abij += M_aibj - M_biaj - M_ajbi + M_bjai for
  // rows "ai" and cols "bj" of an antisymmetric y. y must not be restricted
  // (its blocks are all computed). Collective.
  void add_to(double alpha, SpinTensor& y, const std::string& labels, const std::string& rows,
              const std::string& cols) const;

  Placement placement() const { return placement_; }
  const SpinDims& dims() const { return dims_; }
  // The orbital spaces of the row pair and of the column pair ("vo", ...).
  const std::string& row_spaces() const { return spaces_[0]; }
  const std::string& col_spaces() const { return spaces_[1]; }
  // The column class that row class c meets.
  int col_class(int c) const { return col_class_[c]; }
  // Pairs of class c of the rows (side 0) or the columns (side 1).
  int count(int side, int c) const;
  // Pair k of class c of a side: spins (0 alpha, 1 beta) and orbital indices of p and q.
  struct Pair {
    int spin[2] = {0, 0};
    int index[2] = {0, 0};
  };
  Pair pair(int side, int c, int k) const;
  // Row class c's matrix whole (rows x columns of the class), on every rank
  // (collective; for tests).
  std::vector<double> gather(int c) const;

  // The order of the pairs of one class of two spaces on P ranks.
  struct Order {
    std::vector<Pair> pairs;
    std::vector<int> at;     // position of the pair of natural index p * n_q + q (after class 0's alpha part)
    std::vector<int> first;  // rank r's pairs are [first[r], first[r + 1])
  };

 private:
  PairMatrix(Context& ctx, const SpinDims& dims, std::array<std::string, 2> spaces, std::array<int, 3> col_class,
             Placement placement, std::string name);
  Context* ctx_;
  SpinDims dims_;
  std::array<std::string, 2> spaces_;
  std::array<int, 3> col_class_{};
  Placement placement_;
  std::string name_;
  // [side][class]
  std::array<std::array<std::shared_ptr<const Order>, 3>, 2> order_;
  std::array<std::vector<double>, 3> data_;  // row class c: local rows x count(1, col_class(c))
  // The first row held and the number of rows held of class c.
  int row0(int c) const;
  int local_rows(int c) const;
  // The rows of class c, as offsets into data_, that this rank accounts for:
  // all it holds by rows, its own range of a whole matrix.
  std::pair<int, int> own_rows(int c) const;
  std::string lists_key(const std::string& what) const;
  void fill(const std::vector<Term>& terms, const std::string& rows, const std::string& cols);
};

}  // namespace cyclocc::tensor
