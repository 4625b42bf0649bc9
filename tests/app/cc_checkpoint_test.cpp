// Coupled-cluster amplitudes in the checkpoint (app/cc_checkpoint.hpp), in
// process at 1-3 ranks: every spin block of T1, T2 and T3 round-trips
// exactly (empty blocks included), CCSD amplitudes seed CCSDT with T3 = 0,
// a write keeps the other method's group, amplitudes of other orbital spaces
// are left out, and damaged amplitude data is refused on every rank.
// Restarting at another rank count is tested through the binary
// (program_restart_test.cpp).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <filesystem>
#include <cmath>
#include <fstream>

#include "app/cc_checkpoint.hpp"
#include "chem/checkpoint.hpp"
#include "tensor/context.hpp"
#include "tests/app/world.hpp"

using namespace cyclocc;
namespace fs = std::filesystem;

namespace {

const char* kWater = R"(molecule:
  units: bohr
  geometry: |
    O 0.0 0.0 0.221664874419
    H 0.0 1.430900621567 -0.886659497674
    H 0.0 -1.430900621567 -0.886659497674
basis: sto-3g
scf:
  reference: uhf
cc:
  method: ccsdt
  convergence: 1.0e-8
)";

chem::ScfResult synthetic_scf() {
  chem::ScfResult s;
  s.reference = "uhf";
  s.converged = true;
  s.iterations = 9;
  s.energy = -74.963023138467;
  s.nbf = 7;
  s.nmo = 7;
  s.n_alpha = s.n_beta = 5;
  s.C_alpha = Eigen::MatrixXd::Identity(7, 7);
  s.C_beta = -s.C_alpha;
  s.eps_alpha = s.eps_beta = Eigen::VectorXd::LinSpaced(7, -20.0, 1.0);
  s.occ_alpha = s.occ_beta = Eigen::VectorXd::Zero(7);
  return s;
}

// Uneven spaces, and a beta occupied space of 0 (blocks with an edge of 0).
tensor::SpinDims dims(int occ_beta) {
  tensor::SpinDims d;
  d.occ[0] = 3;
  d.occ[1] = occ_beta;
  d.vir[0] = 4;
  d.vir[1] = 5;
  return d;
}

app::AmplitudeSpace space_of(const tensor::SpinDims& d, int frozen) {
  app::AmplitudeSpace s;
  s.frozen = {frozen, frozen};
  s.occ = {d.occ[0], d.occ[1]};
  s.vir = {d.vir[0], d.vir[1]};
  return s;
}

void fill(cc::Amplitudes& t, std::uint64_t seed) {
  auto each = [&](tensor::SpinTensor& x) {
    for (const auto& key : x.block_keys()) x.block(key).fill_random(seed++);
  };
  each(t.t1);
  each(t.t2);
  if (t.t3) each(*t.t3);
}

// Every block of `a` equals the same block of `b` exactly (or is zero if
// `b` lacks it: T3 of CCSD amplitudes).
void expect_equal(const tensor::SpinTensor& a, const tensor::SpinTensor* b) {
  for (const auto& key : a.block_keys()) {
    const auto x = a.block(key).gather_all();
    if (!b) {
      for (double v : x) ASSERT_EQ(v, 0.0) << a.name() << " " << key;
      continue;
    }
    EXPECT_EQ(x, b->block(key).gather_all()) << a.name() << " " << key;
  }
}

class CcCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir;
    if (comm().root()) {
      dir = (fs::temp_directory_path() / ("cyclocc_cc_ckpt_test_" + std::to_string(::getpid()))).string();
      fs::remove_all(dir);
      fs::create_directories(dir);
    }
    comm().bcast(dir, 0);
    dir_ = dir;
    in_ = input::parse_input_text(kWater, (dir_ / "w.yaml").string());
    basis_ = chem::load_basis(in_);
  }
  void TearDown() override {
    comm().barrier();
    if (comm().root()) fs::remove_all(dir_);
  }
  static const par::Comm& comm() { return app_test::world(); }

  // A run context of this process writing the checkpoint w.h5.
  app::RunContext context(bool restart) {
    return app::RunContext{comm(), par::Log(false, false), stop_, app::Results("test", comm().size()),
                           restart, (dir_ / "w.json").string(), (dir_ / "w.h5").string()};
  }
  // Starts the checkpoint file as the SCF stage does.
  void write_scf_checkpoint() {
    chem::CheckpointWriter w(comm(), (dir_ / "w.h5").string());
    w.write_identity(chem::checkpoint_identity(in_, basis_));
    w.write_scf(scf_);
    w.commit();
  }

  fs::path dir_;
  input::Input in_;
  chem::Basis basis_;
  chem::ScfResult scf_ = synthetic_scf();
  app::StopRequest stop_;
};

