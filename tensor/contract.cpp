#include "parallel/comm.hpp"
#include "tensor/contract.hpp"

#include <cblas.h>

#include <algorithm>
#include <limits>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <optional>
#include <vector>
#include <stdexcept>

#include "tensor/context.hpp"
#include "tensor/plan.hpp"
#include "tensor/relabel.hpp"
#include "tensor/remap.hpp"
#include "tensor/skinny_gemm.hpp"

namespace cyclocc::tensor {

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::int64_t words_moved(const par::Comm& c) { return c.words_sent() + c.words_received(); }

// A' then A_c: the operand in its matrix layout (possibly T itself).
// A constant operand keeps its prepared copy under this plan's key.
std::string prepared_key(const OperandPlan& op) {
  std::string k = op.ref_shape.str() + "|" + op.mat_shape.str() + "|" + op.mat_map.str() + "|";
  for (int x : op.q) k += std::to_string(x) + ",";
  k += "|";
  for (int x : op.perm) k += std::to_string(x) + ",";
  for (int n : op.mat_shape.lens) k += ":" + std::to_string(n);
  return k;
}

class Prepared {
 public:
  Prepared(const OperandPlan& op, const Tensor& T) {
    if (!op.relabel && op.alias) {
      ptr_ = &T;
      return;
    }
    const std::string key = T.keeps_prepared() ? prepared_key(op) : std::string();
    if (T.keeps_prepared() && (kept_ = T.prepared(key))) {
      ptr_ = kept_.get();
      reused_ = true;
      return;
    }
    if (op.packed_first) {
      packed_first(op, T);
      return;
    }
    if (op.relabel && !op.alias && fused(op, T, T)) return;
    const Tensor* src = &T;
    if (op.relabel) {
      refined_ = std::make_shared<Tensor>(T.ctx(), op.ref_shape, T.mapping());
      relabel(T, *refined_, op.q, 1.0);
      src = refined_.get();
    }
    std::shared_ptr<Tensor> result = refined_;
    if (!op.alias) {
      result = std::make_shared<Tensor>(remapped(*src, op.mat_shape, op.mat_map, op.perm));
    }
    keep(op, T, result);
  }
  const Tensor& get() const { return *ptr_; }

 private:
  // T moves as it is (packed) to A_c's mapping, then unpacks locally.
  void packed_first(const OperandPlan& op, const Tensor& T) {
    const Tensor moved = remapped(T, T.shape(), *op.packed_first, identity_perm(T.order()), T.name());
    if (!fused(op, moved, T)) throw std::logic_error("contract: a packed operand's layouts are not local");
  }

  // Unpacks src (T's data, or a copy of it in another mapping) straight into
  // the matrix layout when that layout's remap is local on every rank (always
  // on one rank): no intermediate, one pass.
  bool fused(const OperandPlan& op, const Tensor& src, const Tensor& T) {
    const auto ref = T.ctx().layout(op.ref_shape, src.mapping());
    const auto mat = T.ctx().layout(op.mat_shape, op.mat_map);
    const auto at = local_offset_parts(T.ctx(), *ref, *mat, op.perm);
    if (!at) return false;
    auto result = std::make_shared<Tensor>(T.ctx(), op.mat_shape, op.mat_map);
    relabel_into(src, *ref, *at, *result, op.q, 1.0);
    keep(op, T, result);
    return true;
  }

  // The operand ready for the dgemm; a constant T keeps it for later calls
  // if it is light (light_kept_copy), a held T always.
  void keep(const OperandPlan& op, const Tensor& T, std::shared_ptr<const Tensor> result) {
    ptr_ = result.get();
    kept_ = std::move(result);
    if (T.keeps_prepared() && (!T.constant() || light_kept_copy(T.ctx(), kept_->layout())))
      T.keep_prepared(prepared_key(op), kept_);
  }

 public:
  bool reused() const { return reused_; }

