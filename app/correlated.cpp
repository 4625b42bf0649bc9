// The correlated stages: MO transformation, MP2, CCSD, (T) and CCSDT
// (DESIGN.md §1), with checkpoints and restart of the CC iterations
// (app/cc_checkpoint.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "app/cc_checkpoint.hpp"
#include "app/errors.hpp"
#include "app/run_memory.hpp"
#include "app/stages.hpp"
#include "chem/cc/ccsd.hpp"
#include "chem/cc/ccsdt.hpp"
#include "chem/cc/diagnostics.hpp"
#include "chem/cc/triples.hpp"
#include "chem/cc/solver.hpp"
#include "chem/motransform.hpp"
#include "tensor/context.hpp"

namespace cyclocc::app {

namespace {

// An energy for a message: to 1e-12, or with an exponent where it has run
// away (a diverging CC), which "%.12f" would cut short.
std::string energy_text(double e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, printed_with_exponent(e) ? "%.12e" : "%.12f", e);
  return buf;
}

// Records a stage's wall time when it ends, also when it ends the run (a
// stop signal, no convergence).
class TimingOnExit {
 public:
  TimingOnExit(Results& results, std::string key) : results_(results), key_(std::move(key)) {}
  ~TimingOnExit() { results_.set_timing(key_, clock_.seconds()); }
  double seconds() const { return clock_.seconds(); }
  TimingOnExit(const TimingOnExit&) = delete;
  TimingOnExit& operator=(const TimingOnExit&) = delete;

