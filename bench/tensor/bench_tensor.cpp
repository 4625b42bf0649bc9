// Tensor-layer benchmark (issue: distributed tensor layer). Run under mpirun
// with P ranks; every number is measured in this run:
//   yardstick   P processes running dgemm at the same time (sum of rates)
//   (a) particle-particle ladder, same spin (packed) and opposite spin
//   (b) a ring term with broken symmetry
//   (c) the CCSDT T3 ladder
//   (d) memory per rank of each tensor against its packed size / P
//   (e) words per rank: measured, the cost model's prediction, and the
//       cheapest 1D/2D algorithm for the folded matrix sizes
// GFLOP/s count the useful flops of the packed formula (documented per case).
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/tensor/bench_common.hpp"
#include "parallel/comm.hpp"
#include "tensor/blas_core.hpp"
#include "tensor/contract.hpp"

using namespace cyclocc;
using bench::mk;
using bench::now;
using tensor::Shape;
using tensor::Sym;
using tensor::Tensor;

namespace {

// GFLOP/s of one process's dgemm while every rank runs one (n x n x n).
double dgemm_rate(par::Comm& comm, int n, int reps) {
  std::vector<double> a(static_cast<std::size_t>(n) * n, 1e-3), b(a), c(a);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0, c.data(), n);
  comm.barrier();
  const double t0 = now();
  for (int r = 0; r < reps; ++r)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n, 0.0, c.data(), n);
  const double t = now() - t0;
  return 2.0 * n * n * n * reps / t * 1e-9;
}

struct Case {
  std::string name;
  std::string la, lb, lc;
  Shape sa, sb, sc;
  double useful_flops;         // the packed formula's flops for the whole contraction
  double m, n, k;              // folded matrix sizes for the communication bound
};

// Words per rank of the cheapest 1D or 2D algorithm for an m x k by k x n
// product on P ranks, each matrix starting evenly distributed: 1D moves
// (allgathers or reduce-scatters) the smallest matrix, 2D on p1 x p2 moves
// two of them, each replicated along one grid dimension.
double comm_bound(double m, double n, double k, int P) {
  if (P == 1) return 0;
  const double A = m * k, B = k * n, C = m * n;
  double best = 2.0 * std::min({A, B, C}) * (P - 1) / P;
  for (int p1 = 2; p1 < P; ++p1) {
    if (P % p1) continue;
    const int p2 = P / p1;
    const double s[3] = {A, B, C};
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 3; ++y)
        if (x != y) best = std::min(best, 2.0 * (s[x] * (p2 - 1) + s[y] * (p1 - 1)) / P);
  }
  return best;
}

void run_case(par::Comm& comm, tensor::Context& ctx, const Case& c, double yard, int reps) {
  Tensor A(ctx, c.sa, "A"), B(ctx, c.sb, "B"), C(ctx, c.sc, "C");
  A.fill_random(1);
  B.fill_random(2);
  tensor::contract(1.0, A, c.la, B, c.lb, 0.0, C, c.lc);  // plans and warms up
  std::vector<double> times;
  std::int64_t words = 0, predicted = 0;
  for (int r = 0; r < reps; ++r) {
    comm.barrier();
    const double t0 = now();
    tensor::contract(1.0, A, c.la, B, c.lb, 0.0, C, c.lc);
    comm.barrier();
    times.push_back(now() - t0);
    words = comm.stats().last().words;
    predicted = comm.stats().last().predicted;
  }
  std::sort(times.begin(), times.end());
  const double t = times[times.size() / 2];
  const double gf = c.useful_flops / t * 1e-9;
  const std::int64_t wmax = comm.allreduce_max(words), pmax = comm.allreduce_max(predicted);
  const bool equal = comm.allreduce_sum(static_cast<std::int64_t>(words != predicted)) == 0;
  // (d) memory: the largest local share of each tensor against packed/P.
  auto mem = [&](const Tensor& x) {
    const double mine = static_cast<double>(x.data().size());
    return comm.allreduce_max(mine) / (static_cast<double>(x.shape().packed_size()) / comm.size());
  };
  const double bound = comm_bound(c.m, c.n, c.k, comm.size());
  const double ma = mem(A), mb = mem(B), mc = mem(C);
  if (comm.root())
    std::printf("%-28s %9.4f s %8.2f GF/s %6.1f%% of dgemm | mem/packed A %.3f B %.3f C %.3f | words %lld pred %lld %s "
                "bound %.0f ratio %.2f | %s\n",
                c.name.c_str(), t, gf, 100.0 * gf / yard, ma, mb, mc, static_cast<long long>(wmax),
                static_cast<long long>(pmax), equal ? "(equal)" : "(DIFFER)", bound,
                bound > 0 ? static_cast<double>(wmax) / bound : 0.0, comm.stats().last().mapping.c_str());
}

double pairs(double n) { return n * (n - 1) / 2; }
double triples(double n) { return n * (n - 1) * (n - 2) / 6; }

}  // namespace

int main(int argc, char** argv) {
  tensor::start_in_fitting_environment(argv);  // before MPI: it may start the program again
  par::Environment env(&argc, &argv);
  par::Comm& comm = env.world();
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  const int o = quick ? 6 : 10, v = quick ? 40 : 100, o3 = quick ? 4 : 6, v3 = quick ? 20 : 40;
  const int reps = quick ? 2 : 5;
  const double yard = comm.allreduce_sum(dgemm_rate(comm, 2000, quick ? 1 : 3));
  if (comm.root())
    std::printf("ranks %d: yardstick = %d concurrent dgemm processes, %.2f GFLOP/s in total\n", comm.size(),
                comm.size(), yard);
  if (comm.root()) std::printf("%s\n", tensor::openblas_kernels_note().c_str());
  tensor::Context ctx(comm);
  const double V = v, O = o;
  std::vector<Case> cases = {
      {"(a) ladder same spin", "abef", "efij", "abij", mk({v, v, v, v}, "ANAN"), mk({v, v, o, o}, "ANAN"),
       mk({v, v, o, o}, "ANAN"), 2 * pairs(V) * pairs(V) * pairs(O), pairs(V), pairs(O), pairs(V)},
      {"(a) ladder opposite spin", "abef", "efij", "abij", mk({v, v, v, v}, "NNNN"), mk({v, v, o, o}, "NNNN"),
       mk({v, v, o, o}, "NNNN"), 2 * V * V * V * V * O * O, V * V, O * O, V * V},
      {"(b) ring, broken symmetry", "amie", "ebmj", "abij", mk({v, o, o, v}, "NNNN"), mk({v, v, o, o}, "ANAN"),
       mk({v, v, o, o}, "ANAN"), 2 * V * O * V * O * O * V, V * O, V * O, O * V},
      {"(c) T3 ladder", "abef", "efcijk", "abcijk", mk({v3, v3, v3, v3}, "ANAN"),
       mk({v3, v3, v3, o3, o3, o3}, "AANAAN"), mk({v3, v3, v3, o3, o3, o3}, "AANAAN"),
       2 * pairs(v3) * pairs(v3) * v3 * triples(o3), pairs(v3), v3 * triples(o3), pairs(v3)},
  };
  for (const Case& c : cases) run_case(comm, ctx, c, yard, reps);
  if (comm.root()) std::printf("\ntop operations on rank 0:\n%s", comm.stats().table(8).c_str());
  return 0;
}
