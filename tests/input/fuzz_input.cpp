// libFuzzer target for parse_input_text and the xyz reader (built and run by
// run_fuzz.sh). Every input is given to both.
//
// Only InputError may leave the parser: any other exception escapes this
// function and libFuzzer reports it, as it does crashes, leaks and hangs.
// On success the result must satisfy the invariants the rest of cyclocc
// relies on; otherwise the target aborts.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "input/geometry.hpp"
#include "input/input.hpp"

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

void check_invariants(const cyclocc::input::Input& in) {
  const auto& m = in.molecule;
  require(!m.atoms.empty());
  for (const auto& atom : m.atoms) {
    require(atom.Z >= 1 && atom.Z <= 86);
    for (double x : atom.xyz) require(std::isfinite(x));
  }
  const int electrons = m.n_electrons();
  require(electrons >= 0 && m.multiplicity >= 1 && m.multiplicity <= electrons + 1);
  require((electrons + m.multiplicity - 1) % 2 == 0);
  require(in.scf.reference == "uhf" || (in.scf.reference == "rhf" && m.multiplicity == 1));
  require(in.scf.convergence > 0 && in.cc.convergence > 0);
  require(in.scf.max_iterations >= 1 && in.cc.max_iterations >= 1);
  require(in.scf.diis >= 0 && in.cc.diis >= 0 && in.checkpoint.interval >= 1);
  require(in.cc.frozen_core.count >= 0 && in.cc.frozen_core.count <= m.n_beta());
  require(!in.basis.empty() && !in.checkpoint.file.empty() && !in.output.json.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // A folder that does not exist, so relative file names resolve to nothing.
    check_invariants(cyclocc::input::parse_input_text(text, "/nonexistent-cyclocc-fuzz/in.yaml"));
  } catch (const cyclocc::input::InputError& e) {
    const std::string message = e.what();
    require(!message.empty() && message.find('\n') == std::string::npos);
  }
  try {
    const auto list = cyclocc::input::detail::parse_xyz_text(text, "fuzz.xyz", "molecule.xyz");
    require(!list.atoms.empty() && list.atoms.size() == list.lines.size());
    for (const auto& atom : list.atoms)
      for (double x : atom.xyz) require(std::isfinite(x));
  } catch (const cyclocc::input::InputError& e) {
    const std::string message = e.what();
    require(!message.empty() && message.find('\n') == std::string::npos);
  }
  return 0;
}
