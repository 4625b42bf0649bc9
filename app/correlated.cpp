// The correlated stages: MO transformation, MP2, CCSD (DESIGN.md §1).
#include <cstdio>
#include <string>

#include "app/errors.hpp"
#include "app/stages.hpp"
#include "chem/cc/ccsd.hpp"
#include "chem/cc/solver.hpp"
#include "chem/motransform.hpp"
#include "tensor/context.hpp"

namespace cyclocc::app {

namespace {

std::string energy_text(double e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12f", e);
  return buf;
}

// MP2 from the first-order amplitudes (also the CCSD guess, left in t).
double run_mp2(RunContext& ctx, const cc::MoIntegrals& mo, const chem::ScfResult& scf, cc::Amplitudes& t) {
  cc::mp2_amplitudes(mo, t);
  const double e = cc::ccsd_energy(mo, t);
  ctx.log.print("MP2 correlation energy %20.12f   total %20.12f\n", e, scf.energy + e);
  ctx.results.set_property("mp2_correlation_energy", e);
  ctx.results.set_property("mp2_total_energy", scf.energy + e);
  return e;
}

cc::SolverResult run_ccsd(RunContext& ctx, const input::Input& in, const cc::MoIntegrals& mo, cc::Amplitudes& t) {
  const cc::Equations eq{[&](const cc::Amplitudes& x, cc::Amplitudes& r) { cc::ccsd_rhs(mo, x, r); },
                         [&](const cc::Amplitudes& x) { return cc::ccsd_energy(mo, x); }};
  const cc::SolverOptions opt{in.cc.convergence, in.cc.max_iterations, in.cc.diis};
  ctx.log.print("CCSD: convergence %.1e on |dE| and |dT|, DIIS %d vectors\n", opt.convergence, opt.diis);
  ctx.log.print(" iter        correlation energy           dE        |dT|  seconds\n");
  auto hook = [&](const cc::Amplitudes&, const cc::Iteration& it) {
    ctx.log.print("%5d  %24.14f  %11.4e  %10.4e  %7.2f\n", it.number, it.energy, it.delta_e, it.delta_t, it.seconds);
    return ctx.stop.requested(ctx.comm);
  };
  return cc::solve(eq, mo, t, opt, 0, hook);
}

}  // namespace

void stage_correlated(RunContext& ctx, const input::Input& in, const chem::Basis& basis,
                      const chem::ScfResult& scf) {
  const std::string& method = in.cc.method;
  if (method == "none") return;
  Stopwatch clock;
  tensor::Context tctx(ctx.comm);
  const chem::ActiveSpace space = chem::active_space(scf, in.cc.frozen_core.count);
  ctx.log.print("\nMO transform: %d frozen, %d+%d active occupied, %d+%d virtual orbitals (alpha+beta)\n",
                space.frozen[0], space.occ[0], space.occ[1], space.vir[0], space.vir[1]);
  const cc::MoIntegrals mo = chem::transform_integrals(tctx, basis, scf, space, ctx.log);
  ctx.results.set_timing("motransform", clock.seconds());

  Stopwatch cc_clock;
  cc::Amplitudes t(tctx, mo.dims, false);
  const double e_mp2 = run_mp2(ctx, mo, scf, t);
  if (method == "mp2") {
    ctx.results.set_return_energy(scf.energy + e_mp2);
    ctx.results.set_timing("cc", cc_clock.seconds());
    return;
  }
  const cc::SolverResult res = run_ccsd(ctx, in, mo, t);
  ctx.results.set_property("ccsd_correlation_energy", res.energy);
  ctx.results.set_property("ccsd_total_energy", scf.energy + res.energy);
  ctx.results.set_property("ccsd_iterations", res.iterations);
  ctx.results.set_timing("cc_iterations", res.seconds);
  ctx.results.set_timing("cc", cc_clock.seconds());
  ctx.results.set_return_energy(scf.energy + res.energy);
  if (res.stopped) throw Interrupted("stopped by a signal during the CCSD iterations");
  if (!res.converged)
    throw ConvergenceError("CCSD did not converge in " + std::to_string(res.iterations) +
                           " iterations (cc.max_iterations; last energy " + energy_text(scf.energy + res.energy) + ")");
  ctx.log.print("CCSD converged in %d iterations: correlation %.12f, total %.12f hartree\n", res.iterations,
                res.energy, scf.energy + res.energy);
  if (method != "ccsd") throw NotImplemented("cc.method " + method + " is not implemented yet (CCSD is done)");
}

}  // namespace cyclocc::app
