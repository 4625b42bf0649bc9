// The HDF5 checkpoint (chem/checkpoint.hpp): distributed arrays in canonical
// order at any rank count, checksums, atomic replacement, SCF round trip,
// identity comparison.
#include <atomic>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "chem/checkpoint.hpp"
#include "tests/app/world.hpp"

using namespace cyclocc;
namespace fs = std::filesystem;

namespace {

// A folder all ranks share, removed at the end of the test.
class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir;
    if (comm().root()) {
      dir = (fs::temp_directory_path() / ("cyclocc_ckpt_test_" + std::to_string(::getpid()))).string();
      fs::create_directories(dir);
    }
    comm().bcast(dir, 0);
    dir_ = dir;
  }
  void TearDown() override {
    comm().barrier();
    if (comm().root()) fs::remove_all(dir_);
  }
  static const par::Comm& comm() { return app_test::world(); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::vector<double> ramp(std::int64_t n, double scale) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[i] = scale * (static_cast<double>(i) + 0.125) - 3.0;
  return v;
}

// Uneven contiguous pieces: rank r gets a share proportional to r (rank 0
// gets nothing when there is more than one rank), in reverse order if asked.
std::pair<std::int64_t, std::int64_t> piece(std::int64_t total, int rank, int size, bool reverse) {
  std::vector<std::int64_t> weight(size);
  for (int r = 0; r < size; ++r) weight[r] = size == 1 ? 1 : r;
  if (reverse) std::reverse(weight.begin(), weight.end());
  const std::int64_t wsum = std::accumulate(weight.begin(), weight.end(), std::int64_t{0});
  std::int64_t offset = 0;
  for (int r = 0; r < rank; ++r) offset += total * weight[r] / wsum;
  std::int64_t count = rank == size - 1 ? total - offset : total * weight[rank] / wsum;
  return {offset, count};
}

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

Eigen::VectorXd vec3(double a, double b, double c) {
  Eigen::VectorXd v(3);
  v << a, b, c;
  return v;
}

chem::ScfResult synthetic_scf(bool uhf) {
  chem::ScfResult s;
  s.reference = uhf ? "uhf" : "rhf";
  s.converged = true;
  s.iterations = 17;
  s.energy = -74.96302313846734;
  s.nuclear_repulsion = 9.18953376263822;
  s.s2 = uhf ? 0.7512 : 0.0;
  s.nbf = 4;
  s.nmo = 3;
  s.n_alpha = 2;
  s.n_beta = uhf ? 1 : 2;
  s.C_alpha = Eigen::MatrixXd(4, 3);
  s.C_alpha << 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.5;
  s.eps_alpha = vec3(-1.5, -0.25, 0.75);
  s.occ_alpha = vec3(1, 1, 0);
  if (uhf) {
    s.C_beta = -0.5 * s.C_alpha;
    s.eps_beta = vec3(-1.25, 0.5, 0.875);
    s.occ_beta = vec3(1, 0, 0);
  }
  return s;
}

chem::CheckpointIdentity water_identity() {
  chem::CheckpointIdentity id;
  id.Z = {8, 1, 1};
  id.geometry = {0, 0, 0.221664874419, 0, 1.430900621567, -0.886659497674, 0, -1.430900621567, -0.886659497674};
  id.charge = 0;
  id.multiplicity = 1;
  id.basis = "sto-3g";
  id.puream = true;
  id.nbf = 7;
  id.reference = "rhf";
  return id;
}

}  // namespace

