// Shared helpers of the chem tests: the world communicator and libint2
// session (owned by chem_test_main.cpp), inputs built by hand, and the
// regression cases with their reference values (regression/).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "input/input.hpp"
#include "parallel/comm.hpp"

namespace cyclocc::chem_test {

const par::Comm& world();

// An input for `atoms` given as {symbol, x, y, z} in bohr.
struct AtomSpec {
  std::string symbol;
  double x, y, z;
};
input::Input make_input(const std::string& basis, const std::vector<AtomSpec>& atoms, int charge = 0,
                        int multiplicity = 1, const std::string& reference = "rhf");

// Water at the regression geometry (bohr), and a distorted copy with no symmetry.
std::vector<AtomSpec> water();
std::vector<AtomSpec> distorted_water();

std::string regression_dir();

// One run of regression/references.yaml.
struct Case {
  std::string id;
  std::string input_path;
  std::optional<double> scf_energy;
  double nuclear_repulsion = 0;
  std::optional<double> s2_psi4;  // provenance.uhf_s2.psi4
};
std::vector<Case> regression_cases();

// Parses a regression input with input::parse_input_text (see chem_test.cpp
// for the title workaround).
input::Input load_case(const std::string& input_path);

// Identity of the SCF problem of an input: cases sharing it share the SCF.
std::string scf_key(const input::Input& in);

}  // namespace cyclocc::chem_test
