#include "app/errors.hpp"

#include <new>

#include "app/agree.hpp"
#include "app/cli.hpp"
#include "app/results.hpp"
#include "app/signals.hpp"
#include "chem/checkpoint.hpp"
#include "input/input.hpp"

namespace cyclocc::app {

Failure classify_current_exception() {
  try {
    throw;
  } catch (const input::InputError& e) {
    return {exit_code::kInputError, error_type::kInput, one_line(e.what())};
  } catch (const CliError& e) {
    return {exit_code::kInputError, error_type::kInput, one_line(e.what())};
  } catch (const ConvergenceError& e) {
    return {exit_code::kNoConvergence, error_type::kConvergence, one_line(e.what())};
  } catch (const chem::CheckpointError& e) {
    return {exit_code::kCheckpointError, error_type::kCheckpoint, one_line(e.what())};
  } catch (const Interrupted& e) {
    return {exit_code::kInterrupted, error_type::kInterrupted, one_line(e.what())};
  } catch (const std::bad_alloc&) {
    return {exit_code::kFailure, error_type::kRuntime, "out of memory"};
  } catch (const std::exception& e) {
    return {exit_code::kFailure, error_type::kRuntime, one_line(e.what())};
  } catch (...) {
    return {exit_code::kFailure, error_type::kRuntime, "unknown internal error"};
  }
}

void agree(const par::Comm& comm, const std::optional<Failure>& mine) {
  const std::int64_t size = comm.size();
  // The lowest failing rank r contributes size - r, the largest such value.
  const std::int64_t first = size - comm.allreduce_max(mine ? size - comm.rank() : std::int64_t{0});
  if (first == size) return;
  Failure f = mine ? *mine : Failure{};
  const int who = static_cast<int>(first);
  comm.bcast(&f.code, sizeof f.code, who);
  comm.bcast(f.type, who);
  comm.bcast(f.message, who);
  throw AgreedFailure{f};
}

std::string one_line(const std::string& message) {
  std::string s = message;
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s.empty() ? "unknown error" : s;
}

}  // namespace cyclocc::app
