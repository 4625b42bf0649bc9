#include "chem/scf.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "chem/diis.hpp"
#include "chem/fock.hpp"
#include "chem/integrals.hpp"
#include "chem/linalg.hpp"
#include "chem/molecule.hpp"
#include "chem/sad.hpp"

namespace cyclocc::chem {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Orbitals {
  Eigen::MatrixXd C;    // nbf x nmo
  Eigen::VectorXd eps;  // ascending
};

// Everything the iterations need that does not change.
struct Setup {
  bool uhf = false;
  int n_alpha = 0, n_beta = 0, nbf = 0, nmo = 0;
  double enuc = 0;
  double s_min = 0;  // the smallest overlap eigenvalue kept
  Eigen::MatrixXd S, H, X;
};

Orbitals diagonalize(const Eigen::MatrixXd& F, const Eigen::MatrixXd& X) {
  const SymmetricEigen e = symmetric_eigen(X.transpose() * F * X);
  return {X * e.vectors, e.values};
}

Eigen::MatrixXd density(const Eigen::MatrixXd& C, int nocc) {
  const auto occ = C.leftCols(nocc);
  return occ * occ.transpose();
}

double rms(const std::vector<Eigen::MatrixXd>& ms) {
  double sum = 0, count = 0;
  for (const auto& m : ms) {
    sum += m.squaredNorm();
    count += static_cast<double>(m.size());
  }
  return count > 0 ? std::sqrt(sum / count) : 0.0;
}

// What rank 0 decides in one iteration and broadcasts.
struct Step {
  double energy = 0, delta_e = 0, rms_gradient = 0, s2 = 0;
  bool converged = false;
  // Passed the convergence test and going on for a correlated method
  // (Polish), past scf.max_iterations if need be.
  bool polishing = false;
  std::vector<Orbitals> orbitals;  // one per spin
};

void broadcast(const par::Comm& comm, const Setup& su, Step& step) {
  if (comm.size() == 1) return;
  const std::size_t nspin = su.uhf ? 2 : 1;
  const std::size_t per = static_cast<std::size_t>(su.nbf) * su.nmo + su.nmo;
  std::vector<double> buf;
  if (comm.root()) {
    buf = {step.energy, step.delta_e, step.rms_gradient, step.s2, step.converged ? 1.0 : step.polishing ? 2.0 : 0.0};
    for (const auto& o : step.orbitals) {
      buf.insert(buf.end(), o.C.data(), o.C.data() + o.C.size());
      buf.insert(buf.end(), o.eps.data(), o.eps.data() + o.eps.size());
    }
  }
  comm.bcast(buf, 0);
  if (comm.root()) return;
  step.energy = buf[0];
  step.delta_e = buf[1];
  step.rms_gradient = buf[2];
  step.s2 = buf[3];
  step.converged = buf[4] == 1.0;
  step.polishing = buf[4] == 2.0;
  step.orbitals.assign(nspin, Orbitals{});
  for (std::size_t s = 0; s < nspin; ++s) {
    const double* p = buf.data() + 5 + s * per;
    step.orbitals[s].C = Eigen::Map<const Eigen::MatrixXd>(p, su.nbf, su.nmo);
    step.orbitals[s].eps = Eigen::Map<const Eigen::VectorXd>(p + su.nbf * su.nmo, su.nmo);
  }
}

std::vector<Eigen::MatrixXd> densities(const Setup& su, const std::vector<Orbitals>& orb) {
  if (!su.uhf) return {density(orb[0].C, su.n_alpha)};
  return {density(orb[0].C, su.n_alpha), density(orb[1].C, su.n_beta)};
}

// Fock matrices per spin from the spin densities (RHF: D = alpha density).
std::vector<Eigen::MatrixXd> fock_matrices(const par::Comm& comm, const Setup& su, FockBuilder& fb,
                                           const std::vector<Eigen::MatrixXd>& D) {
  const Eigen::MatrixXd Dj = su.uhf ? Eigen::MatrixXd(D[0] + D[1]) : Eigen::MatrixXd(2.0 * D[0]);
  const JK jk = fb.compute(comm, Dj, D);
  std::vector<Eigen::MatrixXd> F;
  for (const auto& K : jk.K) F.push_back(su.H + jk.J - K);
  return F;
}

// Before a correlated method the SCF goes on past the convergence test (§8:
// |dE| and the RMS orbital gradient below scf.convergence) until the gradient
// is 100 times lower, for at most 10 more iterations (past scf.max_iterations
// if the test is passed at the last) and while it still falls
// (usually 1-3; an SCF resumed without its DIIS history can need more: CN
// UHF in aug-cc-pVTZ stopped after iteration 20 and resumed was still at
// 1.9e-11 after 3, and its MP2 energy 1.8e-9 off).
// Where the orbital Hessian is soft, a gradient of 1e-10 still moves the
// correlation energy by 1e-9: CO+ UHF in 6-311G** (<S^2> = 1.016) converged
// from the SAD and the core guess gave MP2 energies 1.8e-9 apart, against
// DESIGN §8's "two runs converged independently agree to well below 1e-9".
class Polish {
 public:
  Polish(double convergence, bool correlated) : target_(correlated ? 0.01 * convergence : convergence) {}
  // Whether an iteration that passed the convergence test ends the SCF.
  bool done(double rms_gradient) {
    if (rms_gradient < target_ || left_ == 0 || rms_gradient >= last_) return true;
    --left_;
    last_ = rms_gradient;
    return false;
  }

