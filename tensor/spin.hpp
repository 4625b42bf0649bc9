// Spin-integrated tensors: a spin-orbital quantity held as its spin blocks,
// with spin-orbital equations expanded into every allowed spin case (as in
// Aquarius; Solomonik et al., seeds/000 §3).
//
// A SpinTensor has one orbital space per index ('o' occupied, 'v' virtual)
// and antisymmetric groups as in Shape. Its first half of indices are upper
// (creation), the second half lower; a block exists when it conserves spin
// between the halves. A block is named by one spin per index, 'a' (alpha) or
// 'b' (beta), alpha before beta inside each antisymmetric group, e.g. T2 has
// "aaaa", "abab", "bbbb" and T3 "aaaaaa", "aabaab", "abbabb", "bbbbbb". Inside
// a block, indices of the same group and spin stay antisymmetric (packed).
//
// contract() and sum() take the spin-orbital expression (factors as in
// contract.hpp, output symmetry applied at the spin-orbital level) and issue
// one block contraction per distinct spin case: for each output block s and
// each double coset G_s t H of the output's permutation group G (G_s: the
// permutations that keep s; H: those the product already has), the relabelled
// product t*P goes into block s, whose own antisymmetry then adds G_s / H.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "tensor/contract.hpp"
#include "tensor/expr.hpp"
#include "tensor/tensor.hpp"

namespace cyclocc::tensor {

struct SpinDims {
  int occ[2] = {0, 0};  // [0] alpha, [1] beta
  int vir[2] = {0, 0};
  // Closed shell: every quantity is unchanged when all spins are flipped, so a
  // block and its flipped partner hold the same numbers (up to a reordering of
  // indices and a sign). Only one of each pair is computed; the other is
  // filled from it. Requires equal alpha and beta dimensions.
  bool restricted = false;
  // A window of the occupied orbitals (space 'w'): win[s] orbitals starting
  // at occupied orbital win_offset[s], for working in batches of one index.
  int win[2] = {0, 0};
  int win_offset[2] = {0, 0};
  int len(char space, char spin) const {
    const int s = spin == 'a' ? 0 : 1;
    return space == 'o' ? occ[s] : space == 'v' ? vir[s] : win[s];
  }
};

class SpinTensor {
 public:
  // along >= 0: every block puts all ranks along its group of indices that
  // holds that position (in a block of mixed spins a pair of sym falls apart
  // into two groups) instead of the context's default mapping, e.g. the
  // window index of the (T) triples, so that each contraction into them can
  // leave every rank's part where it is, or the ket of <vv||vv>, so that it
  // can be built a window of rows at a time (Tensor::add_rows).
  SpinTensor(Context& ctx, const SpinDims& dims, std::string spaces, std::vector<Sym> sym, std::string name = "",
             int along = -1);
  // Same structure and mappings, zero blocks.
  static SpinTensor zeros_like(const SpinTensor& like, std::string name = "");
  // A zero tensor with the context and orbital spaces of `like` but its own
  // index spaces and symmetry (intermediates of the CC equations).
  static SpinTensor zeros_like(const SpinTensor& like, std::string spaces, std::vector<Sym> sym, std::string name);

  Context& ctx() const { return *ctx_; }
  const SpinDims& dims() const { return dims_; }
  const std::string& spaces() const { return spaces_; }
  const std::vector<Sym>& sym() const { return sym_; }
  int order() const { return static_cast<int>(spaces_.size()); }
  const std::string& name() const { return name_; }

  std::vector<std::string> block_keys() const;
  // The blocks that are computed, not filled from a flipped partner
  // (derived): all of them unless restricted.
  std::vector<std::string> computed_keys() const;
  // In a restricted calculation: whether a block is filled from its flipped partner.
  bool derived(const std::string& spins) const;
  // For sums over blocks of quantities unchanged by a global spin flip: 0 for a
  // block that is its partner's flipped image (restricted), 2 for that partner,
  // 1 otherwise. Summing weight x f(block) over the blocks equals summing f
  // over all of them, without filling the flipped images.
  int flip_weight(const std::string& spins) const;
  // Fills every derived block from its partner (no-op unless restricted).
  // contract() and sum() write only the computed blocks and leave the derived
  // ones to be filled when they are next read (ensure_derived), each block
  // only when it is read, with the blocks it is made from.
  void fill_derived();
  void ensure_derived() const;
  void ensure_derived(std::set<std::string> keys) const;
  // After writing the computed blocks directly (through block()): the derived
  // ones are refilled when they are next read.
  void blocks_written();
  // Makes the blocks unchanged by a global spin flip: each block is averaged
  // with the flipped image of its partner, then derived blocks are filled.
  // For two- and four-index tensors this makes any blocks closed-shell (spin
  // free); six-index ones need a spin-free construction (see the tests).
  void flip_symmetrize();
  bool has_block(const std::string& spins) const;
  // A computed block to be written directly: unlike block(), the derived
  // blocks are not filled first, only marked to be refilled when next read.
  Tensor& write_block(const std::string& spins);
  // Restricted, a block that is its own flipped partner (T2 abab): a tensor
  // of its shape to add one term of each mirror pair into; the block gets it
  // plus its flipped image when next read (as contract() does with them).
  Tensor& mirror_half(const std::string& spins);
  Tensor& block(const std::string& spins);
  const Tensor& block(const std::string& spins) const;