 private:
  std::shared_ptr<Tensor> refined_;
  std::shared_ptr<const Tensor> kept_;
  const Tensor* ptr_ = nullptr;
  bool reused_ = false;
};

std::int64_t product(const std::vector<std::int64_t>& e, int from, int to) {
  std::int64_t n = 1;
  for (int c = from; c < to; ++c) n *= e[c];
  return n;
}

constexpr std::int64_t kGemmRows = 384;

// B (K x N, or N x K when transposed, row-major) with one zero column of C
// more: K x (N + 1), or (N + 1) x K.
std::vector<double> with_zero_column(const double* b, std::int64_t K, std::int64_t N, bool trans) {
  if (trans) {
    std::vector<double> out(b, b + N * K);
    out.resize((N + 1) * K, 0.0);
    return out;
  }
  std::vector<double> out((N + 1) * K, 0.0);
  for (std::int64_t k = 0; k < K; ++k) std::copy(b + k * N, b + (k + 1) * N, out.begin() + k * (N + 1));
  return out;
}

// C_c[h] = beta * C_c[h] + alpha * A_c[h] * B_c[h] for every batch index h,
// one dgemm each (or one per slab of rows, see below); beta is 0 (C_c is not
// read: it may be unset) or 1.
void local_gemm(const ContractionPlan& p, const Tensor& Ac, const Tensor& Bc, Tensor& Cc, double alpha, double beta) {
  const auto& ea = Ac.layout().extent();
  const auto& eb = Bc.layout().extent();
  const auto& ec = Cc.layout().extent();
  const int h = p.n_batch;
  const int ha = p.a_unbatched ? 0 : h;  // A_c's batch components
  const std::int64_t H = product(ec, 0, h);
  const std::int64_t M = product(ec, h, h + p.n_i);
  const std::int64_t N = product(ec, h + p.n_i, h + p.n_i + p.n_j);
  const std::int64_t K = p.a.trans ? product(ea, ha, ha + p.n_k) : product(ea, ha + p.n_i, ha + p.n_i + p.n_k);
  const std::int64_t Kb = p.b.trans ? product(eb, h + p.n_j, h + p.n_j + p.n_k) : product(eb, h, h + p.n_k);
  if (K != Kb || (!p.a_unbatched && product(ea, 0, h) != H) || product(eb, 0, h) != H)
    throw std::logic_error("contract: local sizes differ");
  const std::int64_t a_step = p.a_unbatched ? 0 : M * K;  // A_c's offset from one batch value to the next
  if (H == 0 || M == 0 || N == 0) return;
  double* c = Cc.data().data();
  if (K == 0) {
    if (beta == 0.0) std::fill(c, c + H * M * N, 0.0);
    return;
  }
  const double* a = Ac.data().data();
  const double* b = Bc.data().data();
  // Few columns: the kernel that reads A in place (skinny_gemm.hpp).
  if (skinny_gemm_fits(M, N, K, p.a.trans)) {
    for (std::int64_t x = 0; x < H; ++x)
      skinny_gemm(M, N, K, alpha, a + x * a_step, K, b + x * K * N, p.b.trans ? K : N, p.b.trans, beta,
                  c + x * M * N, N);
    return;
  }
  // With few columns (N) and many rows, OpenBLAS packs slabs of A larger
  // than the L2 cache and reads them back from further out. Slabs of 384 rows
  // run 7-13% faster on this machine (M = K = 4950, N = 45: 34 -> 38.6
  // GFLOP/s, against 53 for 2000^3; bench/tensor (a)).
  const std::int64_t rows = N <= 64 && M > 2 * kGemmRows ? kGemmRows : M;
  // OpenBLAS's Haswell kernels (an AVX2 machine; with AVX-512VL most such
  // products go to skinny_gemm) take C's columns 4 or 8 at a time, and three
  // left over cost about as much as five more: M = 1484, K = 2915 takes
  // 6.4 ms with N = 15 and 4.7 ms with N = 16. So a few columns (N = 3 mod 4)
  // get one zero column more, through copies of B and of C's slab. The copies
  // move about 3 M N words against the product's 2 M N K flops: only for long K.
  const bool pad = N % 4 == 3 && N < 64 && K >= 512;
  const std::int64_t Np = pad ? N + 1 : N;
  std::vector<double> bpad, cpad;
  for (std::int64_t x = 0; x < H; ++x) {
    const double* bx = b + x * K * N;
    if (pad) {
      bpad = with_zero_column(bx, K, N, p.b.trans);
      bx = bpad.data();
    }
    for (std::int64_t i = 0; i < M; i += rows) {
      const std::int64_t m = std::min(rows, M - i);
      const double* ai = a + x * a_step + (p.a.trans ? i : i * K);
      double* ci = c + x * M * N + i * N;
      if (pad) cpad.resize(m * Np);  // written whole by the dgemm (beta = 0)
      cblas_dgemm(CblasRowMajor, p.a.trans ? CblasTrans : CblasNoTrans, p.b.trans ? CblasTrans : CblasNoTrans,
                  static_cast<int>(m), static_cast<int>(Np), static_cast<int>(K), alpha, ai,
                  static_cast<int>(p.a.trans ? M : K), bx, static_cast<int>(p.b.trans ? K : Np), pad ? 0.0 : beta,
                  pad ? cpad.data() : ci, static_cast<int>(Np));
      if (!pad) continue;
      for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t q = 0; q < N; ++q) ci[r * N + q] = (beta == 0.0 ? 0.0 : ci[r * N + q]) + cpad[r * Np + q];
    }
  }
}

