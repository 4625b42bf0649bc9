// Fixture for the CC checkpoint/restart tests of the cyclocc binary: inputs
// from any regression case with the CC settings the tests need, and a look
// into the checkpoint's CC groups.
#pragma once

#include <hdf5.h>

#include <cmath>
#include <cstdint>

#include "tests/app/background_run.hpp"
#include "tests/app/program_fixture.hpp"

namespace cyclocc::app_test {

class RestartTest : public ProgramTest {
 protected:
  // Attribute `name` of group `group` of a checkpoint (read with serial HDF5).
  static double attribute(const fs::path& file, const char* group, const char* name) {
    double v = std::nan("");
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return v;
    if (H5Aexists_by_name(f, group, name, H5P_DEFAULT) > 0) {
      hid_t a = H5Aopen_by_name(f, group, name, H5P_DEFAULT, H5P_DEFAULT);
      H5Aread(a, H5T_NATIVE_DOUBLE, &v);
      H5Aclose(a);
    }
    H5Fclose(f);
    return v;
  }
  // The CCSD iteration stored in a checkpoint (-1 if there is none).
  static int stored_ccsd_iteration(const fs::path& file) {
    const double v = attribute(file, "/ccsd", "iteration");
    return std::isnan(v) ? -1 : static_cast<int>(v);
  }

  // From a results file: ccsd_total_energy, ccsd_iterations, and the number
  // of iterations this invocation ran (extras.timings.cc_iterations).
  struct CcsdRun {
    double energy = 0;
    int iterations = 0;
    int this_run = 0;
  };
  CcsdRun ccsd_run(const std::string& json) const {
    const YAML::Node j = results(json);
    return {j["properties"]["ccsd_total_energy"].as<double>(), j["properties"]["ccsd_iterations"].as<int>(),
            static_cast<int>(j["extras"]["timings"]["cc_iterations"].size())};
  }
};

// Flips two bytes inside the raw data of `dataset` (so only the checksum can tell).
inline void corrupt_dataset(const fs::path& file, const char* dataset) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  ASSERT_GE(d, 0);
  const haddr_t offset = H5Dget_offset(d);
  const hsize_t bytes = H5Dget_storage_size(d);
  H5Dclose(d);
  H5Fclose(f);
  ASSERT_NE(offset, HADDR_UNDEF);
  ASSERT_GT(bytes, 16u);
  std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
  io.seekp(static_cast<std::streamoff>(offset + bytes / 2));
  io.write("\x55\xaa", 2);
}

}  // namespace cyclocc::app_test