TEST_F(CheckpointTest, DistributedArrayReadsBackAtAnotherDistribution) {
  const std::int64_t total = 1001;
  const auto all = ramp(total, 0.37);
  const auto [off, cnt] = piece(total, comm().rank(), comm().size(), false);
  {
    chem::CheckpointWriter w(comm(), file("a.h5"));
    w.create_group("/ccsd");
    w.write_distributed("/ccsd/t2_abab", total, off, all.data() + off, cnt);
    w.set_int("/ccsd", "iteration", 7);
    w.set_double("/ccsd", "energy", -0.25);
    w.set_string("/ccsd", "state", "running");
    w.commit();
  }
  chem::CheckpointReader r(comm(), file("a.h5"));
  EXPECT_EQ(r.shape("/ccsd/t2_abab"), std::vector<std::int64_t>{total});
  const auto [roff, rcnt] = piece(total, comm().rank(), comm().size(), true);
  const auto mine = r.read_distributed("/ccsd/t2_abab", roff, rcnt);
  ASSERT_EQ(static_cast<std::int64_t>(mine.size()), rcnt);
  for (std::int64_t i = 0; i < rcnt; ++i) EXPECT_EQ(mine[i], all[roff + i]);
  EXPECT_EQ(r.read_array("/ccsd/t2_abab"), all);
  EXPECT_EQ(r.read_int("/ccsd", "iteration"), 7);
  EXPECT_EQ(r.read_double("/ccsd", "energy"), -0.25);
  EXPECT_EQ(r.read_string("/ccsd", "state"), "running");
  EXPECT_TRUE(r.exists("/ccsd/t2_abab"));
  EXPECT_FALSE(r.exists("/ccsd/t3_aaa"));
  EXPECT_FALSE(r.exists("/ccsdt/t3_aaa"));
}

// A writer that starts from a copy of the committed file overwrites what it
// writes again and keeps the rest; the original is untouched until commit,
// and rewriting the same shapes does not grow the file.
TEST_F(CheckpointTest, StartingFromACopyOverwritesAndKeepsTheRest) {
  const std::string path = file("copy.h5");
  const std::int64_t total = 1001;
  const auto a = ramp(total, 0.37), b = ramp(total, -1.5);
  const auto [off, cnt] = piece(total, comm().rank(), comm().size(), false);
  {
    chem::CheckpointWriter w(comm(), path);
    w.create_group("/ccsd");
    w.write_distributed("/ccsd/t2_abab", total, off, a.data() + off, cnt);
    w.write_array("/kept", {4.0, 5.0});
    w.write_array("/resized", {1.0, 2.0, 3.0});
    w.set_int("/ccsd", "iteration", 7);
    w.set_string("/ccsd", "state", "running");
    w.commit();
  }
  const std::string first = comm().root() ? read_bytes(path) : "";
  std::uintmax_t size = 0;
  for (int round = 0; round < 3; ++round) {
    chem::CheckpointWriter w(comm(), path, chem::CheckpointWriter::Start::copy);
    EXPECT_TRUE(w.from_copy());
    w.write_distributed("/ccsd/t2_abab", total, off, b.data() + off, cnt);
    w.write_array("/resized", {6.0});
    w.set_int("/ccsd", "iteration", 8 + round);
    w.set_string("/ccsd", "state", "converged");
    comm().barrier();
    if (round == 0 && comm().root()) {
      EXPECT_EQ(read_bytes(path), first);  // untouched until commit
    }
    w.commit();
    comm().barrier();
    if (comm().root() && round == 1) size = fs::file_size(path);
    if (comm().root() && round == 2) {
      EXPECT_EQ(fs::file_size(path), size);
    }
  }
  {
    chem::CheckpointReader r(comm(), path);  // read_array verifies the checksums
    EXPECT_EQ(r.read_array("/ccsd/t2_abab"), b);
    EXPECT_EQ(r.read_array("/kept"), (std::vector<double>{4.0, 5.0}));
    EXPECT_EQ(r.read_array("/resized"), std::vector<double>{6.0});
    EXPECT_EQ(r.read_int("/ccsd", "iteration"), 10);
    EXPECT_EQ(r.read_string("/ccsd", "state"), "converged");
  }
  // With the file gone, the writer starts empty and says so.
  comm().barrier();
  if (comm().root()) fs::remove(path);
  comm().barrier();
  {
    chem::CheckpointWriter w(comm(), path, chem::CheckpointWriter::Start::copy);
    EXPECT_FALSE(w.from_copy());
    w.write_array("/fresh", {1.0});
    w.commit();
  }
  chem::CheckpointReader again(comm(), path);
  EXPECT_EQ(again.read_array("/fresh"), std::vector<double>{1.0});
  EXPECT_FALSE(again.exists("/kept"));
}

