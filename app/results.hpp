// The results file: a QCSchema AtomicResult (DESIGN.md §3), written by rank 0
// on success and on failure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/json.hpp"

namespace cyclocc::input {
struct Input;
}

namespace cyclocc::app {

// The error_type values of the contract.
namespace error_type {
inline constexpr const char* kInput = "input_error";
inline constexpr const char* kConvergence = "convergence_error";
inline constexpr const char* kCheckpoint = "checkpoint_error";
inline constexpr const char* kInterrupted = "interrupted";
inline constexpr const char* kRuntime = "runtime_error";
}  // namespace error_type

struct ResultsError {
  std::string type;      // one of error_type::*
  std::string message;   // one line
};

// Everything the results file says, filled in stage by stage.
class Results {
 public:
  Results(std::string version, int ranks);

  // model, molecule and the keywords the input sets, from the validated input.
  void set_input(const input::Input& in);
  // keywords.NAME: how the run was done where the input leaves it to the
  // program (puream, the frozen orbitals), once known.
  void set_keyword(const std::string& name, json::Value value);

  // properties.NAME, in the order first set (QCSchema property names).
  void set_property(const std::string& name, double value);
  void set_property(const std::string& name, int value);
  bool has_property(const std::string& name) const { return properties_.find(name) != nullptr; }

  // extras.timings.NAME in seconds, or a list of per-iteration seconds.
  void set_timing(const std::string& name, double seconds);
  void set_timing(const std::string& name, const std::vector<double>& seconds);
  // extras.timings.NAME if it is a number.
  std::optional<double> timing(const std::string& name) const;
  // extras.NAME (program-specific data other than timings).
  void set_extra(const std::string& name, json::Value value);

  // return_result and return_energy: the total energy of the requested method.
  void set_return_energy(double e) { return_energy_ = e; }
  // Marks the run failed (success false, error {error_type, error_message}).
  // The first error set is kept: later ones are consequences.
  void set_error(const std::string& type, const std::string& message);
  bool success() const { return !error_; }
  const std::optional<ResultsError>& error() const { return error_; }

  json::Value to_json() const;

 private:
  std::string version_;
  int ranks_;
  std::string method_;
  std::string basis_;
  std::vector<std::string> symbols_;
  std::vector<double> geometry_;   // flat x y z per atom, bohr
  int charge_ = 0;
  int multiplicity_ = 1;
  json::Value keywords_ = json::Value::object();
  json::Value properties_ = json::Value::object();
  json::Value timings_ = json::Value::object();
  json::Value extras_ = json::Value::object();
  std::optional<double> return_energy_;
  std::optional<ResultsError> error_;
};

// Writes text to path atomically: a temporary file in the same folder,
// flushed to disk, then renamed over path. A path that is a symbolic link
// replaces the file it points to (rename_target), and an existing file that
// is not a regular one (/dev/null) is written through. Throws
// std::runtime_error with a one-line message naming the file.
void write_file_atomically(const std::string& path, const std::string& text);

// Whether write_file_atomically writes path through rather than replacing
// it: an existing file that is not a regular one (/dev/null, a pipe), links
// followed.
bool written_through(const std::string& path);

// The file a write-then-rename of path replaces: the file a symbolic link
// points to (followed to the end), else path itself.
std::string rename_target(const std::string& path);

}  // namespace cyclocc::app
