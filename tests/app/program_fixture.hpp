// Fixture for the tests that run the cyclocc binary: a fresh folder per test,
// water inputs built from regression/cases/h2o_sto3g_rhf.yaml, and the
// reference values of regression/references.yaml.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

#include "tests/app/run_program.hpp"

namespace cyclocc::app_test {

namespace fs = std::filesystem;

inline const char* kWaterCase = "h2o_sto3g_rhf";

// The reference value of `quantity` for run `id` in regression/references.yaml.
inline double reference_value(const std::string& id, const std::string& quantity) {
  const YAML::Node refs = YAML::LoadFile(std::string(CYCLOCC_SOURCE_DIR) + "/regression/references.yaml");
  for (const auto& run : refs["runs"])
    if (run["id"].as<std::string>() == id) return run["quantities"][quantity]["value"].as<double>();
  throw std::runtime_error("no reference " + id + "/" + quantity);
}

// The number after `label` at the start of a line of the log (the first
// such line).
inline double logged_number(const std::string& log, const std::string& label) {
  const auto at = log.rfind(label, 0) == 0 ? 0 : log.find("\n" + label);
  if (at == std::string::npos) throw std::runtime_error("no line starting '" + label + "' in the log");
  return std::stod(log.substr(at + (at == 0 ? 0 : 1) + label.size()));
}

class ProgramTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("cyclocc_app_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);  // kept for inspection on failure
  }

  // Writes NAME.yaml: the water STO-3G case with cc.method none, then `edit`.
  fs::path water_input(const std::string& name,
                       const std::function<void(YAML::Node&)>& edit = [](YAML::Node&) {}) const {
    return case_input(name, kWaterCase, [&](YAML::Node& in) {
      in["cc"]["method"] = "none";
      edit(in);
    });
  }

  // NAME.yaml from regression/cases/CASE.yaml with cc.method ccsd, then `edit`.
  fs::path case_input(const std::string& name, const std::string& case_id,
                      const std::function<void(YAML::Node&)>& edit = [](YAML::Node&) {}) const {
    YAML::Node in = YAML::LoadFile(std::string(CYCLOCC_SOURCE_DIR) + "/regression/cases/" + case_id + ".yaml");
    in["cc"]["method"] = "ccsd";
    edit(in);
    YAML::Emitter out;
    out << in;
    const fs::path file = dir_ / (name + ".yaml");
    write_text(file, std::string(out.c_str()) + "\n");
    return file;
  }

  ProgramRun cyclocc(std::vector<std::string> args, int ranks = 0) const {
    args.insert(args.begin(), CYCLOCC_EXE);
    return run_program(args, dir_, ranks);
  }

  YAML::Node results(const std::string& name) const { return YAML::LoadFile((dir_ / name).string()); }
  fs::path path(const std::string& name) const { return dir_ / name; }

  fs::path dir_;
};

// Holds an exclusive flock on `file` (created if need be) with `text` in it,
// as a run holds its checkpoint's lock; returns the descriptor to close to
// let go (-1 if it could not).
inline int hold_lock(const fs::path& file, const std::string& text) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT, 0644);
  if (fd < 0) return -1;
  if (::flock(fd, LOCK_EX) == 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()))
    return fd;
  ::close(fd);
  return -1;
}

// The program's stderr is exactly one line, which contains every one of `words`.
inline void expect_one_error_line(const ProgramRun& r, const std::vector<std::string>& words) {
  const auto lines = lines_of(r.err);
  EXPECT_EQ(lines.size(), 1u) << "stderr:\n" << r.err;
  for (const auto& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "missing '" << w << "' in: " << r.err;
}

}  // namespace cyclocc::app_test
