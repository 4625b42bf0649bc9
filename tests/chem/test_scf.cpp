// SCF against the reference energies, at every rank count CTest runs it with
// (1, 2, 3): every regression molecule, UHF <S^2>, RHF = UHF on a closed
// shell, SAD vs core guess, bit-identical results on all ranks, and the
// balance of the distributed Fock build.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "chem/basis.hpp"
#include "chem/fock.hpp"
#include "chem/integrals.hpp"
#include "chem/linalg.hpp"
#include "chem/sad.hpp"
#include "chem/scf.hpp"
#include "tests/chem/chem_test.hpp"
#include "tests/dense_eri.hpp"

namespace cyclocc::chem {
namespace {

using chem_test::world;

const par::Log& quiet() {
  static const par::Log log(false, false);
  return log;
}

ScfResult scf_of(const input::Input& in) { return run_scf(world(), in, load_basis(in), quiet()); }

input::Input regression_input(const std::string& id) {
  for (const auto& c : chem_test::regression_cases())
    if (c.id == id) return chem_test::load_case(c.input_path);
  throw std::runtime_error("no regression case " + id);
}

double reference_energy(const std::string& id) {
  for (const auto& c : chem_test::regression_cases())
    if (c.id == id) return c.scf_energy.value();
  throw std::runtime_error("no regression case " + id);
}

// Every rank holds exactly rank 0's numbers.
void expect_same_on_all_ranks(const ScfResult& r) {
  std::vector<double> mine{r.energy, r.s2};
  mine.insert(mine.end(), r.C_alpha.data(), r.C_alpha.data() + r.C_alpha.size());
  mine.insert(mine.end(), r.C_beta.data(), r.C_beta.data() + r.C_beta.size());
  mine.insert(mine.end(), r.eps_alpha.data(), r.eps_alpha.data() + r.eps_alpha.size());
  mine.insert(mine.end(), r.eps_beta.data(), r.eps_beta.data() + r.eps_beta.size());
  std::vector<double> root = mine;
  world().bcast(root, 0);
  ASSERT_EQ(root.size(), mine.size());
  EXPECT_EQ(std::memcmp(root.data(), mine.data(), mine.size() * sizeof(double)), 0)
      << "rank " << world().rank() << " differs from rank 0";
}

// Every case of regression/references.yaml: cases that share the SCF problem
// (same molecule, basis, puream and reference) run it once; every SCF
// reference in the group is checked.
TEST(ScfReference, EveryRegressionCase) {
  std::map<std::string, std::vector<chem_test::Case>> groups;
  std::map<std::string, input::Input> inputs;
  for (const auto& c : chem_test::regression_cases()) {
    const auto in = chem_test::load_case(c.input_path);
    groups[chem_test::scf_key(in)].push_back(c);
    inputs.emplace(chem_test::scf_key(in), in);
  }
  EXPECT_EQ(groups.size(), 10u);
  for (const auto& [key, cases] : groups) {
    const input::Input& in = inputs.at(key);
    const ScfResult r = scf_of(in);
    ASSERT_TRUE(r.converged) << cases[0].id;
    int checked = 0;
    for (const auto& c : cases) {
      if (c.scf_energy) {
        EXPECT_NEAR(r.energy, *c.scf_energy, 1e-8) << c.id;
        ++checked;
        if (world().root())
          std::printf("[ scf      ] %-26s np=%d  E = %.12f  |E - ref| = %.2e\n", c.id.c_str(),
                      world().size(), r.energy, std::abs(r.energy - *c.scf_energy));
      }
      if (c.s2_psi4) {
        EXPECT_NEAR(r.s2, *c.s2_psi4, 1e-6) << c.id;
        if (world().root())
          std::printf("[ scf      ] %-26s np=%d  <S^2> = %.10f  |<S^2> - psi4| = %.2e\n", c.id.c_str(),
                      world().size(), r.s2, std::abs(r.s2 - *c.s2_psi4));
      }
    }
    EXPECT_GE(checked, 1) << "no SCF reference for " << cases[0].id;
    EXPECT_NEAR(r.nuclear_repulsion, cases[0].nuclear_repulsion, 1e-10) << cases[0].id;
    expect_same_on_all_ranks(r);
  }
}

TEST(ScfReference, ResultIsConsistentWithItsHistory) {
  auto in = regression_input("oh_631gs_uhf");
  const ScfResult r = scf_of(in);
  ASSERT_TRUE(r.converged);
  ASSERT_EQ(static_cast<int>(r.history.size()), r.iterations);
  ASSERT_GE(r.iterations, 2);
  EXPECT_EQ(r.history.back().energy, r.energy);
  for (std::size_t i = 1; i < r.history.size(); ++i)
    EXPECT_EQ(r.history[i].delta_e, r.history[i].energy - r.history[i - 1].energy);
  EXPECT_LT(std::abs(r.history.back().delta_e), in.scf.convergence);
  EXPECT_LT(r.history.back().rms_gradient, in.scf.convergence);
  EXPECT_GT(r.history.front().rms_gradient, in.scf.convergence);
  EXPECT_NEAR(r.history.back().s2, r.s2, 1e-12);
  // Orbitals: orthonormal, ascending energies, occupations filled.
  const Basis b = load_basis(in);
  const Eigen::MatrixXd S = overlap_matrix(b);
  for (const Eigen::MatrixXd* C : {&r.C_alpha, &r.C_beta})
    EXPECT_LT((C->transpose() * S * *C - Eigen::MatrixXd::Identity(r.nmo, r.nmo)).cwiseAbs().maxCoeff(), 1e-10);
  for (int i = 1; i < r.nmo; ++i) EXPECT_LE(r.eps_alpha(i - 1), r.eps_alpha(i));
  EXPECT_EQ(r.occ_alpha.sum(), in.molecule.n_alpha());
  EXPECT_EQ(r.occ_beta.sum(), in.molecule.n_beta());
  EXPECT_EQ(r.n_alpha, 5);
  EXPECT_EQ(r.n_beta, 4);
}

// The first row of the SCF table is the SAD density's: its RMS density
// change is that between the SAD density d (half per spin) and the density
// of the first orbitals, and its RMS orbital gradient is that of d,
// X^T (F d S - S d F) X with F = H + 2 J[d] - K[d] built here from every
// two-electron integral (tests/dense_eri.hpp) and X = S^-1/2 (any X with
// X^T S X = 1 gives the same norm: they differ by a rotation).
TEST(ScfReference, FirstRowIsThatOfTheSadDensity) {
  auto in = regression_input("h2o_ccpvdz_rhf");
  in.scf.max_iterations = 1;
  const Basis b = load_basis(in);
  const ScfResult r = run_scf(world(), in, b, quiet());
  ASSERT_EQ(r.history.size(), 1u);
  const Eigen::MatrixXd d = 0.5 * sad_density(world(), b, in.molecule.atoms);
  const Eigen::MatrixXd d1 = r.C_alpha.leftCols(r.n_alpha) * r.C_alpha.leftCols(r.n_alpha).transpose();
  EXPECT_NEAR(r.history[0].rms_density, std::sqrt((d1 - d).squaredNorm() / d.size()), 1e-14);
  EXPECT_EQ(r.history[0].delta_e, 0.0);
  EXPECT_GT(r.history[0].seconds, 0.0);
  EXPECT_LE(r.history[0].seconds, r.seconds);

  Eigen::MatrixXd f = kinetic_matrix(b) + nuclear_matrix(b, in.molecule.atoms);
  test::for_each_eri(b, [&](int i, int j, int k, int l, double ijkl) {
    f(i, j) += 2.0 * ijkl * d(k, l);  // J[d]_ij = sum_kl (ij|kl) d_kl
    f(i, k) -= ijkl * d(j, l);        // K[d]_ik = sum_jl (ij|kl) d_jl
  });
  const Eigen::MatrixXd S = overlap_matrix(b);
  const Eigen::MatrixXd X = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(S).operatorInverseSqrt();
  const Eigen::MatrixXd g = X.transpose() * (f * d * S - S * d * f) * X;
  EXPECT_NEAR(r.history[0].rms_gradient, std::sqrt(g.squaredNorm() / g.size()), 1e-12);
  EXPECT_GT(r.history[0].rms_gradient, 1e-3);  // far from converged: the comparison means something
}

TEST(ScfReference, UhfOnAClosedShellReproducesRhf) {
  auto in = regression_input("h2o_ccpvdz_rhf");
  const ScfResult rhf = scf_of(in);
  in.scf.reference = "uhf";
  const ScfResult uhf = scf_of(in);
  ASSERT_TRUE(rhf.converged && uhf.converged);
  EXPECT_EQ(uhf.reference, "uhf");
  EXPECT_NEAR(uhf.energy, rhf.energy, 1e-10);
  EXPECT_NEAR(uhf.s2, 0.0, 1e-10);
  EXPECT_LT((uhf.eps_alpha - rhf.eps_alpha).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((uhf.eps_beta - rhf.eps_alpha).cwiseAbs().maxCoeff(), 1e-8);
}

// The core guess lands on excited UHF/RHF solutions for N2/STO-3G and H2O+
// (Psi4 core guess: -75.547269801 for H2O+); SAD reaches the ground state.
TEST(ScfGuess, SadReachesTheGroundStateWhereCoreDoesNot) {
  for (const char* id : {"n2_sto3g_rhf", "h2o_cation_ccpvdz_uhf"}) {
    auto in = regression_input(id);
    in.scf.guess = "sad";
    const ScfResult sad = scf_of(in);
    in.scf.guess = "core";
    const ScfResult core = scf_of(in);
    ASSERT_TRUE(sad.converged && core.converged) << id;
    EXPECT_NEAR(sad.energy, reference_energy(id), 1e-8) << id;
    EXPECT_GT(core.energy, reference_energy(id) + 1e-2) << id;
  }
}

TEST(ScfGuess, CoreGuessReachesTheGroundStateOfWater) {
  auto in = regression_input("h2o_ccpvdz_rhf");
  in.scf.guess = "core";
  const ScfResult r = scf_of(in);
  ASSERT_TRUE(r.converged);
  EXPECT_NEAR(r.energy, reference_energy("h2o_ccpvdz_rhf"), 1e-8);
  expect_same_on_all_ranks(r);
}

TEST(ScfOptions, WithoutDiisTheSameEnergy) {
  auto in = regression_input("h2o_sto3g_rhf");
  in.scf.diis = 0;
  in.scf.max_iterations = 200;
  const ScfResult r = scf_of(in);
  ASSERT_TRUE(r.converged);
  EXPECT_NEAR(r.energy, reference_energy("h2o_sto3g_rhf"), 1e-8);
}

TEST(ScfOptions, NotConvergingIsReportedWithTheLastEnergy) {
  auto in = regression_input("h2o_ccpvdz_rhf");
  in.scf.max_iterations = 3;
  const ScfResult r = scf_of(in);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 3);
  EXPECT_EQ(r.energy, r.history.back().energy);
  EXPECT_GT(std::abs(r.energy - reference_energy("h2o_ccpvdz_rhf")), 1e-8);
}

// Before a correlated method the SCF goes on past its convergence test until
// the gradient is 100 times lower (Polish); those iterations come on top of
// scf.max_iterations, so a test passed at the last iteration is convergence
// (it was reported as "did not converge", exit 3).
TEST(ScfOptions, TheTighterGradientBeforeCcComesOnTopOfMaxIterations) {
  auto in = regression_input("h2o_sto3g_rhf");
  in.cc.method = "none";
  const ScfResult plain = scf_of(in);
  ASSERT_TRUE(plain.converged);
  in.cc.method = "ccsd";
  in.scf.max_iterations = plain.iterations;
  const ScfResult r = scf_of(in);
  ASSERT_TRUE(r.converged);
  EXPECT_GT(r.iterations, plain.iterations);
  EXPECT_LT(r.history.back().rms_gradient, 0.01 * in.scf.convergence);
  EXPECT_NEAR(r.energy, reference_energy("h2o_sto3g_rhf"), 1e-8);
  in.scf.max_iterations = plain.iterations - 1;  // the test itself not passed: no convergence
  EXPECT_FALSE(scf_of(in).converged);
}

// Infinities in the SCF (an exponent of 1e300 overflows the overlap) stop it
// at once on every rank, not after scf.max_iterations iterations of NaN.
TEST(ScfErrors, ANonFiniteEnergyStopsTheScf) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("cyclocc_huge_exponent_" + std::to_string(::getpid()) + "_" +
                             std::to_string(world().rank()) + ".g94"))
                               .string();
  std::ofstream(path) << "H 0\nS 1 1.00\n 1.0e300 1.0\n****\n";
  auto in = chem_test::make_input(path, {{"H", 0, 0, 0}, {"H", 0, 0, 1.4}});
  in.basis_is_file = true;
  try {
    scf_of(in);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("SCF: the energy of iteration 1 is not a finite number"), std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

TEST(ScfErrors, RhfOfAnOpenShellIsAnInputError) {
  auto in = regression_input("oh_631gs_uhf");
  in.scf.reference = "rhf";
  EXPECT_THROW(scf_of(in), input::InputError);
}

// More alpha electrons than orbitals: the charge is named where the neutral
// molecule fits in the basis, else the basis.
TEST(ScfErrors, TooFewOrbitalsNameTheChargeOrTheBasis) {
  auto in = chem_test::make_input("sto-3g", chem_test::distorted_water());
  in.path = "w.yaml";
  in.basis_line = 8;
  in.molecule.charge = -10;  // 20 electrons, 10 alpha, in 7 orbitals
  in.molecule.charge_line = 3;
  try {
    scf_of(in);
    ADD_FAILURE() << "no error";
  } catch (const input::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "w.yaml:3: molecule.charge: charge -10 gives 20 electrons, 10 of them alpha, "
                                     "and basis sto-3g has only 7 orbitals");
  }
  // A basis file with one s function per atom holds neither water nor its ions.
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("cyclocc_one_s_" + std::to_string(::getpid()) + "_" +
                             std::to_string(world().rank()) + ".g94"))
                               .string();
  std::ofstream(path) << "H 0\nS 1 1.00\n 1.0 1.0\n****\nO 0\nS 1 1.00\n 8.0 1.0\n****\n";
  in.basis = path;
  in.basis_is_file = true;
  for (int charge : {0, -2}) {
    in.molecule.charge = charge;
    try {
      scf_of(in);
      ADD_FAILURE() << "no error";
    } catch (const input::InputError& e) {
      EXPECT_EQ(std::string(e.what()), "w.yaml:8: basis: " + path + " has 3 orbitals, too few for " +
                                           std::to_string(5 - charge / 2) + " alpha electrons");
    }
  }
  std::remove(path.c_str());
}