// weighted_copy's factors where they are not 1: (local offset, 1 / the
// product of the run lengths). They depend on the layout and the groups
// alone: worked out once and kept in the context while they fit
// (Context::reserve_local_list_bytes; the ladders weight tau+ at every CC
// iteration, and walking its elements took 0.4 ms per call, P5a at 2
// ranks), else on every call. No collective: the ranks may weight different
// operands (the smaller local copy).
using Weights = std::vector<std::pair<std::int64_t, double>>;
std::shared_ptr<const Weights> weights_of(const Tensor& X, const std::vector<Range>& groups) {
  std::string key = "weighted_copy " + layout_id(X.layout());
  for (const Range& r : groups) key += " " + std::to_string(r.first) + "-" + std::to_string(r.last);
  auto& kept = X.ctx().extensions();
  if (const auto it = kept.find(key); it != kept.end()) return std::static_pointer_cast<const Weights>(it->second);
  auto w = std::make_shared<Weights>();
  X.for_each_offset([&](const int* idx, std::int64_t i) {
    double f = 1.0;
    for (const Range& r : groups)
      for (int p = r.first + 1, run = 1; p < r.last; ++p) {
        run = idx[p] == idx[p - 1] ? run + 1 : 1;
        if (run > 1) f /= run;
      }
    if (f != 1.0) w->emplace_back(i, f);
  });
  const auto bytes = static_cast<std::int64_t>(w->capacity() * sizeof(Weights::value_type));
  if (X.ctx().reserve_local_list_bytes(bytes)) kept.emplace(key, w);
  return w;
}

// A copy of the prepared operand X with each element scaled by 1 / prod(m!)
// over the runs of m equal values inside the given (symmetric, sorted) groups.
Tensor weighted_copy(const Tensor& X, const std::vector<Range>& groups) {
  const auto weights = weights_of(X, groups);
  Tensor w(X.ctx(), X.shape(), X.mapping(), X.name());
  w.data() = X.data();
  double* d = w.data().data();
  for (const auto& [i, f] : *weights) d[i] *= f;
  return w;
}

// C += C_c through C''' (ContractionPlan::c_mid): C_c is relabelled locally
// into C''' (packing the groups no rank boundary splits), which moves to C's
// mapping and is relabelled into C.
void move_packed_output(const ContractionPlan& p, const Tensor& cc, Tensor& C) {
  Context& ctx = C.ctx();
  const ContractionPlan::Mid& m = *p.c_mid;
  const auto ref = ctx.layout(p.c_ref_shape, m.map);
  const auto at = local_offset_parts(ctx, *ref, cc.layout(), inverse_perm(p.c_perm));
  if (!at) throw std::logic_error("contract: C_c and C'' differ in more than order");
  Tensor mid(ctx, m.shape, m.map);
  relabel_from(cc, *ref, *at, mid, m.q, 1.0);
  if (m.shape == C.shape() && m.back == identity_perm(C.order())) {
    remap(mid, C, m.back, 1.0);
    return;
  }
  relabel(remapped(mid, m.shape, C.mapping(), identity_perm(C.order())), C, m.back, 1.0);
}

std::string op_name(const char* what, const Tensor& C, const std::string& lc, const Tensor& A, const std::string& la,
                    const Tensor* B, const std::string& lb) {
  auto t = [](const Tensor& T, const std::string& l) { return (T.name().empty() ? "?" : T.name()) + "[" + l + "]"; };
  std::string s = std::string(what) + " " + t(C, lc) + " += " + t(A, la);
  if (B) s += "*" + t(*B, lb);
  return s;
}

}  // namespace

