// MO transformation and MP2 against the reference energies, on 1-3 ranks.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <numeric>

#include "chem/basis.hpp"
#include "chem/cc/ccsd.hpp"
#include "chem/cc/ccsdt.hpp"
#include "chem/cc/triples.hpp"
#include "chem/cc/solver.hpp"
#include "chem/libint_session.hpp"
#include "chem/motransform.hpp"
#include "chem/scf.hpp"
#include "tensor/shape.hpp"
#include "tests/dense_eri.hpp"
#include "tests/mpi_world.hpp"

using namespace cyclocc;

namespace {

struct Case {
  input::Input in;
  double scf, mp2, ccsd;
};

Case load_case(const std::string& id) {
  const std::string dir = std::string(CYCLOCC_SOURCE_DIR) + "/regression/";
  const YAML::Node refs = YAML::LoadFile(dir + "references.yaml");
  for (const auto& run : refs["runs"]) {
    if (run["id"].as<std::string>() != id) continue;
    Case c{input::parse_input(dir + run["input"].as<std::string>()), run["quantities"]["scf_total_energy"]["value"].as<double>(),
           run["quantities"]["mp2_total_energy"]["value"].as<double>(),
           run["quantities"]["ccsd_total_energy"]["value"].as<double>()};
    return c;
  }
  throw std::runtime_error("no case " + id);
}

void check_mp2(const std::string& id, bool with_ccsd = false) {
  const Case c = load_case(id);
  par::Comm& comm = test::world();
  const par::Log log(false, false);
  const chem::Basis basis = chem::load_basis(c.in);
  const chem::ScfResult scf = chem::run_scf(comm, c.in, basis, log);
  ASSERT_TRUE(scf.converged);
  EXPECT_NEAR(scf.energy, c.scf, 1e-8);
  tensor::Context ctx(comm);
  const auto space = chem::active_space(scf, c.in.cc.frozen_core.count);
  // The safe points: after each round of AO integrals, each quarter and ket
  // transformation (2 and 3 for a restricted reference), and before each block.
  int safe_points = 0;
  // The integrals the method needs, as the program asks for them: CCSD's
  // ladder (an unrestricted <vv||vv> built from the chemist rows a window at
  // a time), MP2's none.
  const cc::VvvvNeeds needs{false, with_ccsd};
  const cc::MoIntegrals mo =
      chem::transform_integrals(ctx, basis, scf, space, log, nullptr, needs, [&] { ++safe_points; });
  EXPECT_GE(safe_points, 1 + 2 + 3 + 5);  // blocks oooo, ooov, oovv, ovov, ovvv at least
  EXPECT_EQ(ctx.sum_over_ranks(safe_points), ctx.nranks() * safe_points);
  cc::Amplitudes t(ctx, mo.dims, false);
  cc::mp2_amplitudes(mo, t);
  EXPECT_NEAR(scf.energy + cc::ccsd_energy(mo, t), c.mp2, 1e-8) << id;
  if (!with_ccsd) return;
  cc::Equations eq{[&](const cc::Amplitudes& x, cc::Amplitudes& r) { cc::ccsd_rhs(mo, x, r); },
                   [&](const cc::Amplitudes& x) { return cc::ccsd_energy(mo, x); }};
  cc::SolverOptions opt;
  const auto res = cc::solve(eq, mo, t, opt, 0, nullptr);
  EXPECT_TRUE(res.converged);
  EXPECT_NEAR(scf.energy + res.energy, c.ccsd, 1e-8) << id << " after " << res.iterations << " iterations";
}

class Libint : public ::testing::Environment {
 public:
  void SetUp() override { session_ = std::make_unique<chem::LibintSession>(); }
  void TearDown() override { session_.reset(); }

 private:
  std::unique_ptr<chem::LibintSession> session_;
};
const auto* const libint_env = ::testing::AddGlobalTestEnvironment(new Libint);

}  // namespace