// commit(Keep::previous) keeps the replaced checkpoint as PATH.prev, and a
// writer with Start::previous starts from it (moved, not copied): it holds
// the checkpoint before last, not the current one. Without PATH.prev the
// writer starts from a copy of PATH.
TEST_F(CheckpointTest, StartingFromThePreviousCheckpoint) {
  const std::string path = file("prev.h5"), prev = chem::checkpoint_previous_path(path);
  using Start = chem::CheckpointWriter::Start;
  using Keep = chem::CheckpointWriter::Keep;
  auto write = [&](Start start, double value, bool expect_copy) {
    chem::CheckpointWriter w(comm(), path, start);
    EXPECT_EQ(w.from_copy(), expect_copy);
    if (start == Start::empty) w.write_array("/kept", {4.0, 5.0});
    w.write_array("/value", {value});
    w.commit(Keep::previous);
  };
  auto value_of = [&](const std::string& p) { return chem::CheckpointReader(comm(), p).read_array("/value").at(0); };
  auto exists = [&](const std::string& p) {
    comm().barrier();
    return fs::exists(p);
  };
  write(Start::empty, 1.0, false);
  EXPECT_FALSE(exists(prev));  // nothing was replaced
  write(Start::copy, 2.0, true);
  ASSERT_TRUE(exists(prev));
  EXPECT_EQ(value_of(prev), 1.0);
  {
    // Starts as the checkpoint before last: what it does not write again is that one's.
    chem::CheckpointWriter w(comm(), path, Start::previous);
    EXPECT_TRUE(w.from_copy());
    EXPECT_FALSE(exists(prev));  // moved to PATH.tmp
    w.write_array("/other", {7.0});
    w.commit(Keep::previous);
  }
  EXPECT_EQ(value_of(path), 1.0);
  EXPECT_EQ(value_of(prev), 2.0);
  EXPECT_EQ(chem::CheckpointReader(comm(), path).read_array("/kept"), (std::vector<double>{4.0, 5.0}));
  chem::remove_previous_checkpoint(comm(), path);
  EXPECT_FALSE(exists(prev));
  write(Start::previous, 3.0, true);  // no PATH.prev: a copy of PATH
  EXPECT_EQ(value_of(path), 3.0);
  EXPECT_EQ(chem::CheckpointReader(comm(), path).read_array("/other"), std::vector<double>{7.0});
  EXPECT_EQ(value_of(prev), 1.0);
  EXPECT_FALSE(exists(chem::checkpoint_temp_path(path)));
}

// One kept file access serves a run's many writes, whatever each starts from
// (a CC run makes it once), and stays usable after a write was abandoned.
TEST_F(CheckpointTest, AKeptFileAccessServesManyWrites) {
  using Start = chem::CheckpointWriter::Start;
  using Keep = chem::CheckpointWriter::Keep;
  const std::string path = file("access.h5");
  const std::int64_t total = 777;
  const auto [off, cnt] = piece(total, comm().rank(), comm().size(), false);
  const chem::CheckpointAccess access(comm());
  const std::vector<Start> starts = {Start::empty, Start::copy, Start::previous, Start::previous};
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const auto v = ramp(total, 0.5 + static_cast<double>(k));
    {
      chem::CheckpointWriter abandoned(comm(), file("abandoned.h5"), Start::empty, &access);
      abandoned.write_array("/x", {1.0});
    }  // never committed: removed
    chem::CheckpointWriter w(comm(), path, starts[k], &access);
    EXPECT_EQ(w.from_copy(), k > 0);
    w.create_group("/ccsd");
    w.write_distributed("/ccsd/t2_abab", total, off, v.data() + off, cnt);
    w.set_int("/ccsd", "iteration", static_cast<std::int64_t>(k));
    w.commit(Keep::previous);
    chem::CheckpointReader r(comm(), path);  // verifies the checksums
    EXPECT_EQ(r.read_array("/ccsd/t2_abab"), v);
    EXPECT_EQ(r.read_int("/ccsd", "iteration"), static_cast<std::int64_t>(k));
  }
  chem::remove_previous_checkpoint(comm(), path);
  comm().barrier();
  EXPECT_FALSE(fs::exists(file("abandoned.h5")));
}

