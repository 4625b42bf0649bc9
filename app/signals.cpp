#include "app/signals.hpp"

#include <csignal>
#include <cstring>

namespace cyclocc::app {

namespace {

// The single unavoidable global of the program: a signal handler can only
// communicate through a static object of type volatile sig_atomic_t (C++
// [support.signal]). It holds the number of the last signal received, or 0.
// Nothing else reads it directly: StopRequest::requested() turns it into a
// decision all ranks agree on.
volatile std::sig_atomic_t g_received_signal = 0;

extern "C" void on_stop_signal(int signal_number) { g_received_signal = signal_number; }

void install(int signal_number, int extra_flags) {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: file and MPI I/O in progress are resumed, not failed with EINTR.
  action.sa_flags = SA_RESTART | extra_flags;
  sigaction(signal_number, &action, nullptr);
}

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

void install_signal_handlers() {
  install(SIGTERM, 0);
  install(SIGUSR1, 0);
  // SA_RESETHAND: a second Ctrl-C gets the default action and ends the run now.
  install(SIGINT, SA_RESETHAND);
  const sigset_t set = stop_signals();
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

void hold_stop_signals() {
  const sigset_t set = stop_signals();
  sigprocmask(SIG_BLOCK, &set, nullptr);
}

int pending_signal() { return static_cast<int>(g_received_signal); }

void raise_stop_flag(int signal_number) { g_received_signal = signal_number; }

bool StopRequest::requested(const par::Comm& comm) {
  // Max over ranks: the agreed signal is the same number on every rank.
  auto agreed = comm.allreduce_max(static_cast<std::int64_t>(g_received_signal));
  if (agreed != 0) signal_ = static_cast<int>(agreed);
  return agreed != 0;
}

std::string StopRequest::signal_name() const {
  switch (signal_) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGUSR1: return "SIGUSR1";
    case 0: return "no signal";
    default: return "signal " + std::to_string(signal_);
  }
}

void StopRequest::clear() {
  g_received_signal = 0;
  signal_ = 0;
}

}  // namespace cyclocc::app