const app::CcProgress kProgress{7, -0.125, -3.0e-6, 2.5e-5, false};

}  // namespace

TEST_F(CcCheckpointTest, EveryBlockOfEveryAmplitudeRoundTripsExactly) {
  for (int occ_beta : {2, 0}) {
    tensor::Context tctx(comm());
    const auto d = dims(occ_beta);
    cc::Amplitudes t(tctx, d, true);
    fill(t, 100);
    write_scf_checkpoint();
    auto ctx = context(false);
    app::CcCheckpoint writer(ctx, in_, basis_, scf_, space_of(d, 0));
    EXPECT_GT(writer.save("ccsdt", t, kProgress), 0.0);

    auto ctx2 = context(true);
    app::CcCheckpoint reader(ctx2, in_, basis_, scf_, space_of(d, 0));
    reader.load(app::cc_methods("ccsdt"));
    EXPECT_FALSE(reader.stored("ccsd"));
    const auto p = reader.stored("ccsdt");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->iteration, 7);
    EXPECT_EQ(p->energy, -0.125);
    EXPECT_EQ(p->delta_e, -3.0e-6);
    EXPECT_EQ(p->delta_t, 2.5e-5);
    EXPECT_FALSE(p->converged);
    cc::Amplitudes back(tctx, d, true);
    reader.restore("ccsdt", back);
    expect_equal(back.t1, &t.t1);
    expect_equal(back.t2, &t.t2);
    expect_equal(*back.t3, &*t.t3);
  }
}

// Restricted amplitudes store only their computed blocks (t1_aa, t2_abab,
// t3_aabaab); the others are rebuilt from them on restore.
TEST_F(CcCheckpointTest, RestrictedAmplitudesKeepTheirComputedBlocksAndRebuildTheRest) {
  tensor::Context tctx(comm());
  tensor::SpinDims d = dims(3);
  d.vir[1] = d.vir[0];
  d.restricted = true;
  auto fill_computed = [](cc::Amplitudes& t, std::uint64_t seed) {
    for (tensor::SpinTensor* x : {&t.t1, &t.t2, &*t.t3}) {
      for (const auto& key : x->block_keys())
        if (!x->derived(key)) x->block(key).fill_random(seed++);
      x->blocks_written();
    }
  };
  cc::Amplitudes t(tctx, d, true);
  fill_computed(t, 200);
  write_scf_checkpoint();
  auto ctx = context(false);
  app::CcCheckpoint(ctx, in_, basis_, scf_, space_of(d, 0)).save("ccsdt", t, kProgress);
  {
    chem::CheckpointReader r(comm(), (dir_ / "w.h5").string());
    EXPECT_EQ(r.members("/ccsdt"), (std::vector<std::string>{"t1_aa", "t2_abab", "t3_aabaab"}));
  }
  auto ctx2 = context(true);
  app::CcCheckpoint reader(ctx2, in_, basis_, scf_, space_of(d, 0));
  reader.load(app::cc_methods("ccsdt"));
  cc::Amplitudes back(tctx, d, true);
  fill_computed(back, 900);  // other numbers everywhere before the restore
  reader.restore("ccsdt", back);
  expect_equal(back.t1, &t.t1);
  expect_equal(back.t2, &t.t2);
  expect_equal(*back.t3, &*t.t3);
}