// Distinct unique quartets that survive the Schwarz screen, counted
// independently of the builder's task list.
std::int64_t surviving_quartets(const Basis& b) {
  const Eigen::MatrixXd q = schwarz_matrix(b);
  std::vector<double> pairs;
  const double qmax = q.maxCoeff();
  for (int s1 = 0; s1 < q.rows(); ++s1)
    for (int s2 = 0; s2 <= s1; ++s2)
      if (q(s1, s2) * qmax >= kSchwarzThreshold) pairs.push_back(q(s1, s2));
  std::int64_t n = 0;
  for (std::size_t p = 0; p < pairs.size(); ++p)
    for (std::size_t r = 0; r <= p; ++r) n += pairs[p] * pairs[r] >= kSchwarzThreshold;
  return n;
}

// The verbose log's balance line: the quartets and max/mean cost of the
// per-rank counts it lists, which are those of the result.
void expect_balance_lines(const std::string& out, const ScfResult& r) {
  long long quartets = 0;
  int ranks = 0;
  double printed = 0;
  const auto at = out.find("Fock build: ");
  ASSERT_NE(at, std::string::npos) << out;
  ASSERT_EQ(std::sscanf(out.c_str() + at, "Fock build: %*d tasks on rank 0, %lld quartets per build over %d ranks, "
                        "max/mean cost %lf", &quartets, &ranks, &printed), 3) << out.substr(at, 200);
  std::int64_t sum_q = 0, cost = 0, most = 0;
  for (int p = 0; p < ranks; ++p) {
    const std::string key = "  rank " + std::to_string(p) + ": ";
    const auto line = out.find(key, at);
    ASSERT_NE(line, std::string::npos) << out;
    long long q = 0, c = 0;
    ASSERT_EQ(std::sscanf(out.c_str() + line + key.size(), "%lld quartets, cost %lld", &q, &c), 2);
    EXPECT_EQ(q, r.fock_quartets_per_rank[p]);
    EXPECT_EQ(c, r.fock_cost_per_rank[p]);
    sum_q += q;
    cost += c;
    most = std::max<std::int64_t>(most, c);
  }
  EXPECT_EQ(ranks, world().size());
  EXPECT_EQ(quartets, sum_q);
  EXPECT_NEAR(printed, static_cast<double>(most) * ranks / cost, 5e-4 + 1e-12);
}

