// Checkpoint and --restart through the cyclocc binary (DESIGN.md §3, §8):
// reuse at another rank count, refusal (exit 4) of mismatched, truncated and
// corrupt checkpoints without touching them, input errors that leave an
// existing checkpoint alone, and a checkpoint another run holds.
#include <hdf5.h>
#include <unistd.h>

#include "tests/app/program_fixture.hpp"

using namespace cyclocc::app_test;

namespace {

// Flips bytes inside the raw data of `dataset` (so only our checksum can tell).
void corrupt_dataset(const fs::path& file, const char* dataset) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  ASSERT_GE(d, 0);
  const haddr_t offset = H5Dget_offset(d);
  H5Dclose(d);
  H5Fclose(f);
  ASSERT_NE(offset, HADDR_UNDEF);
  std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
  io.seekp(static_cast<std::streamoff>(offset + 100));
  io.write("\x55\xaa", 2);
}

}  // namespace

TEST_F(ProgramTest, RestartReusesTheCheckpointAtAnotherRankCount) {
  const auto input = water_input("w");
  for (auto [write_ranks, read_ranks] : {std::pair{0, 2}, std::pair{2, 0}}) {
    auto r = cyclocc({input.string()}, write_ranks);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const double e = results("w.json")["properties"]["scf_total_energy"].as<double>();
    const int iterations = results("w.json")["properties"]["scf_iterations"].as<int>();
    const auto eigenvalues = results("w.json")["extras"]["scf_eigenvalues_a"].as<std::vector<double>>();
    const std::string before = read_text(path("w.h5"));

    r = cyclocc({input.string(), "--restart"}, read_ranks);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = results("w.json");
    EXPECT_TRUE(j["extras"]["scf_from_checkpoint"].as<bool>());
    EXPECT_EQ(j["properties"]["scf_total_energy"].as<double>(), e);  // the stored energy, bit for bit
    EXPECT_EQ(j["return_energy"].as<double>(), e);
    EXPECT_EQ(j["properties"]["scf_iterations"].as<int>(), iterations);
    EXPECT_EQ(j["extras"]["scf_eigenvalues_a"].as<std::vector<double>>(), eigenvalues);  // the stored ones
    EXPECT_EQ(j["provenance"]["ranks"].as<int>(), read_ranks == 0 ? 1 : read_ranks);
    EXPECT_NE(r.out.find("reusing the orbitals of checkpoint " + path("w.h5").string()), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(" iter "), std::string::npos) << "the SCF ran again:\n" << r.out;
    EXPECT_EQ(read_text(path("w.h5")), before);  // nothing new to write
  }
}