TEST_F(CcCheckpointTest, CcsdAmplitudesSeedCcsdtWithZeroTriples) {
  tensor::Context tctx(comm());
  const auto d = dims(2);
  cc::Amplitudes ccsd(tctx, d, false);
  fill(ccsd, 7);
  write_scf_checkpoint();
  auto ctx = context(false);
  app::CcCheckpoint(ctx, in_, basis_, scf_, space_of(d, 0)).save("ccsd", ccsd, kProgress);

  auto ctx2 = context(true);
  app::CcCheckpoint reader(ctx2, in_, basis_, scf_, space_of(d, 0));
  reader.load(app::cc_methods("ccsdt"));
  ASSERT_TRUE(reader.stored("ccsd"));
  EXPECT_FALSE(reader.stored("ccsdt"));
  cc::Amplitudes t(tctx, d, true);
  fill(t, 50);  // stale triples must not survive
  reader.restore("ccsd", t);
  expect_equal(t.t1, &ccsd.t1);
  expect_equal(t.t2, &ccsd.t2);
  expect_equal(*t.t3, nullptr);
}

TEST_F(CcCheckpointTest, WritingOneMethodKeepsTheOtherMethodsGroup) {
  tensor::Context tctx(comm());
  const auto d = dims(2);
  cc::Amplitudes ccsd(tctx, d, false), ccsdt(tctx, d, true);
  fill(ccsd, 1);
  fill(ccsdt, 1000);
  write_scf_checkpoint();
  auto ctx = context(false);
  app::CcCheckpoint ckpt(ctx, in_, basis_, scf_, space_of(d, 0));
  const app::CcProgress converged{12, -0.25, 1e-10, 1e-10, true};
  ckpt.save("ccsd", ccsd, converged);
  ckpt.save("ccsdt", ccsdt, kProgress);
  fill(ccsdt, 2000);
  ckpt.save("ccsdt", ccsdt, {8, -0.26, 1e-4, 1e-3, false});  // CCSD is copied a second time

  auto ctx2 = context(true);
  app::CcCheckpoint reader(ctx2, in_, basis_, scf_, space_of(d, 0));
  reader.load(app::cc_methods("ccsdt"));
  ASSERT_TRUE(reader.stored("ccsd") && reader.stored("ccsdt"));
  EXPECT_EQ(reader.stored("ccsd")->iteration, 12);
  EXPECT_TRUE(reader.stored("ccsd")->converged);  // 1e-10 < cc.convergence 1e-8
  EXPECT_EQ(reader.stored("ccsdt")->iteration, 8);
  cc::Amplitudes a(tctx, d, false), b(tctx, d, true);
  reader.restore("ccsd", a);
  reader.restore("ccsdt", b);
  expect_equal(a.t1, &ccsd.t1);
  expect_equal(a.t2, &ccsd.t2);
  expect_equal(b.t2, &ccsdt.t2);
  expect_equal(*b.t3, &*ccsdt.t3);
}

TEST_F(CcCheckpointTest, ConvergenceIsJudgedByThisRunsThreshold) {
  tensor::Context tctx(comm());
  const auto d = dims(1);
  cc::Amplitudes t(tctx, d, false);
  fill(t, 3);
  write_scf_checkpoint();
  auto ctx = context(false);
  // Converged for a run at 1e-6, not for this one at 1e-8.
  app::CcCheckpoint(ctx, in_, basis_, scf_, space_of(d, 0)).save("ccsd", t, {20, -0.2, 1e-7, 5e-8, true});
  auto ctx2 = context(true);
  app::CcCheckpoint reader(ctx2, in_, basis_, scf_, space_of(d, 0));
  reader.load({"ccsd"});
  ASSERT_TRUE(reader.stored("ccsd"));
  EXPECT_FALSE(reader.stored("ccsd")->converged);
}

TEST_F(CcCheckpointTest, AmplitudesOfOtherOrbitalSpacesStartFreshAndAreDropped) {
  tensor::Context tctx(comm());
  const auto d = dims(2);
  cc::Amplitudes t(tctx, d, false);
  fill(t, 3);
  write_scf_checkpoint();
  auto ctx = context(false);
  app::CcCheckpoint(ctx, in_, basis_, scf_, space_of(d, 0)).save("ccsd", t, kProgress);

  auto ctx2 = context(true);
  app::CcCheckpoint other(ctx2, in_, basis_, scf_, space_of(d, 1));  // another frozen core
  other.load({"ccsd", "ccsdt"});
  EXPECT_FALSE(other.stored("ccsd"));
  cc::Amplitudes t3(tctx, d, true);
  other.save("ccsdt", t3, kProgress);
  auto ctx3 = context(true);
  app::CcCheckpoint reader(ctx3, in_, basis_, scf_, space_of(d, 1));
  reader.load({"ccsd", "ccsdt"});
  EXPECT_FALSE(reader.stored("ccsd"));  // dropped at the write
  EXPECT_TRUE(reader.stored("ccsdt"));
}