// Slow twin of ao_integrals: every (mn|ls) of the basis, dense.
std::vector<double> dense_eri(const chem::Basis& b) {
  const std::size_t n = b.nbf;
  std::vector<double> out(n * n * n * n);
  test::for_each_eri(b, [&](std::size_t i, std::size_t j, std::size_t k, std::size_t l, double v) {
    out[((i * n + j) * n + k) * n + l] = v;
  });
  return out;
}

// The AO integral tensor holds every (mn|ls), whether its values reach their
// owners in one round or in many (a round of 1 value: one bra shell pair).
TEST(MoTransform, AoIntegralsInRoundsOfAnySize) {
  const Case c = load_case("h2o_ccpvdz_rhf");
  const chem::Basis basis = chem::load_basis(c.in);
  tensor::Context ctx(test::world());
  const std::vector<double> dense = dense_eri(basis);
  const std::size_t n = basis.nbf;
  const tensor::Tensor whole = chem::ao_integrals(ctx, basis);
  for (const std::size_t batch : {std::size_t{1}, std::size_t{997}, chem::kAoBatch}) {
    const tensor::Tensor ao = chem::ao_integrals(ctx, basis, batch);
    std::vector<std::int64_t> keys(ao.shape().packed_size());
    std::iota(keys.begin(), keys.end(), 0);
    const std::vector<double> got = ao.read(keys);
    double worst = 0;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      int x[4];
      tensor::packed_unindex(ao.shape(), keys[k], x);
      worst = std::max(worst, std::abs(got[k] - dense[((x[0] * n + x[1]) * n + x[2]) * n + x[3]]));
    }
    EXPECT_LT(worst, 1e-12) << "rounds of " << batch;
    EXPECT_EQ(ao.data(), whole.data()) << "rounds of " << batch;  // each value written once, into zeros
  }
}

// The transform's peak estimate is docs/methods.md's formula (words of 8
// bytes over P ranks, the largest stage), evaluated here by hand.
TEST(MoTransform, PeakMemoryEstimateIsTheDocumentedFormula) {
  chem::ActiveSpace s;
  s.occ = {2, 2};
  s.vir = {8, 8};
  // N = 10, p = 55 AO pairs, n = o + v = 10.
  // RHF MP2: C = kets + 2 N n^3/2 + o v^3 = 3025 + 10000 + 1024, just above
  // A = p^2 + p N^2 + p N n = 3025 + 5500 + 5500 (B = 5500 + 3025 + 1980).
  EXPECT_DOUBLE_EQ(chem::transform_peak_bytes(10, s, true, {false, false}, 1), 8.0 * 14049);
  EXPECT_DOUBLE_EQ(chem::transform_peak_bytes(10, s, true, {false, false}, 2), 8.0 * 14049 / 2);
  // One more basis function: A (p = 66) is the largest.
  EXPECT_DOUBLE_EQ(chem::transform_peak_bytes(11, s, true, {false, false}, 1), 8.0 * (66 * 66 + 66 * 121 + 66 * 110));
  // RHF CCSD at 2 ranks: C + the ladder's halves (v^4/2) and a window of w = 1/8
  // of the rows (4.5 w v^4) = 14049 + 4096 * 17/16; at 1 rank without the
  // buffers, 14049 + 4096 * 13/16.
  EXPECT_DOUBLE_EQ(chem::transform_peak_bytes(10, s, true, {false, true}, 2), 8.0 * (14049 + 4352) / 2);
  EXPECT_DOUBLE_EQ(chem::transform_peak_bytes(10, s, true, {false, true}, 1), 8.0 * (14049 + 3328));
  // RHF CCSDT at 2 ranks: C + the chemist block and <vv||vv> (5/4 v^4) + their
  // buffers (2 v^4, more than the ladder's 1) = 14049 + 4096 * 3.25.
  EXPECT_DOUBLE_EQ(chem::transform_peak_bytes(10, s, true, {true, true}, 2), 8.0 * (14049 + 13312) / 2);
  // UHF at 1 rank: C = 2 kets + 4 N n^3/2 + 3 o v^3 + v^4 (3/4 + 3/2 + 1) = 6050 + 23072 + 13312.
  EXPECT_DOUBLE_EQ(chem::transform_peak_bytes(10, s, false, {}, 1), 8.0 * (6050 + 23072 + 13312));
  // UHF CCSD: the <vv||vv> blocks (3 v^4/2) built a window of rows at a time,
  // as the restricted ladder's halves: C = 6050 + 23072 + 6144 + 4096 * 5/16
  // at 1 rank, with the buffers (4096 * 9/16) at 2.
  EXPECT_DOUBLE_EQ(chem::transform_peak_bytes(10, s, false, {false, true}, 1), 8.0 * (6050 + 23072 + 6144 + 1280));
  EXPECT_DOUBLE_EQ(chem::transform_peak_bytes(10, s, false, {false, true}, 2), 8.0 * (6050 + 23072 + 6144 + 2304) / 2);
  // UHF MP2 builds no <vv|vv> integrals: C = 6050 + 23072 is still the largest stage.
  EXPECT_DOUBLE_EQ(chem::transform_peak_bytes(10, s, false, {false, false}, 1), 8.0 * (6050 + 23072));
}

