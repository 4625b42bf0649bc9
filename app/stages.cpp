#include "app/stages.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app/errors.hpp"
#include "chem/checkpoint.hpp"
#include "chem/molden.hpp"

namespace cyclocc::app {

void RunContext::stop_point(const std::string& what) {
  if (!stop.requested(comm)) return;
  log.print("%s received after writing %s (%s); stopping\n", stop.signal_name().c_str(), what.c_str(),
            checkpoint_path.c_str());
  throw Interrupted("stopped by " + stop.signal_name() + " after writing " + what + " (" +
                    checkpoint_path + "); run again with --restart to continue");
}

void RunContext::stop_point_during(const std::string& stage) {
  if (!stop.requested(comm)) return;
  log.print("%s received during %s: stopping; the checkpoint %s holds the work before it\n",
            stop.signal_name().c_str(), stage.c_str(), checkpoint_path.c_str());
  throw Interrupted("stopped by " + stop.signal_name() + " during " + stage + " (checkpoint " + checkpoint_path +
                    "); run again with --restart to continue");
}

input::Input stage_input(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw input::InputError(path + ": is a folder, not an input file");
  if (!std::filesystem::is_regular_file(path, ec)) throw input::InputError(path + ": no such input file");
  return input::parse_input(path);
}

namespace {

void check_orbital_counts(const std::string& path, const input::Input& in, const chem::Basis& basis,
                          const chem::ScfResult& scf) {
  const bool uhf = scf.reference == "uhf";
  const auto nbf = static_cast<long>(basis.nbf);
  bool ok = scf.nbf == basis.nbf && scf.C_alpha.rows() == nbf && scf.n_alpha == in.molecule.n_alpha() &&
            scf.n_beta == in.molecule.n_beta() && (!uhf || scf.C_beta.rows() == nbf);
  if (!ok)
    throw chem::CheckpointError("checkpoint " + path +
                                ": its orbitals do not fit the input (basis functions or electron counts)");
}

// The SCF of a matching checkpoint, or nothing (with a warning) if there is
// no checkpoint to restart from. It is either converged (reused as it is) or
// the orbitals of an SCF that a stop signal ended (the SCF goes on from them).
// A checkpoint that is present but damaged or belongs to another calculation
// is an error; the file is only read.
std::optional<chem::ScfResult> restart_scf(RunContext& ctx, const input::Input& in,
                                           const chem::Basis& basis) {
  const std::string& path = ctx.checkpoint_path;
  if (!chem::checkpoint_exists(ctx.comm, path)) {
    ctx.log.warning("--restart: no checkpoint %s, starting from the beginning\n", path.c_str());
    return std::nullopt;
  }
  chem::CheckpointReader reader(ctx.comm, path);
  const auto mismatch = chem::identity_mismatch(reader.read_identity(), chem::checkpoint_identity(in, basis));
  if (!mismatch.empty())
    throw chem::CheckpointError("checkpoint " + path + " does not match the input: " + mismatch);
  chem::ScfResult scf = reader.read_scf();
  check_orbital_counts(path, in, basis, scf);
  if (scf.converged)
    ctx.log.print("SCF: reusing the orbitals of checkpoint %s (%s)\n", path.c_str(),
                  par::count_of(scf.iterations, "iteration").c_str());
  else
    ctx.log.print("SCF: going on from the orbitals of checkpoint %s, where a stop signal ended the SCF after "
                  "iteration %d\n",
                  path.c_str(), scf.iterations);
  return scf;
}

void write_scf_checkpoint(RunContext& ctx, const input::Input& in, const chem::Basis& basis,
                          const chem::ScfResult& scf) {
  Stopwatch clock;
  chem::CheckpointWriter writer(ctx.comm, ctx.checkpoint_path);
  // Coefficients, orbital energies and occupations of both spins.
  const auto values = scf.C_alpha.size() + scf.C_beta.size() + 2 * (scf.eps_alpha.size() + scf.eps_beta.size());
  writer.require_free_space(static_cast<std::int64_t>(sizeof(double) * values));
  writer.write_identity(chem::checkpoint_identity(in, basis));
  writer.write_scf(scf);
  writer.commit();
  ctx.results.set_timing("checkpoint", clock.seconds());
  ctx.log.print("checkpoint: %sSCF orbitals written to %s\n", scf.converged ? "" : "unconverged ",
                ctx.checkpoint_path.c_str());
}

// A stop signal ended the SCF iterations: their orbitals go to the
// checkpoint, so that --restart goes on from them. Without --restart an
// existing checkpoint is left as it is (only a converged SCF replaces it).
[[noreturn]] void stop_in_scf(RunContext& ctx, const input::Input& in, const chem::Basis& basis,
                              const chem::ScfResult& scf) {
  const std::string& path = ctx.checkpoint_path;
  const std::string signal = ctx.stop.signal_name();
  const std::string where = "during the SCF, after iteration " + std::to_string(scf.iterations);
  if (ctx.restart || !chem::checkpoint_exists(ctx.comm, path)) {
    write_scf_checkpoint(ctx, in, basis, scf);
    ctx.log.print("%s received %s: stopping; the checkpoint %s holds its orbitals\n", signal.c_str(),
                  where.c_str(), path.c_str());
    throw Interrupted("stopped by " + signal + " " + where + " (checkpoint " + path +
                      "); run again with --restart to continue");
  }
  ctx.log.print("%s received %s: stopping; the existing checkpoint %s is left as it was (without --restart "
                "only a converged SCF replaces it)\n",
                signal.c_str(), where.c_str(), path.c_str());
  throw Interrupted("stopped by " + signal + " " + where + "; the existing checkpoint " + path +
                    " was left as it was");
}

// One spin's orbital energies: every occupied one, the lowest virtual ones
// (the results file has them all), eight to a line.
void print_orbital_energies(const RunContext& ctx, const Eigen::VectorXd& eps, int occupied) {
  constexpr int kVirtualShown = 16;
  const int n = static_cast<int>(eps.size());
  auto row = [&](const char* label, int first, int last) {
    for (int k = first; k < last; k += 8) {
      std::string line = k == first ? label : "";
      line.resize(10, ' ');
      char value[24];
      for (int m = k; m < std::min(last, k + 8); ++m) {
        std::snprintf(value, sizeof value, "%12.6f", eps(m));  // apart also below -100
        line += value;
      }
      ctx.log.print("%s\n", line.c_str());
    }
  };
  row("  occupied", 0, occupied);
  const int shown = std::min(n, occupied + kVirtualShown);
  row("  virtual", occupied, shown);
  if (shown < n) ctx.log.print("           ... %d more, up to %.6f\n", n - shown, eps(n - 1));
  if (occupied > 0 && occupied < n)
    ctx.log.print("  HOMO %.6f, LUMO %.6f, gap %.6f\n", eps(occupied - 1), eps(occupied),
                  eps(occupied) - eps(occupied - 1));
}

// The converged orbital energies: in the log, and in the results file as
// extras.scf_eigenvalues_a (and _b for UHF), QCSchema's wavefunction names.
void report_orbital_energies(RunContext& ctx, const chem::ScfResult& scf) {
  auto list = [](const Eigen::VectorXd& eps) { return std::vector<double>(eps.data(), eps.data() + eps.size()); };
  const bool uhf = scf.reference == "uhf";
  ctx.log.print("SCF orbital energies (hartree)%s\n", uhf ? ", alpha:" : ", alpha and beta alike:");
  print_orbital_energies(ctx, scf.eps_alpha, scf.n_alpha);
  ctx.results.set_extra("scf_eigenvalues_a", json::Value::array_of(list(scf.eps_alpha)));
  if (!uhf) return;
  ctx.log.print("SCF orbital energies (hartree), beta:\n");
  print_orbital_energies(ctx, scf.eps_beta, scf.n_beta);
  ctx.results.set_extra("scf_eigenvalues_b", json::Value::array_of(list(scf.eps_beta)));
}

}  // namespace

chem::ScfResult stage_scf(RunContext& ctx, const input::Input& in, const chem::Basis& basis) {
  Stopwatch clock;
  std::optional<chem::ScfResult> stored;
  if (ctx.restart) stored = restart_scf(ctx, in, basis);
  const bool from_checkpoint = stored && stored->converged;
  chem::ScfStart start;
  if (stored && !stored->converged) start.resume = &*stored;
  start.stop_requested = [&ctx] { return ctx.stop.requested(ctx.comm); };
  chem::ScfResult scf = from_checkpoint ? *stored : chem::run_scf(ctx.comm, in, basis, ctx.log, start);
  ctx.results.set_extra("scf_from_checkpoint", from_checkpoint);
  ctx.results.set_property("scf_iterations", scf.iterations);
  ctx.results.set_timing("scf", clock.seconds());
  if (scf.stopped) stop_in_scf(ctx, in, basis, scf);

  ctx.results.set_property("nuclear_repulsion_energy", scf.nuclear_repulsion);
  ctx.results.set_property("scf_total_energy", scf.energy);
  if (scf.reference == "uhf") ctx.results.set_extra("scf_s_squared", scf.s2);  // the log's SCF <S^2>
  if (in.cc.method == "none") ctx.results.set_return_energy(scf.energy);
  if (!scf.converged) {
    char energy[32];
    std::snprintf(energy, sizeof energy, "%.12f", scf.energy);
    throw ConvergenceError("SCF did not converge in " + par::count_of(scf.iterations, "iteration") +
                           " (scf.max_iterations: " + std::to_string(in.scf.max_iterations) +
                           "; last energy " + energy + ")");
  }
  report_orbital_energies(ctx, scf);
  if (!from_checkpoint) write_scf_checkpoint(ctx, in, basis, scf);
  // A safe point after writing the checkpoint, unless the SCF was all there
  // was to do (a restored SCF wrote nothing: the MO transform has the next).
  if (!from_checkpoint && in.cc.method != "none") ctx.stop_point("the SCF checkpoint");
  return scf;
}

void stage_molden(RunContext& ctx, const input::Input& in, const chem::Basis& basis,
                  const chem::ScfResult& scf) {
  if (in.output.molden.empty()) return;
  if (ctx.comm.root()) chem::write_molden(in.output.molden, in, basis, scf);
  ctx.log.print("molden: orbitals written to %s\n", in.output.molden.c_str());
}


}  // namespace cyclocc::app
