// Both products of an operand's last index pair with a matrix (pair_product.hpp).
#include "tensor/pair_product.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>

#include "parallel/comm.hpp"
#include "tensor/contract.hpp"
#include "tensor/pair_kernel.hpp"
#include "tensor/remap.hpp"

namespace cyclocc::tensor {

#ifdef CYCLOCC_SKINNY_AVX512
// pair_kernel_avx512.cpp
void both_orders_blocks_avx512(std::int64_t n, std::int64_t v, std::int64_t o, const double* a, const double* b,
                               const double* bt, double* p, double* q);
#endif

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool distinct(const std::string& l) {
  for (std::size_t i = 0; i < l.size(); ++i)
    if (l.find(l[i]) != i) return false;
  return true;
}

// The shape of P and Q: A's leading groups (cut before e), e, then j.
Shape output_shape(const Tensor& A, const Tensor& B) {
  const int n = A.order();
  std::vector<int> lens(A.shape().lens.begin(), A.shape().lens.end() - 1);
  std::vector<Sym> sym(A.shape().sym.begin(), A.shape().sym.end() - 2);
  if (n > 2) sym[n - 3] = Sym::NS;
  lens.push_back(B.shape().lens.back());
  sym.push_back(Sym::NS);
  sym.push_back(Sym::NS);
  return Shape(lens, sym);
}

// A distribution over A's leading indices x only, so that each rank holds
// whole e f blocks: P's default one where it is such (P and Q then come out
// where later operations look for them), else all ranks along x.
Mapping along_leading(const Tensor& A, const Shape& out) {
  const int P = A.ctx().nranks(), lead = A.order() - 2;
  if (P == 1) return Mapping::replicated(1);
  const Mapping m = A.ctx().default_mapping(out);
  bool inside = !m.whole_on_every_rank();
  for (std::size_t d = 0; d < m.grid.size(); ++d) inside = inside && m.range[d].last <= lead;
  return inside ? m : Mapping::along(P, 0, lead);
}

// A in that mapping: A itself, a kept copy, or a new copy (kept if A is constant).
std::shared_ptr<const Tensor> in_blocks(const Tensor& A, const Mapping& m) {
  if (A.mapping().normalized() == m.normalized()) return std::shared_ptr<const Tensor>(&A, [](const Tensor*) {});
  const std::string key = "both orders|" + m.str();
  if (auto kept = A.prepared(key)) return kept;
  auto moved = std::make_shared<const Tensor>(remapped(A, A.shape(), m, identity_perm(A.order()), A.name()));
  A.keep_prepared(key, moved);
  return moved;
}

}  // namespace

void both_orders_blocks(SkinnyIsa isa, std::int64_t n, std::int64_t v, std::int64_t o, const double* a,
                        const double* b, const double* bt, double* p, double* q) {
#ifdef CYCLOCC_SKINNY_AVX512
  if (isa == SkinnyIsa::avx512) return both_orders_blocks_avx512(n, v, o, a, b, bt, p, q);
#endif
  if (isa != SkinnyIsa::avx2) throw std::invalid_argument("both_orders_blocks: this build has no such kernel");
  blocks_both_ways<16>(n, v, o, a, b, bt, p, q);
}

bool both_orders_fit(const Tensor& A, const std::string& la, const Tensor& B, const std::string& lb,
                     const std::string& lc) {
  const int n = A.order();
  if (n < 3 || static_cast<int>(la.size()) != n || lb.size() != 2 || static_cast<int>(lc.size()) != n ||
      B.order() != 2)
    return false;
  if (!distinct(la) || !distinct(lb) || !distinct(lc) || la.back() != lb[0] || la.find(lb[1]) != std::string::npos ||
      lc != la.substr(0, n - 1) + lb[1])
    return false;
  const Shape& a = A.shape();
  const int v = a.lens[n - 1], o = B.shape().lens[1];
  if (a.lens[n - 2] != v || a.sym[n - 3] != Sym::NS || a.sym[n - 2] != Sym::NS || v < 4) return false;
  // Up to 8 columns (bench_skinny: 1.2-1.4x against two passes of the
  // skinny kernel with 5, 0.9x with 15).
  return B.shape() == Shape({v, o}, {Sym::NS, Sym::NS}) && o >= 1 && o <= kBothOrdersMaxColumns &&
         !skinny_gemm_isas().empty();
}

BothOrders contract_both_orders(double alpha, const Tensor& A, const std::string& la, const Tensor& B,
                                const std::string& lb, const std::string& lc, const std::string& p_name,
                                const std::string& q_name) {
  const int n = A.order();
  if (!both_orders_fit(A, la, B, lb, lc)) {
    if (n < 2 || B.order() < 1) throw std::invalid_argument("contract_both_orders: A needs two indices, B one");
    BothOrders out{Tensor(A.ctx(), output_shape(A, B), p_name), Tensor(A.ctx(), output_shape(A, B), q_name)};
    std::string swapped = la;
    std::swap(swapped[n - 1], swapped[n - 2]);
    contract(alpha, A, la, B, lb, 0.0, out.p, lc);
    contract(alpha, A, swapped, B, lb, 0.0, out.q, lc);
    return out;
  }
  const double t0 = now();
  const par::Comm& comm = A.ctx().comm();
  const std::int64_t w0 = comm.words_sent() + comm.words_received();
  const int ranks = A.ctx().nranks();
  const std::int64_t v = A.shape().lens[n - 1], o = B.shape().lens[1];
  const Shape out_shape = output_shape(A, B);
  const Mapping m = along_leading(A, out_shape);
  const auto blocks = in_blocks(A, m);
  const std::int64_t nb = blocks->layout().local_size() / (v * v);
  // B whole on every rank, times alpha, and its transpose.
  const Tensor whole = remapped(B, B.shape(), Mapping::replicated(ranks), identity_perm(2));
  std::vector<double> b(static_cast<std::size_t>(v * o)), bt(b.size());
  for (std::int64_t f = 0; f < v; ++f)
    for (std::int64_t j = 0; j < o; ++j) bt[j * v + f] = b[f * o + j] = alpha * whole.data()[f * o + j];
  // P and Q in A's distribution: locally x, then e, then j, as the kernel writes them.
  BothOrders out{Tensor(A.ctx(), out_shape, m, p_name), Tensor(A.ctx(), out_shape, m, q_name)};
  if (out.p.layout().local_size() != nb * v * o) throw std::logic_error("contract_both_orders: unexpected local size");
  const double g0 = now();
  both_orders_blocks(skinny_gemm_isas().back(), nb, v, o, blocks->data().data(), b.data(), bt.data(),
                     out.p.data().data(), out.q.data().data());
  par::OpRecord rec;
  rec.gemm_seconds = now() - g0;
  rec.name = "contract " + p_name + "[" + lc + "], " + q_name + "[" + lc + "] = " + A.name() + "[" + la + " and " +
             la.substr(0, n - 2) + la[n - 1] + la[n - 2] + "]*" + B.name() + "[" + lb + "]";
  rec.mapping = "whole blocks " + m.str();
  // Two products, each 2 x (elements of the output) x v.
  rec.flops = 4.0 * static_cast<double>(out.p.shape().packed_size()) * static_cast<double>(v) / ranks;
  rec.words = comm.words_sent() + comm.words_received() - w0;
  rec.seconds = now() - t0;
  comm.stats().record(rec);
  return out;
}

}  // namespace cyclocc::tensor
