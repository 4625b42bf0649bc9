// SCF wall-time benchmark: runs the SCF of an input file and reports the time
// of the whole SCF and of the Fock builds (wall, and CPU, which other load on
// the machine does not inflate), maxima over ranks, with the energy.
//
//   mpirun -np N cyclocc_scf_bench INPUT.yaml [-v]
//
// bench/scf/run.sh runs it at 1 and 2 ranks on (H2O)2/cc-pVTZ and prints the
// speed-up.
#include <cstdio>
#include <cstring>
#include <exception>

#include "chem/basis.hpp"
#include "chem/libint_session.hpp"
#include "chem/scf.hpp"
#include "input/input.hpp"
#include "parallel/comm.hpp"
#include "parallel/log.hpp"

int main(int argc, char** argv) {
  cyclocc::par::Environment env(&argc, &argv);
  const auto& comm = env.world();
  if (argc < 2) {
    if (comm.root()) std::fprintf(stderr, "usage: cyclocc_scf_bench INPUT.yaml [-v]\n");
    return 2;
  }
  const bool verbose = argc > 2 && std::strcmp(argv[2], "-v") == 0;
  try {
    cyclocc::chem::LibintSession libint;
    const cyclocc::par::Log log(comm.root(), verbose);
    const auto in = cyclocc::input::parse_input(argv[1]);
    const auto basis = cyclocc::chem::load_basis(in);
    comm.barrier();
    const auto res = cyclocc::chem::run_scf(comm, in, basis, log);
    const double fock_max = comm.allreduce_max(res.fock_seconds);
    const double scf_max = comm.allreduce_max(res.seconds);
    const double cpu_max = comm.allreduce_max(res.fock_cpu_seconds);
    log.print("bench: ranks %d nbf %d iterations %d energy %.10f scf_seconds %.3f fock_seconds %.3f "
              "fock_cpu_seconds %.3f\n",
              comm.size(), res.nbf, res.iterations, res.energy, scf_max, fock_max, cpu_max);
    return res.converged ? 0 : 3;
  } catch (const cyclocc::input::InputError& e) {
    if (comm.root()) std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
