// Agreement on failures across ranks: a step either succeeds on every rank or
// fails on every rank with the same exit code and message, so no rank is left
// waiting in a collective and only rank 0 needs to report.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>

#include "app/errors.hpp"
#include "parallel/comm.hpp"

namespace cyclocc::app {

// A failure every rank has agreed on (thrown on all ranks at once).
struct AgreedFailure {
  Failure failure;
};

// Collective. If any rank passes a failure, every rank throws AgreedFailure
// carrying the failure of the lowest-numbered failing rank.
void agree(const par::Comm& comm, const std::optional<Failure>& mine);

// Runs `step` on every rank and agrees on its outcome: either every rank
// returns its result, or every rank throws the same AgreedFailure. `step`
// must not leave a rank inside a collective call when it throws: throw
// before or after collectives (user errors are deterministic, so they are).
template <class Step>
auto agreed(const par::Comm& comm, Step&& step) {
  using R = std::invoke_result_t<Step&>;
  std::optional<Failure> failure;
  if constexpr (std::is_void_v<R>) {
    try {
      step();
    } catch (...) {
      failure = classify_current_exception();
    }
    agree(comm, failure);
  } else {
    std::optional<R> result;
    try {
      result.emplace(step());
    } catch (...) {
      failure = classify_current_exception();
    }
    agree(comm, failure);
    return std::move(*result);
  }
}

}  // namespace cyclocc::app
