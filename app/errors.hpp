// Exit codes (DESIGN.md §3) and the failures the driver maps onto them.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace cyclocc::app {

namespace exit_code {
inline constexpr int kSuccess = 0;
inline constexpr int kFailure = 1;          // anything else (runtime_error)
inline constexpr int kInputError = 2;       // input_error
inline constexpr int kNoConvergence = 3;    // convergence_error
inline constexpr int kCheckpointError = 4;  // checkpoint_error
inline constexpr int kInterrupted = 5;      // interrupted (after a checkpoint was written)
}  // namespace exit_code

// A stage ended without converging (SCF, CC); exit code 3.
class ConvergenceError : public std::runtime_error {
 public:
  explicit ConvergenceError(const std::string& message) : std::runtime_error(message) {}
};

// The input asks for something this build cannot do yet; exit code 1.
class NotImplemented : public std::runtime_error {
 public:
  explicit NotImplemented(const std::string& message) : std::runtime_error(message) {}
};

// How a failure is reported: exit code, QCSchema error_type, one-line message.
struct Failure {
  int code = exit_code::kFailure;
  std::string type;
  std::string message;
};

// Classifies the exception being handled (call inside a catch block):
// input::InputError and CliError -> 2, ConvergenceError -> 3,
// chem::CheckpointError -> 4, Interrupted -> 5, anything else -> 1.
Failure classify_current_exception();

// The message as one line: newlines and tabs become spaces, trailing blanks go.
std::string one_line(const std::string& message);

}  // namespace cyclocc::app
