// Internal to the spin layer (spin.cpp): how a spin-orbital expression
// expands into block operations, and the spin-block helpers both files use.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tensor/spin.hpp"

namespace cyclocc::tensor::spin_terms {

// Groups of a symmetry-flag vector, as position lists.
std::vector<std::vector<int>> groups_of(const std::vector<Sym>& sym);

// The symmetry flags of block `spins`: indices of one spin-orbital group
// stay antisymmetric where they have the same spin.
std::vector<Sym> block_sym(const std::vector<Sym>& sym, const std::string& spins);

// The block that holds the same numbers as `key` with every spin flipped:
// its key, and for each of its positions the position of `key` it reads,
// with the sign of that reordering inside antisymmetric groups.
struct Flip {
  std::string key;
  std::string order;  // labels of the partner: block(labels) = sign * partner(order)
  int sign = 1;
};

Flip flip_of(const std::string& key, const std::vector<Sym>& sym);

// One factor of the expression: a spin tensor and its labels.
struct Operand {
  const SpinTensor* t;
  std::string labels;
};

// One block product: coef * A-block(la) * B-block(lb); a sum has no B.
struct BlockTerm {
  double coef = 0;
  std::string ablock, la, bblock, lb;
};

// The terms of one computed output block. When the block is its own flipped
// partner (restricted T2(abab): Z(abij) = Z(baji)), its terms come in pairs,
// a term and its mirror image. Only one of each pair is computed, into the
// tensor's pending half X of the block (SpinTensor::half_of), and the block
// gets X + sign * X(flipped) when it is next read: half the contractions.
struct BlockPlan {
  std::vector<BlockTerm> direct;  // added to the block as they are
  std::vector<BlockTerm> halves;  // one term of each mirror pair
};

// The expansion of one spin-orbital expression, cached in the Context: the
// block terms of every computed output block, with derived operand blocks
// read through their partners and mirror pairs found.
struct SpinExpansion {
  std::map<std::string, BlockPlan> blocks;
};

// The expansion of C[lc] = ops[0] * ops[1] (or = ops[0]), cached in C's Context.
const SpinExpansion& cached_expansion(const std::vector<Operand>& ops, const SpinTensor& C, const std::string& lc);

}  // namespace cyclocc::tensor::spin_terms
