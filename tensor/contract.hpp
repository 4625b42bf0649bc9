// Contraction and summation of packed distributed tensors.
//
//   contract: C[lc] = beta*C[lc] + alpha * A[la] * B[lb]
//   sum:      B[lb] = beta*B[lb] + alpha * A[la]
//
// Conventions (as in CTF; DESIGN.md §8):
// - Contracted labels run over all values, unrestricted: 0.5*V[abef]*T[efij]
//   carries its 1/2 (internally the sum runs over packed e<f times 2!).
// - A label in all three tensors is a batch (weighting) index.
// - If C declares a symmetry that the product lacks, every permutation of the
//   group that the product does not already have is added, with its sign for
//   antisymmetric groups, with no 1/n!. So Tau[abij] += 0.5*T1[ai]*T1[bj]
//   gives t_i^a t_j^b - t_j^a t_i^b, and Z3[abcijk] += W[bcek]*T2[aeij] gives
//   P(a/bc) P(k/ij) of the product.
// - Symmetries of an operand that the contraction breaks are unpacked; the
//   ones it preserves are folded into the matrix dimensions of one dgemm.
//
// Each contraction picks a processor grid p_m x p_n x p_k (rows, columns and
// contracted indices of the folded matrix product) and the groups that carry
// it, from a cost model: the exact words each operand's redistribution moves
// (remap_traffic), the local flops, and the local data movement. It records
// flops, words, seconds, the mapping and the prediction in the Comm's Stats.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/expr.hpp"
#include "tensor/tensor.hpp"

namespace cyclocc::tensor {

void contract(double alpha, const Tensor& A, const std::string& la, const Tensor& B, const std::string& lb, double beta,
              Tensor& C, const std::string& lc);

void sum(double alpha, const Tensor& A, const std::string& la, double beta, Tensor& B, const std::string& lb);

// What the planner decided, for tests and logs.
struct PlanInfo {
  std::string mapping;             // e.g. "grid 2x1x1 m=ab n=- k=-"
  std::int64_t predicted_words = 0;  // this rank: sent + received
  double flops = 0;                // this rank's dgemm flops
  bool packed_output = false;      // the output moves with its local groups packed (C''')
  int packed_operands = 0;         // operands that move packed to a distributed layout, then unpack
};
PlanInfo plan_info(const Tensor& A, const std::string& la, const Tensor& B, const std::string& lb, const Tensor& C,
                   const std::string& lc);

}  // namespace cyclocc::tensor
