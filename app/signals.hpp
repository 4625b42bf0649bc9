// Stopping on a signal (DESIGN.md §8 Signals).
//
// SIGTERM, SIGINT and SIGUSR1 only set a flag; the stages look at it at their
// safe points (after a checkpoint write, once per SCF and CC iteration, and
// inside the MO transform and (T), which write nothing) through a
// StopRequest, whose requested() is collective so that every rank agrees to
// stop at the same point. mpirun turns SIGTERM/SIGINT into SIGTERM to the
// ranks (then SIGKILL a few seconds later) and forwards SIGUSR1 untouched, so
// SIGUSR1 (Slurm: --signal=B:USR1@300) is the one that leaves time to finish
// an iteration. A second SIGINT (Ctrl-C) ends the process at once.
#pragma once

#include <stdexcept>
#include <string>

#include "parallel/comm.hpp"

namespace cyclocc::app {

// Installs the handlers and lets the three signals through (unblocks them).
// main() calls it after MPI_Init (Open MPI installs handlers of its own for
// some signals while it starts); until then it holds them.
void install_signal_handlers();

// Blocks the three signals: one that arrives stays pending until
// install_signal_handlers() lets it through to the handler. main() holds
// them from its first line, while the program starts itself again
// (tensor/blas_core.hpp; the mask survives the exec, the handlers do not)
// and through MPI_Init.
void hold_stop_signals();

// Thrown at a safe point when the ranks have agreed to stop; exit code 5.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(const std::string& message) : std::runtime_error(message) {}
};

class StopRequest {
 public:
  // Collective: true on every rank if any rank has received one of the
  // signals since start (or since clear()). Remembers which signal.
  bool requested(const par::Comm& comm);
  // The signal agreed on by the last requested() that returned true (0 if none).
  int signal() const { return signal_; }
  // "SIGUSR1", "SIGTERM", ...
  std::string signal_name() const;
  // Forgets a received signal on this rank (tests; a caller that handled it).
  void clear();

 private:
  int signal_ = 0;
};

// A local, non-collective look at the flag: the signal number or 0.
int pending_signal();
// Sets the flag as the handler would (tests; synthetic stops).
void raise_stop_flag(int signal_number);

}  // namespace cyclocc::app