 private:
  double target_;
  int left_ = 10;
  double last_ = std::numeric_limits<double>::infinity();
};

// Rank 0: energy, gradient, convergence test, DIIS and new orbitals.
Step decide(const Setup& su, const input::ScfOptions& opt, int iteration, double e_prev,
            const std::vector<Eigen::MatrixXd>& D, const std::vector<Eigen::MatrixXd>& F, Diis& diis,
            Polish& polish) {
  Step step;
  const double weight = su.uhf ? 0.5 : 1.0;  // RHF: D is the alpha density, E = tr D(H+F)
  double e = su.enuc;
  std::vector<Eigen::MatrixXd> err;
  for (std::size_t s = 0; s < D.size(); ++s) {
    e += weight * D[s].cwiseProduct(su.H + F[s]).sum();
    err.push_back(su.X.transpose() * (F[s] * D[s] * su.S - su.S * D[s] * F[s]) * su.X);
  }
  step.energy = e;
  step.delta_e = iteration > 1 ? e - e_prev : 0.0;
  step.rms_gradient = rms(err);
  const bool passed =
      iteration >= 2 && std::abs(step.delta_e) < opt.convergence && step.rms_gradient < opt.convergence;
  step.converged = passed && polish.done(step.rms_gradient);
  step.polishing = passed && !step.converged;
  // Converged: the canonical orbitals of the final (not extrapolated) Fock matrix.
  const std::vector<Eigen::MatrixXd> Fx = step.converged ? F : diis.extrapolate(F, err);
  for (const auto& f : Fx) step.orbitals.push_back(diagonalize(f, su.X));
  if (su.uhf)
    step.s2 = uhf_s2(step.orbitals[0].C, step.orbitals[1].C, su.S, su.n_alpha, su.n_beta);
  return step;
}

// The basis has fewer orbitals than the alpha electrons: blamed on the
// charge where the neutral molecule's would fit, else on the basis.
input::InputError too_few_orbitals(const input::Input& in, const Setup& su) {
  const int electrons = in.molecule.n_electrons(), neutral = electrons + in.molecule.charge;
  const std::string orbitals = std::to_string(su.nmo) + " orbitals";
  if (in.molecule.charge < 0 && (neutral + 1) / 2 <= su.nmo)
    return input::InputError(input::input_error_message(
        in.path, in.molecule.charge_line, "molecule.charge",
        "charge " + std::to_string(in.molecule.charge) + " gives " + std::to_string(electrons) + " electrons, " +
            std::to_string(su.n_alpha) + " of them alpha, and basis " + in.basis + " has only " + orbitals));
  return input::InputError(input::input_error_message(in.path, in.basis_line, "basis",
                                                      in.basis + " has " + orbitals + ", too few for " +
                                                          std::to_string(su.n_alpha) + " alpha electrons"));
}

Setup make_setup(const input::Input& in, const Basis& basis) {
  Setup su;
  su.uhf = in.scf.reference == "uhf";
  su.n_alpha = in.molecule.n_alpha();
  su.n_beta = in.molecule.n_beta();
  if (!su.uhf && su.n_alpha != su.n_beta)
    throw input::InputError(in.path + ": scf.reference: rhf needs a closed shell (multiplicity " +
                            std::to_string(in.molecule.multiplicity) + " given); use uhf");
  if (in.scf.max_iterations < 1)
    throw input::InputError(in.path + ": scf.max_iterations: must be >= 1");
  su.nbf = basis.nbf;
  su.enuc = nuclear_repulsion(in.molecule.atoms);
  su.S = overlap_matrix(basis);
  su.H = kinetic_matrix(basis) + nuclear_matrix(basis, in.molecule.atoms);
  su.X = orthogonalizer(su.S, kLinearDependenceThreshold, &su.s_min);
  su.nmo = static_cast<int>(su.X.cols());
  if (su.n_alpha > su.nmo) throw too_few_orbitals(in, su);
  return su;
}

// Initial spin densities: SAD (spin-averaged, half to each spin) or the
// orbitals of the core Hamiltonian.
std::vector<Eigen::MatrixXd> guess(const par::Comm& comm, const input::Input& in, const Basis& basis,
                                   const Setup& su) {
  const std::size_t nspin = su.uhf ? 2 : 1;
  if (in.scf.guess == "sad") {
    const Eigen::MatrixXd half = 0.5 * sad_density(comm, basis, in.molecule.atoms);
    return std::vector<Eigen::MatrixXd>(nspin, half);
  }
  Step step;
  if (comm.root()) step.orbitals.assign(nspin, diagonalize(su.H, su.X));
  broadcast(comm, su, step);
  return densities(su, step.orbitals);
}

// The spin densities of a stopped SCF's orbitals (identical on every rank:
// every rank read the same checkpoint).
std::vector<Eigen::MatrixXd> resumed_densities(const Setup& su, const ScfResult& from) {
  const auto fits = [&](const Eigen::MatrixXd& C) { return C.rows() == su.nbf && C.cols() == su.nmo; };
  if (!fits(from.C_alpha) || (su.uhf && !fits(from.C_beta)))
    throw std::invalid_argument("the stopped SCF's orbitals do not fit the basis (" +
                                std::to_string(from.C_alpha.cols()) + " orbitals, " + std::to_string(su.nmo) +
                                " expected)");
  std::vector<Orbitals> orb{{from.C_alpha, from.eps_alpha}};
  if (su.uhf) orb.push_back({from.C_beta, from.eps_beta});
  return densities(su, orb);
}

void log_header(const par::Log& log, const Setup& su, const std::string& guess, const Basis& basis) {
  log.print("SCF: %s, %d basis functions (%s, %s), %d alpha and %d beta electrons, guess %s\n",
            su.uhf ? "UHF" : "RHF", su.nbf, basis.name.c_str(), basis.pure ? "spherical" : "cartesian",
            su.n_alpha, su.n_beta, guess.c_str());
  if (su.nmo < su.nbf)
    log.print("SCF: %d linearly dependent combination%s removed (overlap eigenvalues below %.0e)\n",
              su.nbf - su.nmo, su.nbf - su.nmo == 1 ? "" : "s", kLinearDependenceThreshold);
  log.print("SCF: smallest overlap eigenvalue %.3e\n", su.s_min);
  if (su.s_min < kNearDependenceWarning)
    log.warning("SCF: the basis is nearly linearly dependent (smallest overlap eigenvalue %.1e): rounding "
                "errors of up to about %.0e hartree may remain in the energies, differ between rank counts, and "
                "keep convergence thresholds below that from being reached\n",
                su.s_min, 1e-15 / su.s_min);
  log.print("%5s %22s %12s %12s %12s%s %8s\n", "iter", "energy", "dE", "rms(dD)", "rms(grad)",
            su.uhf ? "        <S^2>" : "", "seconds");
}

void log_iteration(const par::Log& log, bool uhf, int it, const ScfIteration& r) {
  if (uhf)
    log.print("%5d %22.12f %12.4e %12.4e %12.4e %12.8f %8.2f\n", it, r.energy, r.delta_e,
              r.rms_density, r.rms_gradient, r.s2, r.seconds);
  else
    log.print("%5d %22.12f %12.4e %12.4e %12.4e %8.2f\n", it, r.energy, r.delta_e, r.rms_density,
              r.rms_gradient, r.seconds);
}

void log_balance(const par::Comm& comm, const par::Log& log, const FockBuilder& fb, ScfResult& res) {
  res.fock_quartets_per_rank = comm.allgather(fb.computed_quartets());
  res.fock_cost_per_rank = comm.allgather(fb.computed_cost());
  std::int64_t total = 0, most = 0, total_q = 0;
  for (std::size_t r = 0; r < res.fock_cost_per_rank.size(); ++r) {
    total += res.fock_cost_per_rank[r];
    total_q += res.fock_quartets_per_rank[r];
    most = std::max(most, res.fock_cost_per_rank[r]);
  }
  const double seconds_max = comm.allreduce_max(res.fock_seconds);
  const double seconds_sum = comm.allreduce_sum(res.fock_seconds);
  const double cpu_max = comm.allreduce_max(res.fock_cpu_seconds);
  const double cpu_sum = comm.allreduce_sum(res.fock_cpu_seconds);
  const double imbalance = total > 0 ? static_cast<double>(most) * comm.size() / total : 1.0;
  log.detail("Fock build: %zu tasks on rank 0, %lld quartets per build over %d ranks, max/mean "
             "cost %.3f, max/mean wall time %.3f, max/mean CPU time %.3f (max %.2f s)\n",
             fb.n_tasks(), static_cast<long long>(total_q), comm.size(), imbalance,
             seconds_sum > 0 ? seconds_max * comm.size() / seconds_sum : 1.0,
             cpu_sum > 0 ? cpu_max * comm.size() / cpu_sum : 1.0, cpu_max);
  if (log.verbose())
    for (std::size_t r = 0; r < res.fock_cost_per_rank.size(); ++r)
      log.detail("  rank %zu: %lld quartets, cost %lld\n", r,
                 static_cast<long long>(res.fock_quartets_per_rank[r]),
                 static_cast<long long>(res.fock_cost_per_rank[r]));
}

// Each orbital's sign fixed: its largest coefficient positive (of nearly
// equal ones, the first), so that the orbitals, and the signs of the
// amplitudes printed from them, do not follow the eigensolver's choice,
// which can differ between rank counts. (Orbitals of one degenerate set
// can still be rotated among themselves.)
Eigen::MatrixXd with_fixed_phases(Eigen::MatrixXd C) {
  for (Eigen::Index j = 0; j < C.cols(); ++j) {
    const double big = C.col(j).cwiseAbs().maxCoeff();
    Eigen::Index at = 0;
    while (at + 1 < C.rows() && std::abs(C(at, j)) < big * (1 - 1e-8)) ++at;
    if (C(at, j) < 0) C.col(j) *= -1;
  }
  return C;
}

ScfResult make_result(const Setup& su, const Step& last) {
  ScfResult res;
  res.reference = su.uhf ? "uhf" : "rhf";
  res.energy = last.energy;
  res.nuclear_repulsion = su.enuc;
  res.nbf = su.nbf;
  res.nmo = su.nmo;
  res.n_alpha = su.n_alpha;
  res.n_beta = su.n_beta;
  const Orbitals& a = last.orbitals[0];
  const Orbitals& b = last.orbitals[su.uhf ? 1 : 0];
  res.C_alpha = with_fixed_phases(a.C);
  res.eps_alpha = a.eps;
  res.C_beta = with_fixed_phases(b.C);
  res.eps_beta = b.eps;
  res.occ_alpha = Eigen::VectorXd::Zero(su.nmo);
  res.occ_beta = Eigen::VectorXd::Zero(su.nmo);
  res.occ_alpha.head(su.n_alpha).setOnes();
  res.occ_beta.head(su.n_beta).setOnes();
  const double sz = 0.5 * (su.n_alpha - su.n_beta);
  res.s2 = su.uhf ? last.s2 : sz * (sz + 1);
  return res;
}

// A resumed SCF whose stopped run already took scf.max_iterations: not
// converged, with the stored orbitals and energy.
ScfResult used_up(const par::Log& log, const ScfResult& stored, int max_iterations) {
  log.print("SCF did not converge in %s (the stopped run took them all; scf.max_iterations %d): "
            "last E = %.12f hartree\n",
            par::count_of(stored.iterations, "iteration").c_str(), max_iterations, stored.energy);
  ScfResult res = stored;
  res.converged = false;
  res.stopped = false;
  return res;
}

}  // namespace

