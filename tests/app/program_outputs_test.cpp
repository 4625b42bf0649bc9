// The files a run writes, as a user names them: through symbolic links, to
// /dev/null, never over a file the run reads, and never after the work when
// they cannot be written (docs/results.md, README "Output files").
#include <hdf5.h>
#include <sys/stat.h>

#include "tests/app/background_run.hpp"
#include "tests/app/program_fixture.hpp"

namespace cyclocc::app_test {
namespace {

// A results file that cannot be written is an error before any work: a
// folder in its place or in that of its temporary copy (exit 2); an input
// error keeps its own exit code.
TEST_F(ProgramTest, ResultsFileThatCannotBeWrittenStopsTheRunBeforeTheWork) {
  const auto input = water_input("w");
  fs::create_directories(path("taken"));
  auto r = cyclocc({input.string(), "--json", "taken"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: --json: taken is a folder"});
  EXPECT_EQ(r.out.find("SCF converged"), std::string::npos) << r.out;
  // A folder at a working name (FILE.tmp, the checkpoint's FILE.prev and FILE.lock) too.
  fs::create_directories(path("w.json.tmp"));
  r = cyclocc({input.string()});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: output.json: ", "w.json.tmp while it is written, and that is a folder"});
  EXPECT_EQ(r.out.find("SCF converged"), std::string::npos) << r.out;
  fs::remove(path("w.json.tmp"));
  fs::create_directories(path("w.h5.prev"));
  r = cyclocc({input.string()});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: checkpoint.file: ", "w.h5.prev while it is written, and that is a folder"});
  fs::remove(path("w.h5.prev"));
  fs::create_directories(path("w.h5.lock"));
  r = cyclocc({input.string()});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: checkpoint.file: ", "w.h5.lock while it is written, and that is a folder"});
  fs::remove(path("w.h5.lock"));
  // A folder where root passes access() but no file can be made.
  r = cyclocc({input.string(), "--json", "/proc/x.json"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: --json: folder /proc of /proc/x.json cannot be written"});
  r = cyclocc({"missing.yaml", "--json", "taken"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"missing.yaml"});
  // A checkpoint in place of a folder, or of a device, is refused too.
  r = cyclocc({input.string(), "--checkpoint", "taken"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: --checkpoint: taken is a folder"});
  fs::create_symlink("/dev/null", path("null.h5"));
  r = cyclocc({input.string(), "--checkpoint", "null.h5"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: --checkpoint: null.h5 is not a regular file"});
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

// A link stays a link, and the file it points to gets the results or the
// checkpoint (which a restart then reads through the link); a device is
// written through.
TEST_F(ProgramTest, OutputsGoThroughLinksAndToDevNull) {
  const auto input = water_input("l");
  fs::create_directories(path("scratch"));
  fs::create_symlink("scratch/real.json", path("link.json"));
  fs::create_symlink(path("scratch") / "real.h5", path("link.h5"));
  fs::create_symlink("/dev/null", path("null.json"));
  auto r = cyclocc({input.string(), "--json", "link.json", "--checkpoint", "link.h5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_TRUE(fs::is_symlink(path("link.h5")));
  EXPECT_TRUE(results("scratch/real.json")["success"].as<bool>());
  EXPECT_TRUE(fs::is_regular_file(path("scratch/real.h5")));
  EXPECT_FALSE(fs::exists(path("l.h5")));
  r = cyclocc({input.string(), "--json", "link.json", "--checkpoint", "link.h5", "--restart"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("restart"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_symlink(path("link.h5")));
  r = cyclocc({input.string(), "--json", "null.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(path("null.json")));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // A relative link in a subfolder points from there; a loop of links is refused.
  fs::create_directories(path("sub"));
  fs::create_symlink("../scratch/sub.json", path("sub/link.json"));
  r = cyclocc({input.string(), "--json", "sub/link.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(path("sub/link.json")));
  EXPECT_TRUE(results("scratch/sub.json")["success"].as<bool>());
  fs::create_symlink("loop2.json", path("loop1.json"));
  fs::create_symlink("loop1.json", path("loop2.json"));
  r = cyclocc({input.string(), "--json", "loop1.json"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"l.yaml: --json: loop1.json"});
  EXPECT_TRUE(fs::is_symlink(path("loop1.json")));
}

// No output may replace the geometry or basis file the input names, also
// when the input does not validate (its error results go nowhere then).
TEST_F(ProgramTest, OutputsNeverReplaceTheFilesTheInputReads) {
  const std::string xyz = "3\nwater\nO 0 0 0.117\nH 0 0.757 -0.467\nH 0 -0.757 -0.467\n";
  write_text(path("geom.xyz"), xyz);
  fs::copy_file(std::string(CYCLOCC_SOURCE_DIR) + "/share/basis/sto-3g.g94", path("mine.g94"));
  const std::string basis = read_text(path("mine.g94"));
  const auto input = [&](const std::string& name, const std::string& json, const std::string& extra) {
    write_text(path(name), "molecule:\n  xyz: geom.xyz\nbasis: mine.g94\noutput:\n  json: " + json + "\n" + extra);
    return path(name).string();
  };
  auto r = cyclocc({input("a.yaml", "geom.xyz", "")});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"a.yaml: output.json:", "geom.xyz is the file molecule.xyz names"});
  r = cyclocc({input("b.yaml", "b.json", ""), "--checkpoint", "mine.g94"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"b.yaml: --checkpoint: mine.g94 is the file basis names"});
  r = cyclocc({input("c.yaml", "mine.g94", "unknown_key: 1\n")});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"c.yaml", "unknown_key"});
  EXPECT_EQ(read_text(path("geom.xyz")), xyz);
  EXPECT_EQ(read_text(path("mine.g94")), basis);
  r = cyclocc({input("d.yaml", "d.json", "")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A slip on the command line such as `--json other.yaml w.yaml` must not
// replace a file of the user's: the results file replaces only a JSON file
// (or an empty one), the checkpoint only a cyclocc checkpoint (not another
// HDF5 file), the Molden file only a Molden file, also when the command line
// or the input does not parse. Under --restart a checkpoint that is not
// HDF5 is read first and refused as a checkpoint (exit 4).
TEST_F(ProgramTest, OutputsNeverReplaceAFileOfAnotherKind) {
  const auto input = water_input("w");
  const std::string yaml = "molecule:\n  xyz: x.xyz\n", notes = "\x89HDF is not at the start\n";
  write_text(path("other.yaml"), yaml);
  write_text(path("notes.h5"), notes);
  auto r = cyclocc({"--json", "other.yaml", input.string()});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: --json: other.yaml exists and is not a results file (JSON)"});
  EXPECT_EQ(r.out.find("SCF converged"), std::string::npos) << r.out;
  r = cyclocc({"--json", "other.yaml", input.string(), "--bogus"});
  EXPECT_EQ(r.exit_code, 2);
  r = cyclocc({"--json", "other.yaml", "missing.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  r = cyclocc({input.string(), "--checkpoint", "notes.h5"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: --checkpoint: notes.h5 exists and is not a cyclocc checkpoint"});
  {
    const hid_t data = H5Fcreate(path("data.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(data, 0);
    H5Fclose(data);
  }
  const std::string hdf5 = read_text(path("data.h5"));
  r = cyclocc({input.string(), "--checkpoint", "data.h5"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: --checkpoint: data.h5 exists and is not a cyclocc checkpoint"});
  EXPECT_EQ(read_text(path("data.h5")), hdf5);
  r = cyclocc({input.string(), "--checkpoint", "notes.h5", "--restart"});
  EXPECT_EQ(r.exit_code, 4);
  expect_one_error_line(r, {"notes.h5"});
  const auto molden = water_input("m", [](YAML::Node& in) { in["output"]["molden"] = "other.yaml"; });
  r = cyclocc({molden.string()});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"m.yaml: output.molden:", "other.yaml exists and is not a Molden file"});
  EXPECT_EQ(read_text(path("other.yaml")), yaml);
  EXPECT_EQ(read_text(path("notes.h5")), notes);
  // An empty file, a JSON file, a checkpoint and a Molden file are replaced.
  write_text(path("old.molden"), "\n[MOLDEN FORMAT]\n[Title]\nold\n");
  r = cyclocc({water_input("o", [](YAML::Node& in) { in["output"]["molden"] = "old.molden"; }).string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(path("old.molden")).rfind("[Molden Format]", 0), 0u);
  write_text(path("empty.json"), "");
  write_text(path("old.json"), "\xEF\xBB\xBF  \n{\"success\": true}\n");  // with a byte order mark
  r = cyclocc({input.string(), "--json", "empty.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(results("empty.json")["success"].as<bool>());
  r = cyclocc({input.string(), "--json", "old.json", "--checkpoint", "w.h5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(results("old.json")["success"].as<bool>());
  r = cyclocc({input.string(), "--checkpoint", "w.h5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// The names the results and the checkpoint are written under first (FILE.tmp,
// and the checkpoint's FILE.prev and FILE.lock) never lead into another file: a link of
// such a name is replaced, not written through, and a name that is another
// file the run reads or writes is refused before any work.
TEST_F(ProgramTest, WorkingNamesNeverLeadIntoOtherFiles) {
  const auto input = water_input("w");
  const std::string yaml = read_text(input), keep = "keep: this\n";
  write_text(path("keep.yaml"), keep);
  fs::create_symlink("w.yaml", path("w.json.tmp"));
  fs::create_symlink("keep.yaml", path("w.h5.tmp"));
  fs::create_symlink("keep.yaml", path("w.h5.lock"));
  auto r = cyclocc({input.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(input), yaml);
  EXPECT_EQ(read_text(path("keep.yaml")), keep);
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(path("w.json"))));
  EXPECT_TRUE(results("w.json")["success"].as<bool>());
  EXPECT_GT(H5Fis_hdf5(path("w.h5").c_str()), 0);
  EXPECT_FALSE(fs::exists(fs::symlink_status(path("w.json.tmp"))));
  EXPECT_FALSE(fs::exists(fs::symlink_status(path("w.h5.tmp"))));
  EXPECT_FALSE(fs::exists(fs::symlink_status(path("w.h5.lock"))));
  // Second names (hard links) are removed, not written into. A kill between
  // the commit's link and rename leaves PATH.prev a second name of PATH: the
  // restart must go on (it was refused, exit 2, while PATH.prev was there).
  fs::create_hard_link(input, path("w.json.tmp"));
  fs::create_hard_link(path("w.h5"), path("w.h5.prev"));
  fs::create_hard_link(path("keep.yaml"), path("w.h5.lock"));
  r = cyclocc({input.string(), "--restart"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("reusing the orbitals"), std::string::npos) << r.out;
  EXPECT_EQ(read_text(input), yaml);
  EXPECT_EQ(read_text(path("keep.yaml")), keep);
  EXPECT_FALSE(fs::exists(fs::symlink_status(path("w.h5.lock"))));
  EXPECT_TRUE(results("w.json")["success"].as<bool>());
  // The checkpoint named as the results' working copy (it would be renamed
  // over the results), the input as one, a file the run reads as one.
  r = cyclocc({input.string(), "--checkpoint", "w.json.tmp"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"w.yaml: output.json: ", "w.json uses ", "w.json.tmp while it is written, and that is the "
                                                                    "file --checkpoint names; name another file"});
  EXPECT_EQ(r.out.find("SCF converged"), std::string::npos) << r.out;
  fs::copy_file(input, path("s.tmp"));
  r = cyclocc({path("s.tmp").string(), "--json", path("s").string()});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, {"--json: ", "s.tmp while it is written, and that is the input file"});
  EXPECT_EQ(read_text(path("s.tmp")), yaml);
  r = cyclocc({input.string(), "--checkpoint", "c.h5", "--json", "c.h5.prev"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r,
                        {"w.yaml: --checkpoint: ", "c.h5.prev while it is written, and that is the file --json names"});
  const auto xyz = water_input("x", [](YAML::Node& in) {
    in["molecule"].remove("geometry");
    in["molecule"].remove("units");
    in["molecule"]["xyz"] = "h2o.xyz.tmp";
  });
  write_text(path("h2o.xyz.tmp"), "3\nwater\nO 0 0 0.1173\nH 0 0.7572 -0.4692\nH 0 -0.7572 -0.4692\n");
  r = cyclocc({xyz.string(), "--json", "h2o.xyz"});
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(
      r, {"x.yaml: --json: ", "h2o.xyz.tmp while it is written, and that is the file molecule.xyz names"});
}

// A run killed before it writes its results (SIGKILL, as for a job out of
// time or memory) leaves a results file that says it did not finish, not an
// earlier run's success.
TEST_F(ProgramTest, KilledRunLeavesNoEarlierSuccess) {
  const auto input = water_input("k", [](YAML::Node& in) { in["basis"] = "cc-pvtz"; });
  write_text(path("k.json"), "{\"success\": true}\n");
  BackgroundRun run({CYCLOCC_EXE, input.string()}, dir_, 0);
  ASSERT_TRUE(run.wait_for([&] { return run.out().find("SCF:") != std::string::npos; }));
  run.kill_all(SIGKILL);
  run.wait();
  const YAML::Node j = results("k.json");
  EXPECT_FALSE(j["success"].as<bool>());
  EXPECT_EQ(j["error"]["error_type"].as<std::string>(), "interrupted");
  EXPECT_NE(j["error"]["error_message"].as<std::string>().find("has not finished"), std::string::npos);
}

}  // namespace
}  // namespace cyclocc::app_test
