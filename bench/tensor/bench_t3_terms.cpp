// The CCSDT terms whose cost is mostly data reorganisation: each contracts a
// T3 block (or builds one) where the dgemm is small next to the unpacking of
// the operand and the antisymmetrisation of the output. Sizes are those of
// the alpha-beta-mixed T3 block of N2/cc-pVDZ (bench/cc P6): o = 7, v = 21
// per spin. Run under mpirun with P ranks:
//   mpirun -np P build/bench/tensor/bench_t3_terms [--table]
// Prints, per term, the fastest of 7 calls (ms, with barriers around each
// call), and the total; --table adds the operations table of rank 0, whose
// dgemm column gives the share of each term spent in the dgemm.
#include <algorithm>
#include <chrono>
#include <cstdio>
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

struct Term {
  const char* what;
  const Tensor* a;
  const char* la;
  const Tensor* b;
  const char* lb;
  Tensor* c;
  const char* lc;
};

}  // namespace

int main(int argc, char** argv) {
  tensor::start_in_fitting_environment(argv);  // before MPI: it may start the program again
  par::Environment env(&argc, &argv);
  par::Comm& comm = env.world();
  const bool table = argc > 1 && std::string(argv[1]) == "--table";
  tensor::Context ctx(comm);
  const int v = 21, o = 7;
  // T3(aabaab): a<b alpha virtual, c beta virtual, i<j alpha occupied, k beta.
  Tensor t3(ctx, mk({v, v, v, o, o, o}, "ANNANN"), "T3");
  Tensor r3(ctx, mk({v, v, v, o, o, o}, "ANNANN"), "R3");
  Tensor voov(ctx, mk({v, o, o, v}, "NNNN"), "H_amie");
  Tensor vvvv(ctx, mk({v, v, v, v}, "NNNN"), "H_abef");
  Tensor vooo(ctx, mk({v, o, o, o}, "NNNN"), "H_amij");
  Tensor vvov(ctx, mk({v, v, o, v}, "NNNN"), "H_abie");
  Tensor vovv(ctx, mk({v, o, v, v}, "NNNN"), "H_amef");
  Tensor t2(ctx, mk({v, v, o, o}, "NNNN"), "T2");
  Tensor r2(ctx, mk({v, v, o, o}, "NNNN"), "R2");
  std::uint64_t seed = 1;
  for (Tensor* t : {&t3, &voov, &vvvv, &vooo, &vvov, &vovv, &t2}) t->fill_random(seed++);
  // Block terms as the spin layer issues them for the T3 and T2 equations
  // (chem/cc/ccsdt.cpp), with the labels of their spin cases.
  const std::vector<Term> terms = {
      {"H_amie*T3, pairs split in both", &voov, "bAjB", &t3, "aBciAk", &r3, "abcijk"},
      {"H_abef*T3, ladder", &vvvv, "acAB", &t3, "AbBijk", &r3, "abcijk"},
      {"H_amie*T3, c from H", &voov, "cAjB", &t3, "abBiAk", &r3, "abcijk"},
      {"H_amie*T3, k from H", &voov, "bAkB", &t3, "aBcijA", &r3, "abcijk"},
      {"H_amie*T3, c and k from H", &t3, "abBijA", &voov, "cAkB", &r3, "abcijk"},
      {"H_amij*T2 into T3", &vooo, "aAik", &t2, "bcjA", &r3, "abcijk"},
      {"H_abie*T2 into T3", &vvov, "aciA", &t2, "bAjk", &r3, "abcijk"},
      {"H_amef*T3 into T2", &vovv, "aABC", &t3, "CbBiAj", &r2, "abij"},
  };
  double total = 0;
  for (const Term& t : terms) {
    double best = 1e30;
    for (int rep = 0; rep < 7; ++rep) {
      comm.barrier();
      const double t0 = now();
      tensor::contract(1.0, *t.a, t.la, *t.b, t.lb, 1.0, *t.c, t.lc);
      comm.barrier();
      best = std::min(best, now() - t0);
    }
    total += best;
    if (comm.root())
      std::printf("%-30s %s[%s] += %s[%s]*%s[%s]  %8.2f ms\n", t.what, t.c->name().c_str(), t.lc,
                  t.a->name().c_str(), t.la, t.b->name().c_str(), t.lb, best * 1e3);
  }
  if (comm.root()) std::printf("total %.2f ms on %d rank(s)\n", total * 1e3, comm.size());
  if (comm.root() && table) std::printf("%s", comm.stats().table(20).c_str());
  return 0;
}