  void set_zero();
  void scale(double alpha);
  // Marks every block constant (Tensor::set_constant), e.g. the integrals.
  void set_constant(bool constant);
  // Every block holds its prepared copies (Tensor::hold_prepared) while the
  // tensor does not change, derived blocks from when they are filled.
  void hold_prepared(bool hold) const;
  // Sum of the packed dot products of all blocks (every unique amplitude once).
  double dot(const SpinTensor& o) const;
  // dot(*o) for every o at once (Tensor::dots on each block).
  std::vector<double> dots(const std::vector<const SpinTensor*>& others) const;
  // dot(o) split by spin blocks: `one_spin` over the blocks whose indices
  // all have one spin (T2's same-spin pairs), `mixed` over the others.
  struct SpinParts {
    double one_spin = 0;
    double mixed = 0;
  };
  SpinParts dot_by_spin(const SpinTensor& o) const;
  // The k largest elements (Tensor::largest) over the computed blocks (for
  // restricted ones not those filled from others: T2's mixed-spin block
  // only), each with its block's spins, by decreasing magnitude (collective).
  struct Element {
    std::string spins;
    std::vector<int> index;
    double value = 0;
  };
  std::vector<Element> largest(int k) const;
  double norm2() const;
  // Elements this rank stores for the tensor: the computed blocks, the
  // derived ones that have been read (a derived block is allocated when it is
  // first filled), and pending mirror halves.
  std::int64_t local_words() const;

  IndexedT<SpinTensor> operator[](const std::string& labels);
  IndexedT<SpinTensor> operator[](const std::string& labels) const;

 private:
  Context* ctx_;
  SpinDims dims_;
  std::string spaces_;
  std::vector<Sym> sym_;
  std::string name_;
  int along_ = -1;
  std::vector<std::string> keys_;           // every block, sorted
  mutable std::map<std::string, Tensor> blocks_;  // the allocated ones (stored())
  mutable std::set<std::string> stale_;   // derived blocks out of date (or not allocated)
  bool constant_ = false;                  // set_constant, for blocks allocated later
  // The block's tensor, allocated (zero) if it is not yet: a derived block
  // is allocated when it is first filled. Logically const (stale until filled).
  Tensor& stored(const std::string& spins) const;
  mutable HeldFlag held_;                 // hold_prepared
  // Restricted blocks that are their own flipped partner (T2 abab) receive one
  // term of each mirror pair here; the block gets X + X(flipped) when it is
  // next read (add_halves), once for all the contractions into it.
  mutable std::map<std::string, Tensor> halves_;
  void add_halves() const;
  Tensor& half_of(const std::string& spins);
  // add(key, j, d) for each block that counts in the dot products with
  // others[j], d its weighted part (dots).
  void each_block_dot(const std::vector<const SpinTensor*>& others,
                      const std::function<void(const std::string&, std::size_t, double)>& add) const;

  friend void contract(double, const SpinTensor&, const std::string&, const SpinTensor&, const std::string&, double,
                       SpinTensor&, const std::string&);
  friend void sum(double, const SpinTensor&, const std::string&, double, SpinTensor&, const std::string&);
};

// Holds the prepared copies of tensors that outlive a scope in which they do
// not change (SpinTensor::hold_prepared), and drops them when the scope ends.
class HoldPrepared {
 public:
  explicit HoldPrepared(std::vector<const SpinTensor*> held) : held_(std::move(held)) {
    for (const SpinTensor* x : held_) x->hold_prepared(true);
  }
  ~HoldPrepared() {
    for (const SpinTensor* x : held_) x->hold_prepared(false);
  }
  HoldPrepared(const HoldPrepared&) = delete;
  HoldPrepared& operator=(const HoldPrepared&) = delete;

 private:
  std::vector<const SpinTensor*> held_;
};

// Every spin block key of a structure (alpha first inside each group),
// conserving spin between the upper and lower halves.
std::vector<std::string> spin_blocks(const std::string& spaces, const std::vector<Sym>& sym);

// The part of `src` where the indices marked 'w' in `spaces` (occupied in
// src) lie in the window of `dims`; other positions keep src's space.
SpinTensor window_slice(const SpinTensor& src, const SpinDims& dims, const std::string& spaces,
                        std::string name = "");

// Closed-shell (restricted) tensors of order 2 or 4 in spatial orbitals, so
// that closed-shell equations need not name spin blocks. The direct block
// pairs upper index n with lower index n, alpha for n = 0 and beta for n = 1:
// t_i^a, t_ij^ab = t_{i j-bar}^{a b-bar}, <pq|rs> = <p q-bar||r s-bar>. The
// exchanged block of an order-4 tensor pairs upper index 0 with lower index 1
// instead: W_mbej's <m b-bar||e-bar j>.
enum class Pairing { direct, exchanged };
const Tensor& spatial_block(const SpinTensor& x, Pairing p = Pairing::direct);
// The same block, to write: it must be computed, not derived (SpinTensor::write_block).
Tensor& spatial_write_block(SpinTensor& x, Pairing p = Pairing::direct);
// The direct order-4 block's mirror half (SpinTensor::mirror_half): R(abab)
// gets what is added to it plus that with both pairs exchanged, X + X(ba,ji).
Tensor& spatial_mirror_half(SpinTensor& x);

// The direct block as a dense array, row-major over the tensor's index
// order, on every rank (collective): for work each rank does on local copies.
std::vector<double> spatial_array(const SpinTensor& x);

void contract(double alpha, const SpinTensor& A, const std::string& la, const SpinTensor& B, const std::string& lb,
              double beta, SpinTensor& C, const std::string& lc);
void sum(double alpha, const SpinTensor& A, const std::string& la, double beta, SpinTensor& B,
         const std::string& lb);

}  // namespace cyclocc::tensor