void contract(double alpha, const Tensor& A0, const std::string& la, const Tensor& B0, const std::string& lb,
              double beta, Tensor& C, const std::string& lc) {
  const double t0 = now();
  const par::Comm& comm = C.ctx().comm();
  const std::int64_t w0 = words_moved(comm);
  const auto plan = plan_contraction(A0, la, B0, lb, C, lc);
  const Tensor& A = plan->swapped ? B0 : A0;
  const Tensor& B = plan->swapped ? A0 : B0;
  if (beta != 1.0) C.scale(beta);
  const Prepared pa(plan->a, A), pb(plan->b, B);
  // Folded symmetric contracted groups: the smaller operand's copy is weighted.
  std::optional<Tensor> weighted;
  const Tensor* ac = &pa.get();
  const Tensor* bc = &pb.get();
  if (!plan->a_sy_k.empty()) {
    if (pb.get().data().size() <= pa.get().data().size()) bc = &weighted.emplace(weighted_copy(pb.get(), plan->b_sy_k));
    else ac = &weighted.emplace(weighted_copy(pa.get(), plan->a_sy_k));
  }
  double gemm_seconds = 0;
  if (plan->c_direct) {
    const double g0 = now();
    local_gemm(*plan, *ac, *bc, C, alpha * plan->factor, 1.0);
    gemm_seconds = now() - g0;
  } else {
    Tensor cc(C.ctx(), plan->c_mat_shape, plan->c_mat_map, Tensor::Unset{});
    const double g0 = now();
    local_gemm(*plan, *ac, *bc, cc, alpha * plan->factor, 0.0);
    gemm_seconds = now() - g0;
    if (plan->c_mid) {
      move_packed_output(*plan, cc, C);
    } else if (!plan->c_relabel) {
      remap(cc, C, plan->c_perm, 1.0, plan->partial);
    } else {
      // The remap into C's mapping fused into the relabel when it is local.
      const auto ref = C.ctx().layout(plan->c_ref_shape, C.mapping());
      // (Partial sums must be added over the ranks: never local.)
      const auto at = plan->partial ? nullptr : local_offset_parts(C.ctx(), *ref, cc.layout(), inverse_perm(plan->c_perm));
      if (at) {
        relabel_from(cc, *ref, *at, C, plan->c_q, 1.0);
      } else {
        if (plan->partial) {  // the partial sums add up in c2
          Tensor c2(C.ctx(), plan->c_ref_shape, C.mapping());
          remap(cc, c2, plan->c_perm, 1.0, true);
          relabel(c2, C, plan->c_q, 1.0);
        } else {
          relabel(remapped(cc, plan->c_ref_shape, C.mapping(), plan->c_perm), C, plan->c_q, 1.0);
        }
      }
    }
  }
  par::OpRecord rec;
  rec.name = op_name("contract", C, lc, A0, la, &B0, lb);
  rec.mapping = plan->mapping;
  rec.flops = plan->useful / comm.size();  // an even share of the useful flops, not the dgemm's
  rec.words = words_moved(comm) - w0;
  // A reused prepared operand moved nothing; the model's words for it drop out.
  rec.predicted = plan->predicted - (pa.reused() ? plan->a.predicted : 0) - (pb.reused() ? plan->b.predicted : 0);
  rec.seconds = now() - t0;
  rec.gemm_seconds = gemm_seconds;
  comm.stats().record(rec);
}

PlanInfo plan_info(const Tensor& A, const std::string& la, const Tensor& B, const std::string& lb, const Tensor& C,
                   const std::string& lc) {
  const auto plan = plan_contraction(A, la, B, lb, C, lc);
  auto distributed_packed = [](const OperandPlan& op) {
    return op.packed_first && !op.packed_first->whole_on_every_rank();
  };
  return PlanInfo{plan->mapping, plan->predicted, plan->flops, plan->c_mid.has_value(),
                  int(distributed_packed(plan->a)) + int(distributed_packed(plan->b))};
}