// A commit in the background: `then` runs once on rank 0 when the new file
// is in place, the replaced one is kept, and finish() reports a
// failed rename on every rank (then `then` never runs and PATH is untouched).
TEST_F(CheckpointTest, CommitInTheBackground) {
  const std::string path = file("async.h5");
  using Keep = chem::CheckpointWriter::Keep;
  std::atomic<int> called{0};
  auto write = [&](double value) {
    chem::CheckpointWriter w(comm(), path);
    w.write_array("/value", {value});
    return w.commit_in_background(Keep::previous, [&] { ++called; });
  };
  write(1.0).finish();
  auto second = write(2.0);
  second.finish();
  EXPECT_EQ(called.load(), comm().root() ? 2 : 0);
  EXPECT_EQ(chem::CheckpointReader(comm(), path).read_array("/value"), std::vector<double>{2.0});
  EXPECT_EQ(chem::CheckpointReader(comm(), chem::checkpoint_previous_path(path)).read_array("/value"),
            std::vector<double>{1.0});

  // PATH a folder: the rename fails, on rank 0's thread.
  const std::string folder = file("async-folder.h5");
  if (comm().root()) fs::create_directories(folder + "/inside");
  comm().barrier();
  called = 0;
  auto failing = [&] {
    chem::CheckpointWriter w(comm(), folder);
    w.write_array("/value", {3.0});
    return w.commit_in_background(Keep::nothing, [&] { ++called; });
  }();
  EXPECT_THROW(failing.finish(), chem::CheckpointError);
  EXPECT_EQ(called.load(), 0);
  comm().barrier();
  EXPECT_TRUE(fs::is_directory(folder));
  EXPECT_FALSE(fs::exists(chem::checkpoint_temp_path(folder)));
}

TEST_F(CheckpointTest, EmptyArraysAndRanksWithNothing) {
  {
    chem::CheckpointWriter w(comm(), file("e.h5"));
    w.write_distributed("/li/t3_aaa", 0, 0, nullptr, 0);  // a block with an edge of 0
    const std::vector<double> one{42.0};
    const bool last = comm().rank() == comm().size() - 1;
    w.write_distributed("/li/t1", 1, last ? 0 : 1, last ? one.data() : nullptr, last ? 1 : 0);
    w.commit();
  }
  chem::CheckpointReader r(comm(), file("e.h5"));
  EXPECT_TRUE(r.read_array("/li/t3_aaa").empty());
  EXPECT_TRUE(r.read_distributed("/li/t3_aaa", 0, 0).empty());
  const bool root = comm().root();
  const auto t1 = r.read_distributed("/li/t1", root ? 0 : 1, root ? 1 : 0);
  EXPECT_EQ(t1, root ? std::vector<double>{42.0} : std::vector<double>{});
}

TEST_F(CheckpointTest, PiecesThatDoNotTileAreRejectedOnEveryRank) {
  chem::CheckpointWriter w(comm(), file("t.h5"));
  const std::vector<double> v(10, 1.0);
  // Every rank claims [0, 10): overlapping unless there is one rank.
  if (comm().size() > 1) {
    EXPECT_THROW(w.write_distributed("/x", 10, 0, v.data(), 10), std::invalid_argument);
  }
  // A gap: nobody writes element 9.
  EXPECT_THROW(w.write_distributed("/y", 10, 0, v.data(), comm().root() ? 9 : 0), std::invalid_argument);
}

TEST_F(CheckpointTest, ChecksumCatchesChangedData) {
  const auto values = ramp(50, 1.0);
  {
    chem::CheckpointWriter w(comm(), file("c.h5"));
    w.write_array("/good", values);
    w.write_array("/bad", values, {5, 10});
    w.commit();
  }
  if (comm().root()) {
    // Change one value behind the checkpoint's back (serial HDF5 access).
    hid_t f = H5Fopen(file("c.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/bad", H5P_DEFAULT);
    std::vector<double> changed = values;
    changed[33] += 1e-12;
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, changed.data());
    H5Dclose(d);
    H5Fclose(f);
  }
  comm().barrier();
  chem::CheckpointReader r(comm(), file("c.h5"));
  EXPECT_EQ(r.read_array("/good"), values);
  EXPECT_EQ(r.shape("/bad"), (std::vector<std::int64_t>{5, 10}));
  try {
    r.read_array("/bad");
    ADD_FAILURE() << "corrupt data was accepted";
  } catch (const chem::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("checksum mismatch in dataset /bad"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("c.h5"), std::string::npos);
  }
}

