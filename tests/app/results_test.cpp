// The results file: the QCSchema AtomicResult fields of DESIGN.md §3.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/results.hpp"
#include "input/input.hpp"

using namespace cyclocc;

namespace {

input::Input water() {
  input::Input in;
  in.basis = "sto-3g";
  in.cc.method = "none";
  in.molecule.charge = 0;
  in.molecule.multiplicity = 1;
  in.molecule.atoms = {{"O", 8, {0.0, 0.0, 0.221664874419}},
                       {"H", 1, {0.0, 1.430900621567, -0.886659497674}},
                       {"H", 1, {0.0, -1.430900621567, -0.886659497674}}};
  return in;
}

}  // namespace

TEST(Results, SuccessHasEveryContractField) {
  app::Results r("9.9.9", 3);
  r.set_input(water());
  r.set_property("nuclear_repulsion_energy", 9.18953376263822);
  r.set_property("scf_total_energy", -74.96302313846734);
  r.set_property("scf_iterations", 12);
  r.set_timing("scf", 0.25);
  r.set_timing("cc_iterations", std::vector<double>{0.5, 0.25});
  r.set_extra("scf_from_checkpoint", false);
  r.set_return_energy(-74.96302313846734);
  const YAML::Node n = YAML::Load(r.to_json().dump());
  EXPECT_EQ(n["schema_name"].as<std::string>(), "qcschema_output");
  EXPECT_EQ(n["schema_version"].as<int>(), 1);
  EXPECT_EQ(n["driver"].as<std::string>(), "energy");
  EXPECT_EQ(n["model"]["method"].as<std::string>(), "none");
  EXPECT_EQ(n["model"]["basis"].as<std::string>(), "sto-3g");
  EXPECT_EQ(n["keywords"]["reference"].as<std::string>(), "rhf");
  EXPECT_EQ(n["keywords"]["scf_convergence"].as<double>(), 1e-10);
  EXPECT_FALSE(n["keywords"]["cc_convergence"].IsDefined());  // method none
  ASSERT_EQ(n["molecule"]["symbols"].size(), 3u);
  EXPECT_EQ(n["molecule"]["symbols"][0].as<std::string>(), "O");
  ASSERT_EQ(n["molecule"]["geometry"].size(), 9u);
  EXPECT_EQ(n["molecule"]["geometry"][4].as<double>(), 1.430900621567);
  EXPECT_EQ(n["molecule"]["molecular_charge"].as<int>(), 0);
  EXPECT_EQ(n["molecule"]["molecular_multiplicity"].as<int>(), 1);
  EXPECT_TRUE(n["success"].as<bool>());
  EXPECT_EQ(n["return_result"].as<double>(), -74.96302313846734);
  EXPECT_EQ(n["return_energy"].as<double>(), -74.96302313846734);
  EXPECT_EQ(n["provenance"]["creator"].as<std::string>(), "cyclocc");
  EXPECT_EQ(n["provenance"]["version"].as<std::string>(), "9.9.9");
  EXPECT_EQ(n["provenance"]["ranks"].as<int>(), 3);
  EXPECT_EQ(n["properties"]["nuclear_repulsion_energy"].as<double>(), 9.18953376263822);
  EXPECT_EQ(n["properties"]["scf_iterations"].as<int>(), 12);
  EXPECT_EQ(n["extras"]["timings"]["scf"].as<double>(), 0.25);
  EXPECT_EQ(n["extras"]["timings"]["cc_iterations"][1].as<double>(), 0.25);
  EXPECT_FALSE(n["extras"]["scf_from_checkpoint"].as<bool>());
  EXPECT_TRUE(n["error"].IsNull());
}

TEST(Results, FailureKeepsTheFirstError) {
  app::Results r("1", 1);
  r.set_error(app::error_type::kConvergence, "SCF did not converge");
  r.set_error(app::error_type::kRuntime, "a consequence");
  const YAML::Node n = YAML::Load(r.to_json().dump());
  EXPECT_FALSE(n["success"].as<bool>());
  EXPECT_TRUE(n["return_energy"].IsNull());
  EXPECT_TRUE(n["return_result"].IsNull());
  EXPECT_EQ(n["error"]["error_type"].as<std::string>(), "convergence_error");
  EXPECT_EQ(n["error"]["error_message"].as<std::string>(), "SCF did not converge");
  // Without an input the required fields are still there, empty.
  EXPECT_EQ(n["molecule"]["symbols"].size(), 0u);
  EXPECT_TRUE(n["model"]["method"].IsScalar());
}

TEST(Results, AtomicWriteReplacesTheFileAndLeavesNoTemporary) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("cyclocc_results_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "r.json").string();
  app::write_file_atomically(path, "old\n");
  app::write_file_atomically(path, "{\"new\": 1}\n");
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  EXPECT_EQ(s.str(), "{\"new\": 1}\n");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  EXPECT_THROW(app::write_file_atomically((dir / "no/such/folder/r.json").string(), "x"), std::runtime_error);
  fs::remove_all(dir);
}