namespace {

// B[lb] += alpha * A[la], the labels checked (sum below).
void add_relabelled(double alpha, const Tensor& A, const std::string& la, Tensor& B, const std::string& lb,
                    const std::map<char, int>& len) {
  const LGroups ga = label_groups(A.shape(), la), gb = label_groups(B.shape(), lb);
  // The common refinement of A's and B's groups, labels in B's order.
  auto meet = [&](const LGroups& own, const LGroups& other) {
    LGroups out;
    for (const LGroup& g : own) {
      std::vector<std::pair<int, std::string>> parts;
      for (char c : g.labels) {
        int id = -1;
        Sym s = Sym::NS;
        for (std::size_t k = 0; k < other.size(); ++k)
          if (other[k].labels.find(c) != std::string::npos) id = static_cast<int>(k), s = other[k].sym;
        if (s != g.sym || g.sym == Sym::NS) id = 1000 + static_cast<int>(out.size() + parts.size());
        auto it = std::find_if(parts.begin(), parts.end(), [&](const auto& p) { return p.first == id; });
        if (it == parts.end()) parts.push_back({id, std::string(1, c)});
        else it->second += c;
      }
      for (auto& [id, l] : parts) {
        std::sort(l.begin(), l.end(), [&](char x, char y) { return lb.find(x) < lb.find(y); });
        out.push_back({l, l.size() > 1 ? g.sym : Sym::NS});
      }
    }
    return out;
  };
  const LGroups ar = meet(ga, gb), br = meet(gb, ga);
  const std::string as = concat(ar), bs = concat(br);
  std::optional<Tensor> a2;
  const Tensor* src = &A;
  if (as != la || !(shape_of(ar, len) == A.shape())) {
    a2.emplace(A.ctx(), shape_of(ar, len), A.mapping());
    relabel(A, *a2, positions(la, as), 1.0);
    src = &*a2;
  }
  if (bs == lb && shape_of(br, len) == B.shape()) {
    remap(*src, B, positions(as, lb), alpha);
  } else {
    relabel(remapped(*src, shape_of(br, len), B.mapping(), positions(as, bs)), B, positions(bs, lb), alpha);
  }
}

}  // namespace

void sum(double alpha, const Tensor& A, const std::string& la, double beta, Tensor& B, const std::string& lb) {
  const double t0 = now();
  const par::Comm& comm = B.ctx().comm();
  const std::int64_t w0 = words_moved(comm);
  if (static_cast<int>(la.size()) != A.order() || static_cast<int>(lb.size()) != B.order() || la.size() != lb.size())
    throw std::invalid_argument("sum: labels \"" + la + "\" and \"" + lb + "\" do not match the tensors");
  std::map<char, int> len;
  for (std::size_t i = 0; i < lb.size(); ++i) {
    if (lb.find(lb[i]) != i || la.find(lb[i]) == std::string::npos)
      throw std::invalid_argument("sum: labels \"" + la + "\" and \"" + lb + "\" must be the same distinct labels");
    len[lb[i]] = B.shape().lens[i];
    if (A.shape().lens[la.find(lb[i])] != len[lb[i]]) throw std::invalid_argument("sum: edge lengths differ");
  }
  if (beta != 1.0) B.scale(beta);
  // A constant A (the integrals) that must be rearranged keeps the rearranged
  // copy (laid out as B, unscaled): a later sum with the same labels and
  // layouts only adds it. (Not a held A: the sums of one residual each read
  // the amplitudes once.)
  if (A.constant() && !(la == lb && &A.layout() == &B.layout())) {
    const std::string key = "sum|" + la + "|" + lb + "|" + layout_id(B.layout());
    std::shared_ptr<const Tensor> kept = A.prepared(key);
    if (!kept) {
      auto fresh = std::make_shared<Tensor>(B.ctx(), B.shape(), B.mapping());
      add_relabelled(1.0, A, la, *fresh, lb, len);
      A.keep_prepared(key, fresh);
      kept = std::move(fresh);
    }
    auto& y = B.data();
    const double* x = kept->data().data();
    constexpr std::size_t kMaxInt = std::numeric_limits<int>::max();  // cblas counts are int
    for (std::size_t i = 0; i < y.size(); i += kMaxInt)
      cblas_daxpy(static_cast<int>(std::min(kMaxInt, y.size() - i)), alpha, x + i, 1, y.data() + i, 1);
  } else {
    add_relabelled(alpha, A, la, B, lb, len);
  }
  par::OpRecord rec;
  rec.name = op_name("sum", B, lb, A, la, nullptr, "");
  rec.words = words_moved(comm) - w0;
  rec.seconds = now() - t0;
  comm.stats().record(rec);
}

}  // namespace cyclocc::tensor
