// skinny_gemm (tensor/skinny_gemm.hpp) against OpenBLAS on products with few
// columns, as the contraction's local dgemm calls them: C (M x N) += A (M x K)
// * B (K x N), row-major, A not transposed. OpenBLAS runs the way local_gemm
// ran it before the kernel (slabs of 384 rows when N <= 64 and M > 768). Each
// time is the fastest of 5 calls; the yardstick is one process's 2000^3
// dgemm, measured in the same run.
//
//   build/bench/tensor/bench_skinny [--sweep] [--cold]
//
// Without --sweep: the shapes of the CCSD iterations of bench/cc (ladders and
// the t1 products) at 1 rank, closed-shell P or Q with more columns than
// contract_both_orders takes, bench_tensor's (a) same-spin ladder (45
// columns: three passes of the kernel), and closed-shell P and Q
// (contract_both_orders' kernel against two skinny passes). --sweep: a grid
// of M, N and K around the thresholds of skinny_gemm_fits. --cold: the
// operands out of cache at every call.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tensor/blas_core.hpp"
#include "tensor/pair_product.hpp"
#include "tensor/skinny_gemm.hpp"

namespace {

using cyclocc::tensor::skinny_gemm;

double seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// With --cold, each call starts with its operands out of cache, as in an
// iteration, where A comes from memory: 256 MB are written first (not timed).
class CacheEvictor {
 public:
  void run() {
    for (double& x : junk_) x += 1.0;
  }

 private:
  std::vector<double> junk_ = std::vector<double>(std::size_t{32} << 20, 0.0);
};

// The fastest of `reps` calls of f, each after evicting the caches if `cold` is set.
template <class F>
double fastest(F f, CacheEvictor* cold = nullptr, int reps = 5) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    if (cold) cold->run();
    const double t0 = seconds();
    f();
    best = std::min(best, seconds() - t0);
  }
  return best;
}

void openblas(std::int64_t M, std::int64_t N, std::int64_t K, const double* a, const double* b, double* c) {
  const std::int64_t rows = N <= 64 && M > 768 ? 384 : M;
  for (std::int64_t i = 0; i < M; i += rows)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(std::min(rows, M - i)),
                static_cast<int>(N), static_cast<int>(K), 1.0, a + i * K, static_cast<int>(K), b,
                static_cast<int>(N), 1.0, c + i * N, static_cast<int>(N));
}

double yardstick() {
  const int n = 2000;
  std::vector<double> a(n * n, 0.5), b(n * n, 0.25), c(n * n, 0.0);
  const double t = fastest([&] {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0, c.data(), n);
  }, nullptr, 3);
  return 2.0 * n * n * n / t / 1e9;
}

void row(const char* name, std::int64_t M, std::int64_t N, std::int64_t K, double yard, CacheEvictor* cold) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(M * K), b(K * N), c(M * N, 0.0);
  for (double& x : a) x = u(rng);
  for (double& x : b) x = u(rng);
  const double flops = 2.0 * M * N * K;
  const double to = fastest([&] { openblas(M, N, K, a.data(), b.data(), c.data()); }, cold);
  const double ts =
      fastest([&] { skinny_gemm(M, N, K, 1.0, a.data(), K, b.data(), N, false, 1.0, c.data(), N); }, cold);
  std::printf("%-26s %7ld %3ld %6ld  %9.3f %9.3f  %6.1f %6.1f  %5.1f%% %5.1f%%  %5.2fx  %s\n", name, (long)M, (long)N,
              (long)K, to * 1e3, ts * 1e3, flops / to / 1e9, flops / ts / 1e9, 100 * flops / to / 1e9 / yard,
              100 * flops / ts / 1e9 / yard, to / ts,
              cyclocc::tensor::skinny_gemm_fits(M, N, K, false) ? "skinny" : "openblas");
}

