// Both products of an operand's last index pair with a matrix, in one pass:
//
//   P[x e j] += alpha * sum_f A[x e f] B[f j],
//   Q[x e j] += alpha * sum_f A[x f e] B[f j],
//
// x being A's leading indices. Two calls of contract() would each read all of
// A; with few columns j both are bound by that read (closed-shell CCSD's
// P_mbej = sum_f <mb|ef> t_j^f and Q_mbej = sum_f <mb|fe> t_j^f read o v^3
// integrals against o columns). Here each rank holds whole e f blocks of A
// (all ranks along x), and each block A[x], in cache, gives a row of P and a
// column of Q per element read:
//   P[x e] += A[x e f] B[f],   Q[x f] += A[x e f] B[e].
// B is gathered whole on every rank; P and Q come out in A's distribution.
// A constant A keeps its moved copy.
#pragma once

#include <cstdint>
#include <string>

#include "tensor/skinny_gemm.hpp"
#include "tensor/tensor.hpp"

namespace cyclocc::tensor {

inline constexpr int kBothOrdersMaxColumns = 8;

struct BothOrders {
  Tensor p, q;
};

// P[lc] = alpha A[la] B[lb] and Q[lc] = alpha A[la with its last two labels
// swapped] B[lb] (contract()'s conventions), with la = x e f, lb = f j and
// lc = x e j: new tensors, named as given, in the distribution the one pass
// leaves them in (P's default one where that lies on x alone). Two contract()
// calls instead where the pass does not apply: A's last two indices not lone
// indices of one length (at least 4), B with a symmetry, more than
// kBothOrdersMaxColumns columns j, or no kernel for this processor.
// Collective.
BothOrders contract_both_orders(double alpha, const Tensor& A, const std::string& la, const Tensor& B,
                                const std::string& lb, const std::string& lc, const std::string& p_name,
                                const std::string& q_name);

// Whether contract_both_orders takes the one pass for these operands.
bool both_orders_fit(const Tensor& A, const std::string& la, const Tensor& B, const std::string& lb,
                     const std::string& lc);

// The local kernel, for the tests: for each of n consecutive v x v blocks a
// (row-major), p[block] (v x o) += a b and q[block] += a^T b, with b (v x o,
// o <= 16) and bt its transpose.
void both_orders_blocks(SkinnyIsa isa, std::int64_t n, std::int64_t v, std::int64_t o, const double* a,
                        const double* b, const double* bt, double* p, double* q);

}  // namespace cyclocc::tensor
