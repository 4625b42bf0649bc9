// cyclocc: the program's entry point (command line in cli.hpp, the run in
// driver.hpp). Every rank runs main(); only rank 0 prints.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/driver.hpp"
#include "app/errors.hpp"
#include "app/signals.hpp"
#include "chem/libint_session.hpp"
#include "parallel/comm.hpp"
#include "tensor/blas_core.hpp"

#ifndef CYCLOCC_VERSION
#define CYCLOCC_VERSION "unknown"
#endif

namespace {

// A last resort for an exception escaping a noexcept path: one line, no core.
[[noreturn]] void on_terminate() {
  std::fputs("cyclocc: internal error: unexpected termination\n", stderr);
  std::_Exit(cyclocc::app::exit_code::kFailure);
}

int dispatch(const cyclocc::par::Comm& world, const std::vector<std::string>& args) {
  using namespace cyclocc::app;
  try {
    const CommandLine cl = parse_command_line(args);
    if (cl.action == CliAction::Help) {
      if (world.root()) std::fputs(usage_text().c_str(), stdout);
      return exit_code::kSuccess;
    }
    if (cl.action == CliAction::Version) {
      if (world.root()) std::printf("cyclocc %s\n", CYCLOCC_VERSION);
      return exit_code::kSuccess;
    }
    StopRequest stop;
    return run(world, cl.options, stop);
  } catch (...) {
    // Only the command line throws here (run() never does); it is the same
    // on every rank, so every rank gets here.
    const Failure f = classify_current_exception();
    if (world.root()) std::fprintf(stderr, "cyclocc: error: %s\n", f.message.c_str());
    try {
      report_command_line_failure(world, files_named(args), f.type, f.message);
    } catch (...) {
      // (out of memory reading the line: the error above stands alone)
    }
    return f.code;
  }
}

// Tensors of tens to hundreds of megabytes are allocated and freed many times
// per iteration. By default glibc maps each from the kernel and unmaps it on
// free, so every page faults and is zeroed again on the next allocation: a
// third of the MO transform's time. Serve them from the heap and keep freed
// memory there; the peak resident size is unchanged.
void keep_freed_memory() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);  // -1: never trim (mallopt(3))
}

}  // namespace

int main(int argc, char** argv) {
  // First: it may start the program again, with OpenBLAS's kernels for this
  // processor and malloc on huge pages (tensor/blas_core.hpp); the stop
  // signals are held from here on (the mask survives the exec).
  cyclocc::app::hold_stop_signals();
  cyclocc::tensor::start_in_fitting_environment(argv, cyclocc::app::hold_stop_signals);
  keep_freed_memory();
  std::set_terminate(on_terminate);
  // The stop signals stay held (blocked: one that arrives is kept pending)
  // through MPI_Init, whose handlers would otherwise take them and whose
  // threads inherit the mask; then the handlers go in and a pending signal
  // reaches them.
  cyclocc::par::Environment env(&argc, &argv);
  cyclocc::app::install_signal_handlers();
  const cyclocc::chem::LibintSession libint;
  const std::vector<std::string> args(argv + 1, argv + argc);
  return dispatch(env.world(), args);
}