TEST(FockBalance, EveryQuartetOnceAndWorkWithinTenPercentOfEven) {
  auto in = chem_test::make_input("cc-pvdz", chem_test::distorted_water());
  const Basis b = load_basis(in);
  const par::Log verbose(world().root(), true);
  testing::internal::CaptureStdout();
  const ScfResult r = run_scf(world(), in, b, verbose);
  const std::string out = testing::internal::GetCapturedStdout();
  if (world().root()) expect_balance_lines(out, r);
  ASSERT_EQ(static_cast<int>(r.fock_cost_per_rank.size()), world().size());
  std::int64_t quartets = 0, cost = 0, most = 0;
  for (int p = 0; p < world().size(); ++p) {
    quartets += r.fock_quartets_per_rank[p];
    cost += r.fock_cost_per_rank[p];
    most = std::max(most, r.fock_cost_per_rank[p]);
  }
  EXPECT_EQ(quartets, surviving_quartets(b));
  EXPECT_LE(static_cast<double>(most), 1.1 * static_cast<double>(cost) / world().size());
  if (world().root())
    std::printf("[ balance  ] np=%d quartets %lld, max/mean cost %.4f\n", world().size(),
                static_cast<long long>(quartets), static_cast<double>(most) * world().size() / cost);
  // The plan agrees with what was computed.
  FockBuilder fb(b, world().rank(), world().size());
  fb.compute(world(), Eigen::MatrixXd::Zero(b.nbf, b.nbf), {Eigen::MatrixXd::Zero(b.nbf, b.nbf)});
  EXPECT_EQ(fb.planned_cost()[world().rank()], fb.computed_cost());
  EXPECT_EQ(fb.total_cost(), cost);
}

}  // namespace
}  // namespace cyclocc::chem

