// Hartree-Fock SCF: RHF and UHF on libint2 integrals, Fock build split over ranks.
//
// Convergence (DESIGN.md §8): |dE| < scf.convergence and the RMS of the
// orthogonalised orbital gradient X^T(F D S - S D F)X < scf.convergence (per
// spin density; for UHF over the alpha and beta gradients concatenated), after
// at least two iterations. Rank 0 computes the energy, DIIS and the
// diagonalisation and broadcasts them, so every rank returns bit-identical
// results (§8: ranks diagonalising independently would rotate degenerate
// orbitals differently).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "chem/basis.hpp"
#include "input/input.hpp"
#include "parallel/comm.hpp"
#include "parallel/log.hpp"

namespace cyclocc::chem {

// One SCF iteration, as printed.
struct ScfIteration {
  double energy = 0;        // energy of the density that built this Fock matrix
  double delta_e = 0;       // energy minus the previous iteration's (0 before it)
  double rms_density = 0;   // RMS change of the density, alpha and beta together
  double rms_gradient = 0;  // RMS of X^T(FDS-SDF)X
  double s2 = 0;            // <S^2> of the new orbitals (UHF)
  double seconds = 0;       // wall time of the iteration
};

struct ScfResult {
  std::string reference;             // "rhf" or "uhf"
  bool converged = false;
  bool stopped = false;              // ended by ScfStart::stop_requested, before converging
  int iterations = 0;                // those of a resumed SCF included
  double energy = 0;                 // total SCF energy (hartree)
  double nuclear_repulsion = 0;
  double s2 = 0;                     // <S^2>; for RHF the exact S(S+1) = 0
  int nbf = 0;
  int n_alpha = 0;
  int n_beta = 0;
  Eigen::MatrixXd C_alpha, C_beta;   // AO x MO coefficients, MOs by ascending energy
  Eigen::VectorXd eps_alpha, eps_beta;
  Eigen::VectorXd occ_alpha, occ_beta;
  double seconds = 0;
  // Number of molecular orbitals (< nbf after removing linear dependence).
  int nmo = 0;
  std::vector<ScfIteration> history;
  // Fock-build work per rank (same on every rank): quartets computed in one
  // build, and their estimated cost, which the static split balances.
  std::vector<std::int64_t> fock_quartets_per_rank;
  std::vector<std::int64_t> fock_cost_per_rank;
  double fock_seconds = 0;           // this rank's Fock-build wall time, summed over iterations
  double fock_cpu_seconds = 0;       // the same in CPU time (insensitive to other load)
};

// How an SCF starts, and whether it may stop early.
struct ScfStart {
  // The unconverged orbitals of an SCF that a stop signal ended (read from
  // its checkpoint) to go on from instead of scf.guess. The iterations count
  // on from its, and scf.max_iterations bounds the total.
  const ScfResult* resume = nullptr;
  // Asked after every iteration that neither converged nor was the last
  // allowed; collective, with the same answer on every rank. True ends the
  // SCF there, with `stopped` set and the orbitals of that iteration.
  std::function<bool()> stop_requested;
};

// Runs the SCF. Every rank returns the same result (orbitals are computed on
// one rank and broadcast). Not converging is reported through `converged`.
// Needs a live LibintSession (chem/libint_session.hpp).
ScfResult run_scf(const par::Comm& comm, const input::Input& in, const Basis& basis,
                  const par::Log& log, const ScfStart& start = {});

// <S^2> of a UHF determinant: S_z(S_z+1) + n_beta - sum_ij |<i_alpha|j_beta>|^2
// over occupied orbitals (the standard result, e.g. Szabo and Ostlund,
// Modern Quantum Chemistry, 1989, ch. 3 on UHF).
double uhf_s2(const Eigen::MatrixXd& C_alpha, const Eigen::MatrixXd& C_beta, const Eigen::MatrixXd& S,
              int n_alpha, int n_beta);

}  // namespace cyclocc::chem