TEST_F(CheckpointTest, ChecksumOfPiecesAddsUpToTheWhole) {
  const auto v = ramp(100, 0.5);
  for (auto kind : {chem::ChecksumKind::Mix64, chem::ChecksumKind::Fnv1a}) {
    const std::uint64_t whole = chem::checksum_piece(v.data(), 100, 0, kind);
    EXPECT_EQ(chem::checksum_piece(v.data(), 40, 0, kind) + chem::checksum_piece(v.data() + 40, 60, 40, kind), whole);
    // Position matters: swapping two values changes the checksum.
    auto swapped = v;
    std::swap(swapped[3], swapped[4]);
    EXPECT_NE(chem::checksum_piece(swapped.data(), 100, 0, kind), whole);
    // So does any one flipped bit of any one value.
    for (int bit : {0, 1, 31, 52, 63}) {
      auto flipped = v;
      std::uint64_t bits;
      std::memcpy(&bits, &flipped[57], sizeof bits);
      bits ^= std::uint64_t{1} << bit;
      std::memcpy(&flipped[57], &bits, sizeof bits);
      EXPECT_NE(chem::checksum_piece(flipped.data(), 100, 0, kind), whole) << "bit " << bit;
    }
  }
  EXPECT_NE(chem::checksum_piece(v.data(), 100, 0, chem::ChecksumKind::Mix64),
            chem::checksum_piece(v.data(), 100, 0, chem::ChecksumKind::Fnv1a));
}

namespace {

// Rewrites (serially, on rank 0) the file's checksum_algorithm, and the
// checksum of one dataset as that algorithm computes it.
void rewrite_checksums(const par::Comm& comm, const std::string& path, const std::string& algorithm,
                       const std::string& dataset, std::uint64_t checksum) {
  if (comm.root()) {
    // Attributes opened through their objects: HDF5 1.10.8 cannot write
    // through H5Aopen_by_name.
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t root = H5Oopen(f, "/", H5P_DEFAULT);
    hid_t a = H5Aopen(root, "checksum_algorithm", H5P_DEFAULT);
    hid_t type = H5Aget_type(a);
    std::string padded = algorithm;
    padded.resize(H5Tget_size(type), '\0');
    EXPECT_GE(H5Awrite(a, type, padded.data()), 0);
    H5Tclose(type);
    H5Aclose(a);
    H5Oclose(root);
    hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
    hid_t c = H5Aopen(d, "checksum", H5P_DEFAULT);
    EXPECT_GE(H5Awrite(c, H5T_NATIVE_UINT64, &checksum), 0);
    H5Aclose(c);
    H5Dclose(d);
    H5Fclose(f);
  }
  comm.barrier();
}

}  // namespace

TEST_F(CheckpointTest, FilesWithTheEarlierChecksumStillRead) {
  const auto values = ramp(30, 2.0);
  {
    chem::CheckpointWriter w(comm(), file("old.h5"));
    w.write_array("/x", values);
    w.commit();
  }
  rewrite_checksums(comm(), file("old.h5"), "fnv1a64-indexed-sum", "/x",
                    chem::checksum_piece(values.data(), 30, 0, chem::ChecksumKind::Fnv1a));
  {
    chem::CheckpointReader r(comm(), file("old.h5"));
    EXPECT_EQ(r.read_array("/x"), values);
  }
  // The same checksum under the current algorithm's name is a mismatch.
  rewrite_checksums(comm(), file("old.h5"), "splitmix64-indexed-sum", "/x",
                    chem::checksum_piece(values.data(), 30, 0, chem::ChecksumKind::Fnv1a));
  {
    chem::CheckpointReader r(comm(), file("old.h5"));
    EXPECT_THROW(r.read_array("/x"), chem::CheckpointError);
  }
  rewrite_checksums(comm(), file("old.h5"), "crc32", "/x", 0);
  try {
    chem::CheckpointReader r(comm(), file("old.h5"));
    ADD_FAILURE() << "an unknown checksum algorithm was accepted";
  } catch (const chem::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown checksum_algorithm 'crc32'"), std::string::npos) << e.what();
  }
}