double uhf_s2(const Eigen::MatrixXd& C_alpha, const Eigen::MatrixXd& C_beta, const Eigen::MatrixXd& S,
              int n_alpha, int n_beta) {
  const double sz = 0.5 * (n_alpha - n_beta);
  const Eigen::MatrixXd overlap = C_alpha.leftCols(n_alpha).transpose() * S * C_beta.leftCols(n_beta);
  return sz * (sz + 1) + n_beta - overlap.squaredNorm();
}

ScfResult run_scf(const par::Comm& comm, const input::Input& in, const Basis& basis,
                  const par::Log& log, const ScfStart& start) {
  const auto start_time = Clock::now();
  const Setup su = make_setup(in, basis);
  const int done = start.resume ? start.resume->iterations : 0;  // by the stopped SCF
  log_header(log, su, start.resume ? "the orbitals of iteration " + std::to_string(done) : in.scf.guess, basis);
  if (done >= in.scf.max_iterations) return used_up(log, *start.resume, in.scf.max_iterations);
  FockBuilder fb(basis, comm.rank(), comm.size());
  Diis diis(in.scf.diis);
  Polish polish(in.scf.convergence, in.cc.method != "none");
  std::vector<Eigen::MatrixXd> D = start.resume ? resumed_densities(su, *start.resume) : guess(comm, in, basis, su);
  std::vector<ScfIteration> history;
  Step step;
  bool stopped = false;
  double fock_seconds = 0, fock_cpu_seconds = 0;
  for (int it = done + 1; it <= in.scf.max_iterations || step.polishing; ++it) {
    const auto t0 = Clock::now();
    const std::vector<Eigen::MatrixXd> F = fock_matrices(comm, su, fb, D);
    fock_seconds += fb.last_seconds();
    fock_cpu_seconds += fb.last_cpu_seconds();
    const double e_prev = history.empty() ? 0.0 : history.back().energy;
    // A resumed SCF has no previous energy or DIIS history: it counts as a fresh start.
    if (comm.root()) step = decide(su, in.scf, it - done, e_prev, D, F, diis, polish);
    broadcast(comm, su, step);
    if (!std::isfinite(step.energy))  // every rank has it: all stop alike
      throw std::runtime_error("SCF: the energy of iteration " + std::to_string(it) +
                               " is not a finite number; check the geometry and the basis set");
    std::vector<Eigen::MatrixXd> D_new = densities(su, step.orbitals);
    std::vector<Eigen::MatrixXd> change;
    for (std::size_t s = 0; s < D.size(); ++s) change.push_back(D_new[s] - D[s]);
    ScfIteration rec{step.energy, step.delta_e, rms(change), step.rms_gradient, step.s2, seconds_since(t0)};
    history.push_back(rec);
    log_iteration(log, su.uhf, it, rec);
    D = std::move(D_new);
    if (step.converged) break;
    if (it < in.scf.max_iterations && start.stop_requested && start.stop_requested()) {
      stopped = true;
      break;
    }
  }
  ScfResult res = make_result(su, step);
  res.converged = step.converged;
  res.stopped = stopped;
  res.iterations = done + static_cast<int>(history.size());
  res.history = std::move(history);
  res.fock_seconds = fock_seconds;
  res.fock_cpu_seconds = fock_cpu_seconds;
  log_balance(comm, log, fb, res);
  res.seconds = seconds_since(start_time);
  if (res.stopped)
    log.print("SCF stopped after iteration %d, before converging: last E = %.12f hartree\n", res.iterations,
              res.energy);
  else if (res.converged)
    log.print("SCF converged in %s: E(%s) = %.12f hartree\n", par::count_of(res.iterations, "iteration").c_str(),
              su.uhf ? "UHF" : "RHF", res.energy);
  else
    log.print("SCF did not converge in %s: last E = %.12f hartree\n",
              par::count_of(res.iterations, "iteration").c_str(), res.energy);
  if (su.uhf) log.print("SCF <S^2> = %.10f\n", res.s2);
  // The orbitals returned fill the lowest levels of the last Fock matrix. A
  // stationary density that fills a higher one (H2 stretched to 15 A in
  // STO-3G: the ionic H- H+, whose Fock matrix puts the electrons on the
  // other atom) passes the convergence test, but these orbitals differ from it.
  const double flip = res.history.back().rms_density;
  if (res.converged && flip > std::max(1e-4, 100 * in.scf.convergence))
    log.warning("SCF: the converged density does not fill the lowest orbitals of its own Fock matrix "
                "(RMS change %.1e): this is not the lowest SCF state, and the orbitals passed on are another\n",
                flip);
  return res;
}

}  // namespace cyclocc::chem