TEST_F(CcCheckpointTest, DamagedAmplitudesAreRefusedOnEveryRank) {
  tensor::Context tctx(comm());
  const auto d = dims(2);
  cc::Amplitudes t(tctx, d, false);
  fill(t, 3);
  write_scf_checkpoint();
  auto ctx = context(false);
  app::CcCheckpoint(ctx, in_, basis_, scf_, space_of(d, 0)).save("ccsd", t, kProgress);
  const std::string file = (dir_ / "w.h5").string();
  if (comm().root()) {  // flip one byte of the last T2 alpha-beta amplitude
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5Dopen2(f, "/ccsd/t2_abab", H5P_DEFAULT);
    const haddr_t offset = H5Dget_offset(ds);
    const hsize_t bytes = H5Dget_storage_size(ds);
    H5Dclose(ds);
    H5Fclose(f);
    std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
    io.seekg(static_cast<std::streamoff>(offset + bytes - 3));
    char c = 0;
    io.read(&c, 1);
    c = static_cast<char>(c ^ 0x10);
    io.seekp(static_cast<std::streamoff>(offset + bytes - 3));
    io.write(&c, 1);
  }
  comm().barrier();
  auto ctx2 = context(true);
  app::CcCheckpoint reader(ctx2, in_, basis_, scf_, space_of(d, 0));
  try {
    reader.load({"ccsd"});
    ADD_FAILURE() << "no error";
  } catch (const chem::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("checksum mismatch in dataset /ccsd/t2_abab"), std::string::npos)
        << e.what();
  }
}

TEST(CcMethods, EachMethodIteratesItsChain) {
  EXPECT_EQ(app::cc_methods("ccsd"), std::vector<std::string>{"ccsd"});
  EXPECT_EQ(app::cc_methods("ccsd(t)"), std::vector<std::string>{"ccsd"});
  EXPECT_EQ(app::cc_methods("ccsdt"), (std::vector<std::string>{"ccsd", "ccsdt"}));
  EXPECT_TRUE(app::cc_methods("mp2").empty());
  EXPECT_TRUE(app::cc_methods("none").empty());
}

// |dT| grown at each of the last three iterations, to above 1: told once, at
// the iteration that shows it; not for growth below 1, a fall in between,
// the first iteration's large change, or NaN.
TEST(RunawayWatch, TellsOnceWhenDeltaTGrowsThreeTimesRunningAboveOne) {
  auto told_at = [](const std::vector<double>& delta_t) {
    app::RunawayWatch watch;
    std::vector<int> at;
    for (std::size_t k = 0; k < delta_t.size(); ++k)
      if (watch.runs_away(delta_t[k])) at.push_back(static_cast<int>(k) + 1);
    return at;
  };
  using At = std::vector<int>;
  // RHF N2 at 4 A in STO-3G without DIIS (the program test's run), then on.
  EXPECT_EQ(told_at({17.1, 249.0, 9.6e4, 1.3e10, 3.7e20, 8.3e58}), At{4});
  EXPECT_EQ(told_at({1.5, 2.2, 2.9, 3.8, 4.6, 5.7}), At{4});
  EXPECT_EQ(told_at({0.1, 0.2, 0.3, 0.9, 0.95, 2.0}), At{6});   // above 1 only at the 5th rise
  EXPECT_EQ(told_at({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}), At{});     // rising, but small
  EXPECT_EQ(told_at({50.0, 2.0, 3.0, 2.5, 4.0, 5.0}), At{});    // a fall resets the count
  EXPECT_EQ(told_at({50.0, 2.0, 3.0, 2.5, 4.0, 5.0, 6.0}), At{7});
  EXPECT_EQ(told_at({8.0, 4.0, 2.0, 1.0, 0.5, 0.1}), At{});     // converging
  EXPECT_EQ(told_at({1.0, 2.0, std::nan(""), 3.0, 4.0}), At{});  // NaN is no rise, and breaks the run
  EXPECT_EQ(told_at({1.0, 1.0, 1.0, 1.0}), At{});              // equal is no growth
}