TEST(MoTransform, Mp2WaterRhf) { check_mp2("h2o_ccpvdz_rhf"); }
TEST(MoTransform, Mp2WaterFrozenCore) { check_mp2("h2o_ccpvdz_rhf_fc1"); }
TEST(MoTransform, Mp2MethyleneUhf) { check_mp2("ch2_triplet_ccpvdz_uhf"); }
TEST(MoTransform, Mp2HydroxylCartesianUhf) { check_mp2("oh_631gs_uhf"); }

// A caller that stops at a safe point (by throwing, as the program does on a
// stop signal) stops every rank there, at the first one and at the last;
// the ranks stay in step, and a transform after it is the same as ever.
TEST(MoTransform, AStopAtASafePointEndsItOnEveryRank) {
  const Case c = load_case("h2o_sto3g_rhf");
  par::Comm& comm = test::world();
  const par::Log log(false, false);
  const chem::Basis basis = chem::load_basis(c.in);
  const chem::ScfResult scf = chem::run_scf(comm, c.in, basis, log);
  tensor::Context ctx(comm);
  const auto space = chem::active_space(scf, 0);
  int count = 0;
  chem::transform_integrals(ctx, basis, scf, space, log, nullptr, {}, [&] { ++count; });
  for (const int stop_at : {1, count}) {
    int seen = 0;
    const auto stop = [&] {
      if (++seen == stop_at) throw std::runtime_error("stop");
    };
    EXPECT_THROW(chem::transform_integrals(ctx, basis, scf, space, log, nullptr, {}, stop), std::runtime_error);
    EXPECT_EQ(seen, stop_at);
  }
  const cc::MoIntegrals mo = chem::transform_integrals(ctx, basis, scf, space, log);
  cc::Amplitudes t(ctx, mo.dims, false);
  cc::mp2_amplitudes(mo, t);
  EXPECT_NEAR(scf.energy + cc::ccsd_energy(mo, t), c.mp2, 1e-8);
}

// DESIGN §8: with the defaults, two runs converged independently agree to
// well below 1e-9 Eh. CO+ (UHF, <S^2> = 1.016) in 6-311G** has a soft orbital
// Hessian: at an orbital gradient of 1e-10 its MP2 energy from the SAD and
// the core guess differed by 1.8e-9 (chem/scf.cpp, Polish).
TEST(MoTransform, Mp2FromTwoGuessesAgreesForASoftUhf) {
  const std::string text =
      "molecule:\n  charge: 1\n  multiplicity: 2\n  geometry: |\n    C 0 0 0\n    O 0 0 1.128\n"
      "basis: 6-311G**\ncc:\n  method: mp2\n";
  par::Comm& comm = test::world();
  const par::Log log(false, false);
  std::vector<double> mp2;
  for (const std::string guess : {"sad", "core"}) {
    input::Input in = input::parse_input_text(text, "co_cation.yaml");
    in.scf.guess = guess;
    const chem::Basis basis = chem::load_basis(in);
    const chem::ScfResult scf = chem::run_scf(comm, in, basis, log);
    ASSERT_TRUE(scf.converged) << guess;
    tensor::Context ctx(comm);
    const cc::MoIntegrals mo = chem::transform_integrals(ctx, basis, scf, chem::active_space(scf, 0), log);
    cc::Amplitudes t(ctx, mo.dims, false);
    cc::mp2_amplitudes(mo, t);
    mp2.push_back(scf.energy + cc::ccsd_energy(mo, t));
  }
  EXPECT_NEAR(mp2[0], mp2[1], 1e-10);
}