TEST_F(CheckpointTest, CommitReplacesAtomicallyAndAbandonedWritesLeaveNoTrace) {
  const std::string path = file("s.h5");
  const std::string tmp = chem::checkpoint_temp_path(path);
  {
    chem::CheckpointWriter w(comm(), path);
    w.write_array("/v", {1.0});
    w.commit();
  }
  const std::string first = comm().root() ? read_bytes(path) : "";
  if (comm().root()) std::ofstream(tmp) << "stale temporary file from a killed run";
  comm().barrier();
  {
    chem::CheckpointWriter w(comm(), path);  // overwrites the stale temporary
    w.write_array("/v", {2.0});
    comm().barrier();
    if (comm().root()) {
      EXPECT_TRUE(fs::exists(tmp));
      EXPECT_EQ(read_bytes(path), first);  // untouched until commit
    }
    // destroyed without commit
  }
  comm().barrier();
  if (comm().root()) {
    EXPECT_FALSE(fs::exists(tmp));
    EXPECT_EQ(read_bytes(path), first);
  }
  {
    chem::CheckpointWriter w(comm(), path);
    w.write_array("/v", {3.0});
    w.commit();
  }
  EXPECT_FALSE(fs::exists(tmp));
  chem::CheckpointReader r(comm(), path);
  EXPECT_EQ(r.read_array("/v"), std::vector<double>{3.0});
}

// A folder without room for the file is refused on every rank before any
// collective write (a write that fails on one rank would leave the others
// waiting), and the checkpoint in place is left as it was.
TEST_F(CheckpointTest, NotEnoughFreeSpaceIsRefusedBeforeWriting) {
  const std::string path = file("full.h5");
  {
    chem::CheckpointWriter w(comm(), path);
    w.require_free_space(1000);  // any folder has room for that
    w.write_array("/v", {1.0});
    w.commit();
  }
  const std::string first = comm().root() ? read_bytes(path) : "";
  try {
    chem::CheckpointWriter w(comm(), path, chem::CheckpointWriter::Start::copy);
    // Rank 0's request decides (here every rank asks for 2^60 bytes).
    w.require_free_space(std::int64_t{1} << 60);
    ADD_FAILURE() << "no error";
  } catch (const chem::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("not enough free space in"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(" needed, "), std::string::npos) << e.what();
  }
  comm().barrier();
  if (comm().root()) {
    EXPECT_FALSE(fs::exists(chem::checkpoint_temp_path(path)));
    EXPECT_EQ(read_bytes(path), first);
  }
}

TEST_F(CheckpointTest, ScfRoundTripIsExact) {
  for (bool uhf : {false, true}) {
    const auto scf = synthetic_scf(uhf);
    auto id = water_identity();
    id.reference = scf.reference;
    {
      chem::CheckpointWriter w(comm(), file("scf.h5"));
      w.write_identity(id);
      w.write_scf(scf);
      w.commit();
    }
    chem::CheckpointReader r(comm(), file("scf.h5"));
    const auto back = r.read_scf();
    EXPECT_EQ(back.reference, scf.reference);
    EXPECT_EQ(back.converged, scf.converged);
    EXPECT_EQ(back.iterations, scf.iterations);
    EXPECT_EQ(back.energy, scf.energy);
    EXPECT_EQ(back.nuclear_repulsion, scf.nuclear_repulsion);
    EXPECT_EQ(back.s2, scf.s2);
    EXPECT_EQ(back.nbf, scf.nbf);
    EXPECT_EQ(back.nmo, scf.nmo);
    EXPECT_EQ(back.n_alpha, scf.n_alpha);
    EXPECT_EQ(back.n_beta, scf.n_beta);
    EXPECT_EQ(back.C_alpha, scf.C_alpha);
    EXPECT_EQ(back.eps_alpha, scf.eps_alpha);
    EXPECT_EQ(back.occ_alpha, scf.occ_alpha);
    EXPECT_EQ(back.C_beta.size(), scf.C_beta.size());
    if (uhf) {
      EXPECT_EQ(back.C_beta, scf.C_beta);
      EXPECT_EQ(back.eps_beta, scf.eps_beta);
      EXPECT_EQ(back.occ_beta, scf.occ_beta);
    }
    const auto stored = r.read_identity();
    EXPECT_EQ(chem::identity_mismatch(stored, id), "");
    EXPECT_EQ(stored.geometry, id.geometry);
    EXPECT_EQ(stored.Z, id.Z);
  }
}