namespace cyclocc::chem {

// H2 stretched to 15 A in STO-3G: from the SAD guess the SCF lands on the
// ionic H- H+, a stationary density whose own Fock matrix puts the electrons
// on the other atom. It passes the convergence test (as in Psi4 1.3.2), so
// the log warns; at the equilibrium distance it does not.
TEST(ScfWarnings, AStationaryDensityThatIsNotAufbauIsReported) {
  for (const double r : {15.0 / 0.52917721067, 1.4}) {
    const auto in = chem_test::make_input("sto-3g", {{"H", 0, 0, 0}, {"H", 0, 0, r}});
    const par::Log log(world().root(), false);
    testing::internal::CaptureStdout();
    const ScfResult res = run_scf(world(), in, load_basis(in), log);
    const std::string out = testing::internal::GetCapturedStdout();
    ASSERT_TRUE(res.converged);
    const bool warned = out.find("warning: SCF: the converged density does not fill the lowest orbitals") !=
                        std::string::npos;
    EXPECT_EQ(warned, world().root() && r > 10) << "r = " << r << " bohr\n" << out;
  }
}

// He2 at 0.05 A in aug-cc-pVTZ: the smallest overlap eigenvalue (about
// 1e-7, just kept) makes the energies sensitive to rounding, so the log warns;
// at 3 A it does not. Both logs give the smallest kept eigenvalue of S.
TEST(ScfWarnings, ANearlyDependentBasisIsReported) {
  for (const double r : {0.05 / 0.52917721067, 3.0 / 0.52917721067}) {
    const auto in = chem_test::make_input("aug-cc-pvtz", {{"He", 0, 0, 0}, {"He", 0, 0, r}});
    const Basis basis = load_basis(in);
    const par::Log log(world().root(), false);
    testing::internal::CaptureStdout();
    run_scf(world(), in, basis, log);
    const std::string out = testing::internal::GetCapturedStdout();
    if (!world().root()) continue;
    const Eigen::VectorXd values = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(overlap_matrix(basis)).eigenvalues();
    double kept = values.maxCoeff();
    for (double x : values)
      if (x > kLinearDependenceThreshold) kept = std::min(kept, x);
    const std::string key = "SCF: smallest overlap eigenvalue ";
    const auto at = out.find(key);
    ASSERT_NE(at, std::string::npos) << out;
    EXPECT_NEAR(std::stod(out.substr(at + key.size())), kept, 1e-3 * kept) << "r = " << r << " bohr";
    const bool warned = out.find("warning: SCF: the basis is nearly linearly dependent") != std::string::npos;
    EXPECT_EQ(warned, kept < 1e-6) << "r = " << r << " bohr, smallest " << kept;
    EXPECT_EQ(warned, r < 1.0) << out;
  }
}

}  // namespace cyclocc::chem

