// Coulomb (J) and exchange (K) matrices from AO densities, integral-direct
// with libint2, split over MPI ranks.
//
// The unique shell quartets (s1 s2|s3 s4) with s1>=s2, s3>=s4 and pair(s3,s4)
// <= pair(s1,s2) are visited once and scattered with 8-fold permutational
// symmetry. A quartet is skipped when its Schwarz bound Q12*Q34 is below the
// threshold (1e-14, as Psi4 ints_tolerance and NWChem tol2e did for the
// reference energies).
//
// Work split: a task is one bra shell pair with a contiguous range of its ket
// pairs. Tasks are cut so that none costs more than total/(20 P), then given
// to ranks by greedy longest-processing-time on an estimated cost (below),
// which depends only on the basis and the Schwarz bounds, so every rank
// computes the same plan with no communication. LPT bounds the heaviest rank
// by total/P + the largest task, i.e. <= 1.05 total/P.
//
// In core: the first build keeps this rank's integrals when they fit in
// `incore_bytes` (default kIncoreBytes per rank), and later builds read them
// instead of recomputing (as Psi4's scf_type pk does). When they do not fit
// the builder stays integral-direct.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <libint2.hpp>
#include <vector>

#include "chem/basis.hpp"
#include "parallel/comm.hpp"

namespace cyclocc::chem {

inline constexpr double kSchwarzThreshold = 1e-14;
// libint2's own screening of primitive quartets, far below the threshold.
// Its estimates leave out the contraction, so the sum of what it drops can be
// far above this: Na+ in cc-pVDZ (tight s exponents up to 3e5 with diffuse
// ones) came out 2.4e-9 Eh low at 1e-16, 3e-10 at 1e-17, 2.4e-11 at 1e-18
// and within 1e-12 of Psi4 1.3.2 and NWChem 7.0.2 at 1e-20 and below
// (regression case nah_ccpvdz_rhf_fc). 1e-20 costs 0-7% more SCF and MO
// transform time than 1e-16 on H2O/aug-cc-pVTZ and (H2O)3/cc-pVDZ.
inline constexpr double kPrimitivePrecision = 1e-20;
// Integrals a rank keeps in memory between Fock builds (1 GiB).
inline constexpr std::size_t kIncoreBytes = std::size_t{1} << 30;

struct JK {
  Eigen::MatrixXd J;                // J[Dj]
  std::vector<Eigen::MatrixXd> K;   // K[Dk[s]] for each density s
};

class FockBuilder {
 public:
  // Plans the work of `rank` out of `nranks` for this basis.
  FockBuilder(const Basis& basis, int rank, int nranks, double threshold = kSchwarzThreshold,
              std::size_t incore_bytes = kIncoreBytes);

  // This rank's share of J[Dj] and K[Dk[s]] for one or two densities Dk (the
  // full result when nranks == 1).
  JK compute_local(const Eigen::MatrixXd& Dj, const std::vector<Eigen::MatrixXd>& Dk);
  // J and K on every rank: the local shares summed over `comm` (whose size
  // and rank must match the constructor's).
  JK compute(const par::Comm& comm, const Eigen::MatrixXd& Dj, const std::vector<Eigen::MatrixXd>& Dk);

  // Estimated cost of one quartet, in arbitrary units (see fock.cpp).
  static std::int64_t quartet_cost(const libint2::Shell& a, const libint2::Shell& b,
                                   const libint2::Shell& c, const libint2::Shell& d);

  // The plan: estimated cost assigned to each rank.
  const std::vector<std::int64_t>& planned_cost() const { return planned_cost_; }
  std::int64_t total_cost() const { return total_cost_; }
  std::size_t n_tasks() const { return tasks_.size(); }
  // Whether builds after the first read stored integrals.
  bool in_core() const { return mode_ == Mode::InCore; }
  // This rank's quartets (computed once when in core) and their cost.
  std::int64_t computed_quartets() const { return computed_quartets_; }
  std::int64_t computed_cost() const { return computed_cost_; }
  double last_seconds() const { return last_seconds_; }          // wall
  double last_cpu_seconds() const { return last_cpu_seconds_; }  // this process's CPU

 private:
  struct Pair {
    int s1, s2;
    double q;  // Schwarz factor
  };
  struct Task {
    int bra;              // index into pairs_
    int ket_begin, ket_end;
    std::int64_t cost;
  };
  struct Stored {
    int bra, ket;        // indices into pairs_
    std::size_t offset;  // of the quartet's integrals in values_
  };
  enum class Mode { First, InCore, Direct };
  void compute_quartets(const Eigen::MatrixXd& Dj, const std::vector<Eigen::MatrixXd>& Dk, Eigen::MatrixXd& A,
                        std::vector<Eigen::MatrixXd>& B);
  void keep(int bra, int ket, const double* eri);
  void make_pairs(const Eigen::MatrixXd& schwarz);
  void make_tasks(int rank, int nranks);
  void add_quartet(int p, int q, const double* eri, const Eigen::MatrixXd& Dj,
                   const std::vector<Eigen::MatrixXd>& Dk, Eigen::MatrixXd& A,
                   std::vector<Eigen::MatrixXd>& B) const;

  const Basis& basis_;
  double threshold_;
  libint2::Engine engine_;
  std::vector<Pair> pairs_;
  std::vector<libint2::ShellPair> shellpairs_;  // libint2 data of each pair
  std::vector<Task> tasks_;  // this rank's tasks
  std::vector<std::int64_t> planned_cost_;
  std::int64_t total_cost_ = 0;
  std::int64_t computed_quartets_ = 0;
  std::int64_t computed_cost_ = 0;
  double last_seconds_ = 0;
  double last_cpu_seconds_ = 0;
  std::size_t incore_limit_;  // doubles
  Mode mode_ = Mode::First;
  std::vector<Stored> stored_;
  std::vector<double> values_;
};

}  // namespace cyclocc::chem
