// Checkpoints with CC amplitudes that --restart must refuse (DESIGN.md §3,
// §8): truncated, corrupt amplitude data (caught by the checksums), and a
// checkpoint of another molecule, basis or reference. Each is exit code 4
// with one line naming the file and what is wrong, and the file is left
// byte for byte as it was.
#include "tests/app/restart_fixture.hpp"

using namespace cyclocc::app_test;

class RefusalTest : public RestartTest {
 protected:
  // w.h5 with converged CCSD amplitudes of water STO-3G; returns its bytes.
  std::string cc_checkpoint() {
    const auto input = case_input("w", kWaterCase);
    const auto r = cyclocc({input.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_GE(stored_ccsd_iteration(path("w.h5")), 1);
    return read_text(path("w.h5"));
  }
  // --restart with `input` and checkpoint w.h5 at 1 and 2 ranks: exit 4,
  // one error line with every word, w.h5 unchanged.
  void expect_refused(const fs::path& input, const std::vector<std::string>& words) {
    const std::string before = read_text(path("w.h5"));
    for (int ranks : {0, 2}) {
      const auto r = cyclocc({input.string(), "--restart", "--checkpoint", "w.h5"}, ranks);
      EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
      expect_one_error_line(r, words);
      EXPECT_EQ(results(input.stem().string() + ".json")["error"]["error_type"].as<std::string>(),
                "checkpoint_error");
      EXPECT_EQ(read_text(path("w.h5")), before);
      EXPECT_FALSE(fs::exists(path("w.h5.tmp")));
    }
  }
};

TEST_F(RefusalTest, TruncatedCheckpointWithAmplitudesIsRefused) {
  const std::string good = cc_checkpoint();
  const auto input = case_input("w", kWaterCase);
  for (std::size_t cut : {std::size_t{8}, good.size() / 3}) {
    write_text(path("w.h5"), good.substr(0, good.size() - cut));
    expect_refused(input, {"checkpoint w.h5"});
  }
}

TEST_F(RefusalTest, CorruptAmplitudesAreCaughtByTheChecksums) {
  const std::string good = cc_checkpoint();
  for (const char* dataset : {"/ccsd/t2_abab", "/ccsd/t1_aa"}) {
    write_text(path("w.h5"), good);
    corrupt_dataset(path("w.h5"), dataset);
    ASSERT_NE(read_text(path("w.h5")), good);
    expect_refused(case_input("w", kWaterCase),
                   {"checkpoint w.h5", std::string("checksum mismatch in dataset ") + dataset});
  }
}

TEST_F(RefusalTest, CheckpointOfAnotherCalculationIsRefused) {
  cc_checkpoint();
  struct Case {
    std::string name;
    std::function<void(YAML::Node&)> edit;
    std::string words;
  };
  const std::vector<Case> cases = {
      {"molecule",
       [](YAML::Node& in) {
         in["molecule"]["geometry"] =
             "O 0.0 0.0 0.221664874419\nH 0.0 1.430900621567 -0.886659497674\nH 0.0 -1.430900621567 -0.876659497674\n";
       },
       "geometry: atom 3 z"},
      {"basis", [](YAML::Node& in) { in["basis"] = "6-31g"; }, "basis differs (sto-3g in the checkpoint, 6-31g"},
      {"reference", [](YAML::Node& in) { in["scf"]["reference"] = "uhf"; }, "scf.reference differs"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    expect_refused(case_input(c.name, kWaterCase, c.edit), {"checkpoint w.h5", c.words});
  }
}

// Amplitudes that do not belong to the checkpoint's own SCF (a group taken
// from another file) are refused too, though the molecule, basis and
// reference match.
TEST_F(RefusalTest, AmplitudesOfAnotherScfAreRefused) {
  cc_checkpoint();
  {
    hid_t f = H5Fopen(path("w.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    // Replaced, as the writer does (rewriting in place fails in HDF5 1.10).
    hid_t g = H5Oopen(f, "/ccsd", H5P_DEFAULT);
    ASSERT_GE(g, 0);
    ASSERT_GE(H5Adelete(g, "scf_energy"), 0);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(g, "scf_energy", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    const double other = -75.0;
    EXPECT_GE(H5Awrite(a, H5T_NATIVE_DOUBLE, &other), 0);
    H5Aclose(a);
    H5Sclose(space);
    H5Oclose(g);
    H5Fclose(f);
  }
  expect_refused(case_input("w", kWaterCase), {"checkpoint w.h5", "the amplitudes in /ccsd belong to another SCF"});
}