TEST(Ccsd, WaterMinimalBasis) { check_mp2("h2o_sto3g_rhf", true); }
TEST(Ccsd, LithiumUhf) { check_mp2("li_ccpvdz_uhf", true); }
TEST(Ccsd, WaterFrozenCore) { check_mp2("h2o_ccpvdz_rhf_fc1", true); }

namespace {
// CCSD, then (T) and CCSDT from the CCSD amplitudes, against the references.
void check_triples(const std::string& id) {
  const std::string dir = std::string(CYCLOCC_SOURCE_DIR) + "/regression/";
  const YAML::Node refs = YAML::LoadFile(dir + "references.yaml");
  double e_t = 0, e_ccsdt = 0;
  std::string input;
  for (const auto& run : refs["runs"]) {
    const auto rid = run["id"].as<std::string>();
    if (rid == id) {
      e_t = run["quantities"]["ccsd_prt_pr_total_energy"]["value"].as<double>();
      input = dir + run["input"].as<std::string>();
    }
    if (rid == id + "_ccsdt") e_ccsdt = run["quantities"]["ccsdt_total_energy"]["value"].as<double>();
  }
  const input::Input in = input::parse_input(input);
  par::Comm& comm = test::world();
  const par::Log log(false, false);
  const chem::Basis basis = chem::load_basis(in);
  const chem::ScfResult scf = chem::run_scf(comm, in, basis, log);
  tensor::Context ctx(comm);
  const cc::MoIntegrals mo =
      chem::transform_integrals(ctx, basis, scf, chem::active_space(scf, in.cc.frozen_core.count), log);
  cc::Amplitudes t(ctx, mo.dims, false);
  cc::mp2_amplitudes(mo, t);
  const cc::Equations ccsd{[&](const cc::Amplitudes& x, cc::Amplitudes& r) { cc::ccsd_rhs(mo, x, r); },
                           [&](const cc::Amplitudes& x) { return cc::ccsd_energy(mo, x); }};
  const auto res = cc::solve(ccsd, mo, t, cc::SolverOptions{}, 0, nullptr);
  ASSERT_TRUE(res.converged);
  EXPECT_NEAR(scf.energy + res.energy + cc::triples_correction(mo, t), e_t, 1e-8) << id;
  if (e_ccsdt == 0) return;
  cc::Amplitudes t3(ctx, mo.dims, true);
  t3.t1 = t.t1;
  t3.t2 = t.t2;
  const cc::Equations ccsdt{[&](const cc::Amplitudes& x, cc::Amplitudes& r) { cc::ccsdt_rhs(mo, x, r); },
                            [&](const cc::Amplitudes& x) { return cc::ccsd_energy(mo, x); }};
  const auto r3 = cc::solve(ccsdt, mo, t3, cc::SolverOptions{}, 0, nullptr);
  ASSERT_TRUE(r3.converged);
  EXPECT_NEAR(scf.energy + r3.energy, e_ccsdt, 1e-8) << id << " CCSDT after " << r3.iterations;
}
}  // namespace

TEST(Triples, WaterMinimalBasis) { check_triples("h2o_sto3g_rhf"); }
TEST(Triples, LithiumUhf) { check_triples("li_ccpvdz_uhf"); }
TEST(Triples, HydroxylUhf) { check_triples("oh_631gs_uhf"); }
