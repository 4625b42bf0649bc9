// Files named by the input: xyz geometries, basis files, checkpoint and
// output names, all resolved against the input file's folder.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "input/input.hpp"
#include "tests/input/helpers.hpp"

namespace cyclocc::input::test {
namespace {

// Parses `text` as if it were the file data/t.yaml, so relative names land in data/.
Input parse_in_data(const std::string& text) { return parse_input_text(text, data_dir() + "/t.yaml"); }

std::string error_in_data(const std::string& text) { return error_of(text, data_dir() + "/t.yaml"); }

std::string xyz_input(const std::string& file) {
  return "molecule:\n  xyz: " + file + "\nbasis: cc-pvdz\n";
}

TEST(InputFiles, XyzGeometryEqualsTheSameGeometryInline) {
  const Input from_file = parse_input(data_dir() + "/h2o_xyz.yaml");
  const Input inline_ = parse_input_text(kWater, "t.yaml");  // the same water, in angstrom
  EXPECT_EQ(from_file.molecule.xyz_file, data_dir() + "/h2o.xyz");
  EXPECT_EQ(from_file.molecule.units, "angstrom");
  ASSERT_EQ(from_file.molecule.atoms.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(from_file.molecule.atoms[i].symbol, inline_.molecule.atoms[i].symbol);
    EXPECT_EQ(from_file.molecule.atoms[i].Z, inline_.molecule.atoms[i].Z);
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(from_file.molecule.atoms[i].xyz[k], inline_.molecule.atoms[i].xyz[k], 1e-12);
  }
  // xyz files are in angstrom: H at y = 0.7572 A
  EXPECT_NEAR(from_file.molecule.atoms[1].xyz[1], 0.7572 / kBohrAngstrom, 1e-12);
  EXPECT_EQ(from_file.title, "water from an xyz file");
}

TEST(InputFiles, RelativePathsResolveAgainstTheInputFolder) {
  const std::string dir = data_dir();
  const Input in = parse_input(dir + "/sub/relative.yaml");
  EXPECT_EQ(in.molecule.xyz_file, dir + "/h2o.xyz");
  EXPECT_TRUE(in.basis_is_file);
  EXPECT_EQ(in.basis, dir + "/tiny.g94");
  EXPECT_EQ(in.checkpoint.file, dir + "/sub/ck/run.h5");
  EXPECT_EQ(in.output.json, dir + "/sub/relative.json");  // default: input stem + .json
  EXPECT_EQ(in.output.molden, dir + "/sub/orbitals.molden");
  EXPECT_EQ(in.molecule.atoms.size(), 3u);
}

TEST(InputFiles, DefaultOutputNamesFollowTheInputStem) {
  const Input here = parse_input_text(kWater, "water.yaml");
  EXPECT_EQ(here.checkpoint.file, "water.h5");
  EXPECT_EQ(here.output.json, "water.json");
  EXPECT_EQ(here.output.molden, "");
  const Input there = parse_input_text(kWater, "runs/h2o/water.inp.yaml");
  EXPECT_EQ(there.checkpoint.file, "runs/h2o/water.inp.h5");
  EXPECT_EQ(there.output.json, "runs/h2o/water.inp.json");
  const Input relative = parse_input_text(
      kWater + "checkpoint:\n  file: ../ck.h5\noutput:\n  json: out/r.json\n  molden: m.molden\n",
      "runs/water.yaml");
  EXPECT_EQ(relative.checkpoint.file, "ck.h5");
  EXPECT_EQ(relative.output.json, "runs/out/r.json");
  EXPECT_EQ(relative.output.molden, "runs/m.molden");
}

// What an input that does not validate still tells: where its results and
// checkpoint go, and which files it reads (no output may replace them), also
// with sections missing.
TEST(InputFiles, OutputHintsOfAnInputThatDoesNotValidate) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("cyclocc_hints_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto hints_of = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return output_hints((dir / name).string());
  };
  const OutputHints a =
      hints_of("a.yaml", "molecule:\n  xyz: g.xyz\nbasis: sets/mine.g94\noutput:\n  json: r.json\nunknown: 1\n");
  EXPECT_EQ(a.json, (dir / "r.json").string());
  EXPECT_EQ(a.checkpoint, (dir / "a.h5").string());
  EXPECT_EQ(a.reads, (std::vector<std::string>{(dir / "g.xyz").string(), (dir / "sets/mine.g94").string()}));
  const OutputHints b = hints_of("b.yaml", "checkpoint:\n  file: c.h5\nbasis: cc-pvdz\nunknown: 1\n");
  EXPECT_EQ(b.json, (dir / "b.json").string());
  EXPECT_EQ(b.checkpoint, (dir / "c.h5").string());
  EXPECT_TRUE(b.reads.empty());
  const OutputHints c = hints_of("c.yaml", "[not, a, mapping]\n");
  EXPECT_EQ(c.json, (dir / "c.json").string());
  EXPECT_TRUE(c.reads.empty());
  // A name with a NUL would be cut short at it ("a"): the default instead.
  const OutputHints d = hints_of("d.yaml", "output:\n  json: \"a\\0b.json\"\n");
  EXPECT_EQ(d.json, (dir / "d.json").string());
  fs::remove_all(dir);
}

TEST(InputFiles, AbsolutePathsAreKept) {
  const Input in = parse_input_text(
      "molecule:\n  xyz: " + data_dir() + "/h2o.xyz\nbasis: " + data_dir() +
          "/tiny.g94\ncheckpoint:\n  file: /scratch/ck.h5\n",
      "elsewhere/t.yaml");
  EXPECT_EQ(in.molecule.xyz_file, data_dir() + "/h2o.xyz");
  EXPECT_EQ(in.basis, data_dir() + "/tiny.g94");
  EXPECT_EQ(in.checkpoint.file, "/scratch/ck.h5");
}

TEST(InputFiles, BasisNameOrFile) {
  const Input name = parse_input_text(
      "molecule:\n  geometry: He 0 0 0\nbasis: 6-31G**\n", "t.yaml");
  EXPECT_FALSE(name.basis_is_file);
  EXPECT_EQ(name.basis, "6-31g**");
  // a name ending in .g94/.gbs, or containing '/', is a file
  for (const std::string b : {"tiny.g94", "./tiny.g94", "TINY.G94x"}) {
    const std::string text = "molecule:\n  geometry: He 0 0 0\nbasis: " + b + "\n";
    if (b == "TINY.G94x") {
      EXPECT_FALSE(parse_in_data(text).basis_is_file);
    } else {
      const Input in = parse_in_data(text);
      EXPECT_TRUE(in.basis_is_file) << b;
      EXPECT_EQ(in.basis, data_dir() + "/tiny.g94");
    }
  }
}

TEST(InputFiles, MissingBasisFile) {
  const std::string m = error_in_data("molecule:\n  geometry: He 0 0 0\nbasis: nope.g94\n");
  EXPECT_EQ(m, data_dir() + "/t.yaml:3: basis: the basis file \"" + data_dir() +
                   "/nope.g94\" does not exist");
  const std::string gbs = error_in_data("molecule:\n  geometry: He 0 0 0\nbasis: lib/x\n");
  EXPECT_NE(gbs.find(":3: basis: the basis file"), std::string::npos) << gbs;
  const std::string dir = error_in_data("molecule:\n  geometry: He 0 0 0\nbasis: sub/\n");
  EXPECT_NE(dir.find("is not a regular file"), std::string::npos) << dir;
}

TEST(InputFiles, MissingXyzFile) {
  const std::string m = error_in_data(xyz_input("missing.xyz"));
  EXPECT_EQ(m, data_dir() + "/t.yaml:2: molecule.xyz: the xyz file \"" + data_dir() +
                   "/missing.xyz\" does not exist");
}

TEST(InputFiles, XyzContentErrorsNameTheXyzFileAndLine) {
  const std::string d = data_dir() + "/";
  auto starts = [](const std::string& message, const std::string& start) {
    EXPECT_EQ(message.rfind(start, 0), 0u) << message;
  };
  starts(error_in_data(xyz_input("bad_count.xyz")), d + "bad_count.xyz:1: molecule.xyz: ");
  starts(error_in_data(xyz_input("empty.xyz")), d + "empty.xyz:1: molecule.xyz: ");
  starts(error_in_data(xyz_input("short.xyz")), d + "short.xyz: molecule.xyz: expected 3 atoms");
  starts(error_in_data(xyz_input("bad_element.xyz")),
         d + "bad_element.xyz:4: molecule.xyz: unknown element \"Xq\"");
  starts(error_in_data(xyz_input("bad_coordinate.xyz")),
         d + "bad_coordinate.xyz:4: molecule.xyz: coordinate \"nan\" is not a finite number");
  starts(error_in_data(xyz_input("trailing.xyz")), d + "trailing.xyz:5: molecule.xyz: text after");
  // found by the fuzzer: xyz has no comment lines, so this is a malformed atom
  starts(error_in_data(xyz_input("comment_atom.xyz")),
         d + "comment_atom.xyz:4: molecule.xyz: expected \"symbol x y z\", got 5 fields");
  starts(error_in_data(xyz_input("coincident.xyz")),
         d + "coincident.xyz:4: molecule.xyz: atoms 1 (O) and 2 (H) coincide");
}

TEST(InputFiles, XyzIsAlwaysAngstrom) {
  const std::string m = error_in_data("molecule:\n  units: bohr\n  xyz: h2o.xyz\nbasis: b\n");
  EXPECT_NE(m.find(":2: molecule.units: xyz files are always in angstrom"), std::string::npos) << m;
  EXPECT_NO_THROW(parse_in_data("molecule:\n  units: Angstrom\n  xyz: h2o.xyz\nbasis: b\n"));
}

TEST(InputFiles, EmptyFileName) {
  const std::string m = error_of(kWater + "output:\n  json: \"\"\n");
  EXPECT_EQ(m, "t.yaml:8: output.json: the file name is empty");
}

}  // namespace
}  // namespace cyclocc::input::test