TEST(CheckpointIdentity, EveryDifferenceIsNamed) {
  const auto a = water_identity();
  auto expect = [&](chem::CheckpointIdentity b, const std::string& words) {
    const auto m = chem::identity_mismatch(a, b);
    EXPECT_NE(m.find(words), std::string::npos) << "got: " << m;
  };
  auto b = a;
  b.geometry[4] += 2e-10;
  expect(b, "geometry: atom 2 y");
  b = a;
  b.geometry[4] += 0.5e-10;  // within 1e-10 bohr: the same geometry
  EXPECT_EQ(chem::identity_mismatch(a, b), "");
  b = a;
  b.Z[2] = 9;
  expect(b, "atomic number of atom 3");
  b = a;
  b.Z.pop_back();
  b.geometry.resize(6);
  expect(b, "number of atoms");
  b = a;
  b.charge = 1;
  expect(b, "charge differs (0 in the checkpoint, 1 in the input)");
  b = a;
  b.multiplicity = 3;
  expect(b, "multiplicity");
  b = a;
  b.basis = "cc-pvdz";
  expect(b, "basis differs (sto-3g in the checkpoint, cc-pvdz in the input)");
  b = a;
  b.puream = false;
  expect(b, "puream");
  b = a;
  b.nbf = 8;
  expect(b, "number of basis functions");
  b = a;
  b.reference = "uhf";
  expect(b, "scf.reference differs (rhf in the checkpoint, uhf in the input)");
  // The shells of a basis of the same name (an edited .g94 file); files
  // written before the shells were kept do not tell.
  auto c = a;
  c.shells = {0, 1, 0.15432897, 0.53532814, 0.44463454, 3.42525091, 0.62391373, 0.1688554};
  b = c;
  b.shells[7] *= 1 + 1e-9;
  const auto m = chem::identity_mismatch(c, b);
  EXPECT_EQ(m.rfind("basis differs: the exponents or coefficients of sto-3g are not those in the checkpoint", 0), 0u)
      << m;
  b.shells.pop_back();
  EXPECT_NE(chem::identity_mismatch(c, b), "");
  b = c;
  b.shells[2] *= 1 + 1e-14;  // the library's arithmetic
  EXPECT_EQ(chem::identity_mismatch(c, b), "");
  EXPECT_EQ(chem::identity_mismatch(a, c), "");
}

TEST_F(CheckpointTest, FilesThatAreNotCheckpointsAreRefused) {
  if (comm().root()) std::ofstream(file("text.h5")) << "this is not HDF5\n";
  comm().barrier();
  try {
    chem::CheckpointReader r(comm(), file("text.h5"));
    ADD_FAILURE() << "a text file was accepted";
  } catch (const chem::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("text.h5"), std::string::npos);
  }
  if (comm().root()) {
    hid_t f = H5Fcreate(file("other.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
  }
  comm().barrier();
  try {
    chem::CheckpointReader r(comm(), file("other.h5"));
    ADD_FAILURE() << "an HDF5 file that is not a checkpoint was accepted";
  } catch (const chem::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("not a cyclocc checkpoint"), std::string::npos) << e.what();
  }
  {
    chem::CheckpointWriter w(comm(), file("future.h5"));
    w.set_int("/", "format_version", chem::kCheckpointFormatVersion + 1);
    w.commit();
  }
  try {
    chem::CheckpointReader r(comm(), file("future.h5"));
    ADD_FAILURE() << "a future format version was accepted";
  } catch (const chem::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("format version"), std::string::npos) << e.what();
  }
  EXPECT_THROW(chem::CheckpointReader(comm(), file("missing.h5")), chem::CheckpointError);
}