TEST_F(ProgramTest, RestartWithoutACheckpointStartsFreshWithAWarning) {
  const auto input = water_input("fresh");
  const auto r = cyclocc({input.string(), "--restart"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string warning = "--restart: no checkpoint " + path("fresh.h5").string() + ", starting from the beginning";
  EXPECT_NE(r.out.find("warning: " + warning + "\n"), std::string::npos) << r.out;
  const auto j = results("fresh.json");
  ASSERT_EQ(j["extras"]["warnings"].size(), 1u);  // the log's one warning, in the results too
  EXPECT_EQ(j["extras"]["warnings"][0].as<std::string>(), warning);
  EXPECT_FALSE(j["extras"]["scf_from_checkpoint"].as<bool>());
  EXPECT_NEAR(j["return_energy"].as<double>(), reference_value(kWaterCase, "scf_total_energy"), 1e-8);
  EXPECT_TRUE(fs::exists(path("fresh.h5")));
}

TEST_F(ProgramTest, MismatchedCheckpointIsExit4AndUntouched) {
  const auto input = water_input("w");
  ASSERT_EQ(cyclocc({input.string()}).exit_code, 0);
  const std::string before = read_text(path("w.h5"));
  struct Case {
    std::string name;
    std::function<void(YAML::Node&)> edit;
    std::string words;
  };
  const std::vector<Case> cases = {
      {"geometry",
       [](YAML::Node& in) {
         in["molecule"]["geometry"] =
             "O 0.0 0.0 0.221664874419\nH 0.0 1.430900621567 -0.886659497674\nH 0.0 -1.430900621567 -0.876659497674\n";
       },
       "geometry: atom 3 z"},
      {"basis", [](YAML::Node& in) { in["basis"] = "6-31g"; }, "basis differs (sto-3g in the checkpoint, 6-31g"},
      {"charge",
       [](YAML::Node& in) {
         in["molecule"]["charge"] = 1;
         in["molecule"]["multiplicity"] = 2;
         in["scf"]["reference"] = "uhf";
       },
       "charge differs (0 in the checkpoint, 1 in the input)"},
      {"reference", [](YAML::Node& in) { in["scf"]["reference"] = "uhf"; }, "scf.reference differs"},
      {"puream", [](YAML::Node& in) { in["puream"] = false; }, "puream differs (true in the checkpoint, false"},
  };
  for (const auto& c : cases) {
    const auto other = water_input(c.name, c.edit);
    for (int ranks : {0, 2}) {
      const auto r = cyclocc({other.string(), "--restart", "--checkpoint", "w.h5"}, ranks);
      EXPECT_EQ(r.exit_code, 4) << c.name;
      expect_one_error_line(r, {"w.h5", c.words});
      EXPECT_EQ(results(c.name + ".json")["error"]["error_type"].as<std::string>(), "checkpoint_error");
      EXPECT_EQ(read_text(path("w.h5")), before) << c.name;
    }
  }
}

// A basis file edited under the same name: its orbitals would be reused with
// the new integrals (a review found a restart then ended "successfully",
// 4.6e-6 Eh off). The checkpoint keeps the shells and refuses.
TEST_F(ProgramTest, AnEditedBasisFileIsAnotherBasis) {
  const std::string cases = std::string(CYCLOCC_SOURCE_DIR) + "/regression/cases/";
  const std::string g94 = read_text(cases + "li_ccpvdz_uhf.g94");
  write_text(path("li_ccpvdz_uhf.g94"), g94);
  const auto input = case_input("li", "li_ccpvdz_uhf", [](YAML::Node& in) { in["cc"]["method"] = "none"; });
  ASSERT_EQ(cyclocc({input.string()}).exit_code, 0);
  const std::string before = read_text(path("li.h5"));
  ASSERT_NE(g94.find("0.0734500"), std::string::npos);
  std::string edited = g94;
  edited.replace(edited.find("0.0734500"), 9, "0.0834500");
  write_text(path("li_ccpvdz_uhf.g94"), edited);
  const auto r = cyclocc({input.string(), "--restart"}, 2);
  EXPECT_EQ(r.exit_code, 4);
  expect_one_error_line(r, {"li.h5", "basis differs: the exponents or coefficients of", "(was its file edited?)"});
  EXPECT_EQ(read_text(path("li.h5")), before);
  write_text(path("li_ccpvdz_uhf.g94"), g94);  // the file as it was: reused
  const auto again = cyclocc({input.string(), "--restart"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("reusing the orbitals"), std::string::npos) << again.out;
}

TEST_F(ProgramTest, TruncatedOrCorruptCheckpointIsExit4AndUntouched) {
  const auto input = water_input("w");
  ASSERT_EQ(cyclocc({input.string()}).exit_code, 0);
  const std::string good = read_text(path("w.h5"));

  write_text(path("w.h5"), good.substr(0, good.size() / 2));
  const std::string truncated = read_text(path("w.h5"));
  for (int ranks : {0, 2}) {
    const auto r = cyclocc({input.string(), "--restart"}, ranks);
    EXPECT_EQ(r.exit_code, 4);
    expect_one_error_line(r, {"w.h5"});
    EXPECT_EQ(read_text(path("w.h5")), truncated);
  }

  write_text(path("w.h5"), good);
  corrupt_dataset(path("w.h5"), "/scf/alpha/coefficients");
  const std::string corrupt = read_text(path("w.h5"));
  ASSERT_NE(corrupt, good);
  for (int ranks : {0, 2}) {
    const auto r = cyclocc({input.string(), "--restart"}, ranks);
    EXPECT_EQ(r.exit_code, 4);
    expect_one_error_line(r, {"w.h5", "checksum mismatch in dataset /scf/alpha/coefficients"});
    EXPECT_EQ(read_text(path("w.h5")), corrupt);
  }
}

TEST_F(ProgramTest, InputErrorLeavesAnExistingCheckpointAlone) {
  auto input = water_input("w");
  ASSERT_EQ(cyclocc({input.string()}).exit_code, 0);
  const std::string before = read_text(path("w.h5"));
  // The same input name (so the same default checkpoint), now invalid.
  input = water_input("w", [](YAML::Node& in) { in["scf"]["max_iterations"] = 0; });
  for (bool restart : {false, true}) {
    std::vector<std::string> args{input.string()};
    if (restart) args.push_back("--restart");
    const auto r = cyclocc(args, 2);
    EXPECT_EQ(r.exit_code, 2);
    expect_one_error_line(r, {"w.yaml", "scf.max_iterations"});
    EXPECT_EQ(read_text(path("w.h5")), before);
    EXPECT_FALSE(fs::exists(path("w.h5.tmp")));
  }
}

// One run per checkpoint (app/checkpoint_lock.hpp): while another process
// holds CHECKPOINT.lock, a run is refused (exit 4) and writes nothing, not
// even its results (the file of the run that holds the lock); a lock file no
// one holds, as a killed run leaves it, is taken over and removed at the end.
TEST_F(ProgramTest, ACheckpointInUseIsRefusedAndALeftLockTakenOver) {
  const auto input = water_input("w");
  ASSERT_EQ(cyclocc({input.string()}).exit_code, 0);
  const std::string checkpoint = read_text(path("w.h5")), json = read_text(path("w.json"));
  const std::string holder = "pid 42 on host elsewhere, started at 08:00\n";
  const int fd = hold_lock(path("w.h5.lock"), holder);
  ASSERT_GE(fd, 0);
  for (int ranks : {0, 2}) {
    const auto r = cyclocc({input.string(), "--restart"}, ranks);
    EXPECT_EQ(r.exit_code, 4);
    expect_one_error_line(r, {"checkpoint ", "w.h5 is in use by another run (pid 42 on host elsewhere, started at "
                                             "08:00, holding ", "w.h5.lock); wait for it to end or stop it"});
    EXPECT_EQ(read_text(path("w.h5")), checkpoint);
    EXPECT_EQ(read_text(path("w.json")), json);
    EXPECT_EQ(read_text(path("w.h5.lock")), holder);
    EXPECT_FALSE(fs::exists(path("w.h5.tmp")));
  }
  // A second name of the held file (a hard-link snapshot of the folder) does
  // not make it any less held.
  fs::create_hard_link(path("w.h5.lock"), path("snapshot.lock"));
  auto r = cyclocc({input.string(), "--restart"});
  EXPECT_EQ(r.exit_code, 4);
  expect_one_error_line(r, {"w.h5 is in use by another run (pid 42 on host elsewhere"});
  ::close(fd);  // the holder is gone; its file is left (with its second name)
  r = cyclocc({input.string(), "--restart"}, 2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("reusing the orbitals"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("w.h5.lock")));
  EXPECT_EQ(read_text(path("snapshot.lock")), holder);  // replaced, not written into
  // A lock that cannot be made (its name too long here) is a checkpoint
  // error like others: it writes its results, so no earlier success stays.
  const std::string long_name = std::string(252, 'c') + ".h5";  // 255 characters; .lock makes 257
  r = cyclocc({input.string(), "--checkpoint", long_name});
  EXPECT_EQ(r.exit_code, 4);
  expect_one_error_line(r, {".h5.lock: the checkpoint's lock cannot be created (File name too long)"});
  EXPECT_FALSE(results("w.json")["success"].as<bool>());
  EXPECT_EQ(results("w.json")["error"]["error_type"].as<std::string>(), "checkpoint_error");
}