 private:
  Results& results_;
  std::string key_;
  Stopwatch clock_;
};

// The correlation energy of amplitudes t by the spins of the electron pairs,
// as the properties PREFIX_same_spin_correlation_energy and
// PREFIX_opposite_spin_correlation_energy; print_pair_energies logs it.
cc::PairEnergies record_pair_energies(RunContext& ctx, const cc::MoIntegrals& mo, const cc::Amplitudes& t,
                                      const std::string& prefix) {
  const cc::PairEnergies e = cc::pair_energies(mo, t);
  ctx.results.set_property(prefix + "_same_spin_correlation_energy", e.same_spin);
  ctx.results.set_property(prefix + "_opposite_spin_correlation_energy", e.opposite_spin);
  return e;
}

// `of` starts the line ("MP2").
void print_pair_energies(const RunContext& ctx, const std::string& of, const cc::PairEnergies& e) {
  ctx.log.print("%s correlation energy of same-spin pairs %.12f, of opposite-spin pairs %.12f\n", of.c_str(),
                e.same_spin, e.opposite_spin);
}

// The T1 and D1 diagnostics of amplitudes t, as extras.PREFIX_t1_diagnostic
// and extras.PREFIX_d1_diagnostic (restricted, with active occupied
// orbitals); print_singles_diagnostics logs them.
cc::SinglesDiagnostics record_singles_diagnostics(RunContext& ctx, const cc::Amplitudes& t,
                                                  const std::string& prefix) {
  const cc::SinglesDiagnostics d = cc::singles_diagnostics(t);
  ctx.results.set_extra(prefix + "_t1_diagnostic", d.t1);
  if (d.d1) ctx.results.set_extra(prefix + "_d1_diagnostic", *d.d1);
  return d;
}

void print_singles_diagnostics(const RunContext& ctx, const std::string& of, const cc::SinglesDiagnostics& d) {
  char d1[48] = "";
  if (d.d1) std::snprintf(d1, sizeof d1, ", D1 diagnostic %.6f", *d.d1);
  ctx.log.print("%s T1 diagnostic %.6f%s\n", of.c_str(), d.t1, d1);
}

// Smaller amplitudes are not listed (zero by symmetry, or nothing to correlate).
constexpr double kListedAbove = 1e-9;

// The largest amplitudes of one tensor (t1 or t2), one line each: the
// occupied orbitals, then the virtual ones they are excited to, numbered
// from 1 by energy per spin as in the SCF's list of orbital energies (frozen
// ones included), a or b for alpha or beta, and the amplitude.
void print_largest(const RunContext& ctx, const char* name, const tensor::SpinTensor& x,
                   const chem::ActiveSpace& space, int count) {
  const std::string& spaces = x.spaces();
  // Amplitudes equal but for rounding (t_ij^ab and t_ji^ba of RHF) by their
  // indices, as exactly equal ones are, so that the list does not follow
  // rounding (which differs between rank counts).
  auto list = x.largest(count + 2);
  auto key = [](const tensor::SpinTensor::Element& e) {
    return std::make_tuple(-std::llround(std::abs(e.value) * 1e12), e.spins, e.index);
  };
  std::stable_sort(list.begin(), list.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  list.resize(std::min<std::size_t>(list.size(), count));
  std::erase_if(list, [](const tensor::SpinTensor::Element& e) { return std::abs(e.value) < kListedAbove; });
  if (list.empty()) ctx.log.print("  %s none above 1e-9\n", name);  // kListedAbove
  for (const tensor::SpinTensor::Element& e : list) {
    std::string occupied, virtuals;
    for (std::size_t p = 0; p < spaces.size(); ++p) {
      const int s = e.spins[p] == 'a' ? 0 : 1;
      const bool occ = spaces[p] == 'o';
      const int number = space.frozen[s] + (occ ? 0 : space.occ[s]) + e.index[p] + 1;
      (occ ? occupied : virtuals) += " " + std::to_string(number) + e.spins[p];
    }
    ctx.log.print("  %s %-18s %15.9f\n", name, (occupied + " ->" + virtuals).c_str(), e.value);
  }
}

void print_largest_amplitudes(const RunContext& ctx, const std::string& prefix, const cc::Amplitudes& t,
                              const chem::ActiveSpace& space) {
  constexpr int kCount = 10;
  ctx.log.print("%s largest amplitudes (occupied -> virtual orbitals, numbered from 1 by energy as in the SCF's "
                "list; a alpha, b beta):\n", method_label(prefix).c_str());
  print_largest(ctx, "t1", t.t1, space, kCount);
  print_largest(ctx, "t2", t.t2, space, kCount);
}

// MP2 from the first-order amplitudes (also the CCSD guess, left in t).
double run_mp2(RunContext& ctx, const cc::MoIntegrals& mo, const chem::ScfResult& scf, cc::Amplitudes& t) {
  cc::mp2_amplitudes(mo, t);
  const double e = cc::ccsd_energy(mo, t);
  ctx.log.print("MP2 correlation energy %20.12f   total %20.12f\n", e, scf.energy + e);
  ctx.results.set_property("mp2_correlation_energy", e);
  ctx.results.set_property("mp2_total_energy", scf.energy + e);
  print_pair_energies(ctx, "MP2", record_pair_energies(ctx, mo, t, "mp2"));
  return e;
}

cc::SolverResult run_ccsd(RunContext& ctx, const input::Input& in, CcCheckpoint& ckpt, const cc::MoIntegrals& mo,
                          cc::Amplitudes& t) {
  const cc::Equations eq{[&](const cc::Amplitudes& x, cc::Amplitudes& r) { cc::ccsd_rhs(mo, x, r); },
                         [&](const cc::Amplitudes& x) { return cc::ccsd_energy(mo, x); }};
  return iterate_with_checkpoints(ctx, in, ckpt, "ccsd", eq, mo, t);
}

// Ends the run of a method whose iterations diverged (cc::SolverResult::
// diverged_at). The iteration before, if the run (or the one it restarted
// from) did one, is the method's last energy, as in the checkpoint; the
// pair energies and diagnostics of run-away amplitudes are not reported.
[[noreturn]] void throw_diverged(RunContext& ctx, const chem::ScfResult& scf, const std::string& method,
                                 const cc::SolverResult& res, bool requested) {
  const std::string label = method_label(method);
  std::string kept = "no iteration of it was kept";
  if (res.iterations > 0) {
    ctx.results.set_property(method + "_correlation_energy", res.energy);
    ctx.results.set_property(method + "_total_energy", scf.energy + res.energy);
    if (requested) ctx.results.set_return_energy(scf.energy + res.energy);
    kept = "the results and the checkpoint hold iteration " + std::to_string(res.iterations) + " (energy " +
           energy_text(scf.energy + res.energy) + ")";
  }
  ctx.results.set_property(method + "_iterations", res.iterations);
  throw ConvergenceError(label + " diverged: iteration " + std::to_string(res.diverged_at) +
                         " gave amplitudes or an energy that are not finite numbers; " + kept);
}

// A method's energies and iterations as results properties; `method`
// ("ccsd", "ccsdt") is the QCSchema property prefix.
void record(RunContext& ctx, const chem::ScfResult& scf, const std::string& method, const cc::SolverResult& res) {
  ctx.results.set_property(method + "_correlation_energy", res.energy);
  ctx.results.set_property(method + "_total_energy", scf.energy + res.energy);
  ctx.results.set_property(method + "_iterations", res.iterations);
}

// Records a method's energies and ends the run if it stopped or did not
// converge. Its energy is the run's return energy only if it is the method
// the input asked for (CCSD before (T) or CCSDT is not: docs/results.md).
// `more`, if given, reports what else the amplitudes of res.energy give,
// also when the method stopped or did not converge; its argument starts its lines.
void report(RunContext& ctx, const chem::ScfResult& scf, const std::string& method, const cc::SolverResult& res,
            bool requested, int max_iterations, const std::function<void(const std::string&)>& more = {}) {
  const std::string label = method_label(method);
  if (res.diverged_at > 0) throw_diverged(ctx, scf, method, res, requested);
  record(ctx, scf, method, res);
  if (requested) ctx.results.set_return_energy(scf.energy + res.energy);
  const bool converged = res.converged && !res.stopped;
  if (converged)
    ctx.log.print("%s converged in %s: correlation %.12f, total %.12f hartree\n", label.c_str(),
                  par::count_of(res.iterations, "iteration").c_str(), res.energy, scf.energy + res.energy);
  if (more) more(converged ? label : label + " (last iteration, not converged)");
  if (res.stopped) throw Interrupted(interrupted_message(ctx, method, res.iterations));
  if (!res.converged)
    throw ConvergenceError(label + " did not converge in " + par::count_of(res.iterations, "iteration") +
                           " (cc.max_iterations: " + std::to_string(max_iterations) + "; last energy " +
                           energy_text(scf.energy + res.energy) + ")");
}

// Bytes of local copies one rank may hold for (T): a quarter of the
// machine's memory shared by all ranks (the ranks of a job may share a
// node), the least over the ranks so that every rank takes the same path.
// Not what is still available: the windowed path is for systems whose
// per-triple copies are too large, and on small ones it holds more than
// they do (under a tight cgroup limit, choosing it got runs killed that the
// per-triple path fit; review of stop 29).
double triples_budget(RunContext& ctx) {
  return -ctx.comm.allreduce_max(-physical_bytes() / (4.0 * ctx.comm.size()));
}

// (T) on the converged CCSD amplitudes.
void run_triples(RunContext& ctx, const chem::ScfResult& scf, const cc::MoIntegrals& mo, const cc::Amplitudes& t,
                 double e_ccsd) {
  const TimingOnExit clock(ctx.results, "triples");
  const int P = ctx.comm.size();
  const double mb = 8.0 * cc::per_triple_words(mo.dims, P) / 1048576.0;
  const double budget_mb = triples_budget(ctx) / 1048576.0;
  cc::TriplesOptions opt;
  opt.per_triple = mb <= budget_mb;
  const int o = mo.dims.occ[0];
  if (!opt.per_triple) {
    ctx.log.print("(T): one triple at a time would hold %.0f MB per rank (budget %.0f MB): windowed triples, "
                  "%d occupied orbital(s) per spin per batch\n", mb, budget_mb, P);
  } else if (mo.dims.restricted) {
    ctx.log.print("(T): closed-shell triples, %d occupied triples i >= j >= k over %d rank(s), %.0f MB per rank\n",
                  o * (o + 1) * (o + 2) / 6, P, mb);
  } else {
    ctx.log.print("(T): unrestricted triples, spin cases aaa, aab, abb, bbb over %d rank(s), %.0f MB per rank\n", P,
                  mb);
  }
  // What (T) adds to what the CCSD iterations left in place (their peak line).
  const double least_mb = least_share_per_rank(ctx) / 1048576.0;
  if (opt.per_triple && mb > least_mb) warn_short_of_memory(ctx, "(T) needs about", mb, "more per rank", least_mb);
  // Safe points for a stop signal, and a progress line every half minute.
  double last_line = 0;
  opt.progress = [&, unit = opt.per_triple ? "occupied triples" : "batches"](long done, long total) {
    ctx.stop_point_during("(T)");
    if (done == total || clock.seconds() < last_line + 30) return;
    last_line = clock.seconds();
    ctx.log.print("(T): %ld of %ld %s done (%.0f%%), %.1f s\n", done, total, unit, 100.0 * done / total, last_line);
  };
  const double e_t = cc::triples_correction(mo, t, opt);
  ctx.results.set_property("ccsd_prt_pr_correlation_energy", e_ccsd + e_t);
  ctx.results.set_property("ccsd_prt_pr_total_energy", scf.energy + e_ccsd + e_t);
  ctx.results.set_return_energy(scf.energy + e_ccsd + e_t);
  ctx.log.print("(T) correction %20.12f   CCSD(T) correlation %.12f, total %.12f hartree (%.2f s)\n", e_t,
                e_ccsd + e_t, scf.energy + e_ccsd + e_t, clock.seconds());
}

// CCSDT from the CCSD amplitudes with T3 = 0 (or from its own stored amplitudes).
cc::SolverResult run_ccsdt(RunContext& ctx, const input::Input& in, CcCheckpoint& ckpt, const cc::MoIntegrals& mo,
                           const cc::Amplitudes& t) {
  cc::Amplitudes t3(t.t1.ctx(), mo.dims, true);
  t3.t1 = t.t1;
  t3.t2 = t.t2;
  const cc::Equations eq{[&](const cc::Amplitudes& x, cc::Amplitudes& r) { cc::ccsdt_rhs(mo, x, r); },
                         [&](const cc::Amplitudes& x) { return cc::ccsd_energy(mo, x); }};
  return iterate_with_checkpoints(ctx, in, ckpt, "ccsdt", eq, mo, t3);
}

}  // namespace

void stage_correlated(RunContext& ctx, const input::Input& in, const chem::Basis& basis,
                      const chem::ScfResult& scf) {
  const std::string& method = in.cc.method;
  if (method == "none") return;
  tensor::Context tctx(ctx.comm);
  const chem::ActiveSpace space = chem::active_space(scf, in.cc.frozen_core.count);
  ctx.results.set_keyword("frozen_core", space.frozen[0]);  // orbitals, of each spin
  // Stored amplitudes are checked before the transform, so a bad checkpoint fails at once.
  CcCheckpoint ckpt(ctx, in, basis, scf, amplitude_space(space, scf.reference == "rhf"));
  if (ctx.restart) ckpt.load(cc_methods(method));
  ctx.log.print("\nMO transform: %d+%d frozen, %d+%d active occupied, %d+%d virtual orbitals (alpha+beta)\n",
                space.frozen[0], space.frozen[1], space.occ[0], space.occ[1], space.vir[0], space.vir[1]);
  const cc::VvvvNeeds needs{method == "ccsdt", method != "mp2"};
  report_transform_memory(ctx, basis, space, scf.reference == "rhf", needs);
  const cc::MoIntegrals mo = [&] {
    const TimingOnExit timing(ctx.results, "motransform");
    return chem::transform_integrals(tctx, basis, scf, space, ctx.log, nullptr, needs,
                                     [&] { ctx.stop_point_during("the MO transform"); });
  }();

  const TimingOnExit cc_time(ctx.results, "cc");
  cc::Amplitudes t(tctx, mo.dims, false);
  const double e_mp2 = run_mp2(ctx, mo, scf, t);
  if (method == "mp2") {
    ctx.results.set_return_energy(scf.energy + e_mp2);
    ctx.results.set_timing("cc_iterations", std::vector<double>{});  // MP2 does not iterate
    return;
  }
  // A CCSDT restart with CCSDT amplitudes of its own does not need CCSD again.
  const std::optional<CcProgress> stored_ccsdt = method == "ccsdt" ? ckpt.stored("ccsdt") : std::nullopt;
  cc::SolverResult ccsd;
  if (!stored_ccsdt) {
    ccsd = run_ccsd(ctx, in, ckpt, mo, t);
  } else if (const auto p = ckpt.stored("ccsd")) {
    ccsd = stored_result(*p);
  }
  // (An unconverged run's results hold its iteration times too; CCSDT's
  // own list stays empty until its iterations start.)
  ctx.results.set_timing(method == "ccsdt" ? "ccsd_iterations" : "cc_iterations", ccsd.seconds);
  if (method == "ccsdt") ctx.results.set_timing("cc_iterations", std::vector<double>{});
  // CCSD's energy by pair spins and its diagnostics, unless a CCSDT restart
  // skipped CCSD (and did not read its amplitudes).
  auto ccsd_more = [&](const std::string& of) {
    print_pair_energies(ctx, of, record_pair_energies(ctx, mo, t, "ccsd"));
    print_singles_diagnostics(ctx, of, record_singles_diagnostics(ctx, t, "ccsd"));
  };
  if (!stored_ccsdt) {
    report(ctx, scf, "ccsd", ccsd, method == "ccsd", in.cc.max_iterations, ccsd_more);
    print_largest_amplitudes(ctx, "ccsd", t, space);  // converged, or report threw
  } else if (ckpt.stored("ccsd")) {
    // The CCSD this CCSDT started from, as stored: not judged again (by a
    // tighter cc.convergence it would be "not converged", and is not iterated).
    record(ctx, scf, "ccsd", ccsd);
    ctx.log.print("CCSD (stored, before CCSDT) %s: correlation %.12f, total %.12f hartree\n",
                  par::count_of(ccsd.iterations, "iteration").c_str(), ccsd.energy, scf.energy + ccsd.energy);
  }
  if (method != "ccsd") stop_after_method(ctx, "ccsd", ccsd.iterations);  // a safe point before (T) or CCSDT
  if (method == "ccsd(t)") run_triples(ctx, scf, mo, t, ccsd.energy);
  if (method == "ccsdt") {
    const cc::SolverResult res = run_ccsdt(ctx, in, ckpt, mo, t);
    ctx.results.set_timing("cc_iterations", res.seconds);
    report(ctx, scf, "ccsdt", res, true, in.cc.max_iterations);
  }
}

}  // namespace cyclocc::app