// contract_both_orders' kernel (pair_product.hpp), P = A B and Q = A^T B per
// v x v block of A, against two skinny_gemm passes (the second over A with
// each block transposed, the copy the general contraction keeps of the
// integrals): one read of A instead of two.
void both_orders(const char* name, std::int64_t blocks, std::int64_t v, std::int64_t o, CacheEvictor* cold) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(blocks * v * v), at(a.size()), b(v * o), bt(o * v), p(blocks * v * o), q(p.size());
  for (double& x : a) x = u(rng);
  for (std::int64_t x = 0; x < blocks; ++x)
    for (std::int64_t e = 0; e < v; ++e)
      for (std::int64_t f = 0; f < v; ++f) at[(x * v + f) * v + e] = a[(x * v + e) * v + f];
  for (std::int64_t f = 0; f < v; ++f)
    for (std::int64_t j = 0; j < o; ++j) bt[j * v + f] = b[f * o + j] = u(rng);
  const auto isa = cyclocc::tensor::skinny_gemm_isas().back();
  const double t1 = fastest([&] {
    cyclocc::tensor::both_orders_blocks(isa, blocks, v, o, a.data(), b.data(), bt.data(), p.data(), q.data());
  }, cold);
  const double t2 = fastest([&] {
    skinny_gemm(blocks * v, o, v, 1.0, a.data(), v, b.data(), o, false, 1.0, p.data(), o);
    skinny_gemm(blocks * v, o, v, 1.0, at.data(), v, b.data(), o, false, 1.0, q.data(), o);
  }, cold);
  std::printf("%-26s %7ld %3ld %6ld  %9.3f %9.3f  (both orders in one pass against two skinny passes: %.2fx)\n", name,
              (long)(blocks * v), (long)o, (long)v, t2 * 1e3, t1 * 1e3, t2 / t1);
}

}  // namespace

int main(int argc, char** argv) {
  cyclocc::tensor::start_in_fitting_environment(argv);  // before MPI: it may start the program again
  bool sweep = false, cold = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--sweep") sweep = true;
    else if (arg == "--cold") cold = true;
    else {
      std::fprintf(stderr, "bench_skinny: unknown argument %s (usage: bench_skinny [--sweep] [--cold])\n", argv[i]);
      return 2;
    }
  }
  const double yard = yardstick();
  std::printf("yardstick: one process, 2000^3 dgemm, %.1f GFLOP/s%s\n", yard,
              cold ? "; operands out of cache at each call (--cold)" : "");
  std::optional<CacheEvictor> evictor;
  CacheEvictor* ev = cold ? &evictor.emplace() : nullptr;
  std::printf("%-26s %7s %3s %6s  %9s %9s  %6s %6s  %6s %6s  %6s  %s\n", "product", "M", "N", "K", "ms OpenBLAS",
              "ms skinny", "GF/s", "GF/s", "%yd", "%yd", "ratio", "local_gemm takes");
  if (!sweep) {
    // bench/cc at 1 rank: o, v = (5, 87) H2O/aug-cc-pVTZ, (5|3, 53|55) CH2 UHF cc-pVTZ.
    row("P5a ladder R+", 3828, 15, 3828, yard, ev);
    row("P5a ladder R-", 3741, 10, 3741, yard, ev);
    row("P5a Z+", 435, 15, 3828, yard, ev);
    row("P5a t1 <ov|vv>", 37845, 5, 87, yard, ev);
    row("P4 ladder alpha-beta", 2915, 15, 2915, yard, ev);
    row("P4 ladder alpha-alpha", 1378, 10, 1378, yard, ev);
    row("P4 ladder beta-beta", 1485, 3, 1485, yard, ev);
    row("P4 t1 <ov||vv> beta", 14575, 3, 55, yard, ev);
    // Closed-shell P_mbej or Q_mbej with more columns than contract_both_orders takes:
    // o v^2 rows, o columns, v contracted; (H2O)3 cc-pVDZ (15, 57), (H2O)2 cc-pVDZ (10, 38).
    row("P5b P or Q", 48735, 15, 57, yard, ev);
    row("P5b P or Q, 2 ranks", 24368, 15, 57, yard, ev);
    row("P2 P or Q", 14440, 10, 38, yard, ev);
    row("P2 P or Q, 2 ranks", 7220, 10, 38, yard, ev);
    // bench_tensor (a) same spin, o = 10, v = 100 (packed ab, ef; packed ij).
    row("tensor (a) same spin", 4950, 45, 4950, yard, ev);
    // Closed-shell P_mbej and Q_mbej: o v blocks of v x v against o columns.
    both_orders("P5a P and Q", 5 * 87, 87, 5, ev);
    both_orders("P1 P and Q", 5 * 53, 53, 5, ev);
    both_orders("P5a P and Q, 8 columns", 5 * 87, 87, 8, ev);
    both_orders("P5b P and Q (not taken)", 15 * 57, 57, 15, ev);
    return 0;
  }
  for (std::int64_t N : {1, 2, 3, 4, 5, 8, 12, 15, 16, 17, 32, 64, 128})
    for (auto [M, K] : {std::pair<std::int64_t, std::int64_t>{8, 2000}, {2000, 8}, {16, 16}, {64, 64}, {300, 300},
                        {2000, 2000}, {1024, 57}, {4096, 32}, {4096, 57}, {20000, 16}, {20000, 32}, {20000, 64},
                        {20000, 128}}) {
      const std::string name = "sweep";
      row(name.c_str(), M, N, K, yard, ev);
    }
  return 0;
}