namespace cyclocc::chem {

// A stop signal ends the SCF after an iteration (ScfStart::stop_requested).
// Going on from those orbitals (ScfStart::resume) takes up where it stopped,
// counts the iterations on, and reaches the energy of an SCF that ran
// through; scf.max_iterations bounds the total.
TEST(ScfStop, AStoppedScfGoesOnToTheSameEnergy) {
  for (const std::string id : {"h2o_ccpvdz_rhf", "ch2_triplet_ccpvdz_uhf"}) {
    SCOPED_TRACE(id);
    input::Input in = regression_input(id);
    const Basis basis = load_basis(in);
    const ScfResult whole = run_scf(world(), in, basis, quiet());
    ASSERT_TRUE(whole.converged);
    ASSERT_GT(whole.iterations, 5);

    int asked = 0;
    ScfStart stop_at_3;
    stop_at_3.stop_requested = [&asked] { return ++asked == 3; };
    const ScfResult part = run_scf(world(), in, basis, quiet(), stop_at_3);
    ASSERT_TRUE(part.stopped);
    EXPECT_FALSE(part.converged);
    EXPECT_EQ(part.iterations, 3);
    EXPECT_EQ(part.energy, whole.history[2].energy);  // the same three iterations

    ScfStart go_on;
    go_on.resume = &part;
    const ScfResult rest = run_scf(world(), in, basis, quiet(), go_on);
    ASSERT_TRUE(rest.converged);
    EXPECT_FALSE(rest.stopped);
    EXPECT_EQ(rest.iterations, 3 + static_cast<int>(rest.history.size()));
    // Its first Fock matrix is built from the stopped SCF's orbitals: the
    // fourth of the SCF that ran through.
    EXPECT_NEAR(rest.history.front().energy, whole.history[3].energy, 1e-12);
    EXPECT_NEAR(rest.energy, whole.energy, 1e-10);
    EXPECT_NEAR(rest.s2, whole.s2, 1e-8);
    expect_same_on_all_ranks(rest);

    // The stopped run took all of scf.max_iterations: nothing more, not converged.
    in.scf.max_iterations = 3;
    const ScfResult none = run_scf(world(), in, basis, quiet(), go_on);
    EXPECT_FALSE(none.converged);
    EXPECT_FALSE(none.stopped);
    EXPECT_EQ(none.iterations, 3);
    EXPECT_EQ(none.energy, part.energy);
  }
}

// Nothing asks to stop after the last allowed iteration (that run ends as
// not converged) or after a converged one.
TEST(ScfStop, NoStopIsAskedAfterTheLastIteration) {
  input::Input in = regression_input("h2o_sto3g_rhf");
  const Basis basis = load_basis(in);
  int asked = 0;
  ScfStart always;
  always.stop_requested = [&asked] {
    ++asked;
    return false;
  };
  const ScfResult whole = run_scf(world(), in, basis, quiet(), always);
  ASSERT_TRUE(whole.converged);
  EXPECT_EQ(asked, whole.iterations - 1);
  in.scf.max_iterations = 2;
  asked = 0;
  const ScfResult two = run_scf(world(), in, basis, quiet(), always);
  EXPECT_FALSE(two.converged);
  EXPECT_FALSE(two.stopped);
  EXPECT_EQ(asked, 1);
}

}  // namespace cyclocc::chem
