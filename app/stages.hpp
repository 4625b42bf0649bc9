// The stages of a calculation, each a function from typed results to typed
// results (DESIGN.md §1). The driver (driver.cpp) calls them in order, each
// inside an agreement step, so an exception thrown on any rank ends the run
// cleanly on every rank with the documented exit code.
//
// Where the correlated methods plug in: stage_correlated() below. The MO
// transform and the CC methods each get a function here of the same shape:
//   MoIntegrals stage_motransform(RunContext&, const input::Input&,
//                                 const chem::Basis&, const chem::ScfResult&);
//   CcResult    stage_cc(RunContext&, const input::Input&,
//                        const chem::ScfResult&, const MoIntegrals&);
// A stage records what it computed in ctx.results (QCSchema property names,
// extras.timings.*), throws ConvergenceError when it does not converge,
// checkpoints through chem::CheckpointWriter, and after each checkpoint
// calls ctx.stop_point(checkpoint) so a signal ends the run with exit code 5.
// Solvers below app/ do not see StopRequest: pass them
//   [&] { return ctx.stop.requested(ctx.comm); }
// as a plain callback.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "app/cli.hpp"
#include "app/results.hpp"
#include "app/signals.hpp"
#include "chem/basis.hpp"
#include "chem/scf.hpp"
#include "input/input.hpp"
#include "parallel/comm.hpp"
#include "parallel/log.hpp"

namespace cyclocc::app {

// Wall-clock seconds since construction.
class Stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// What every stage may use: the communicator, the log, the stop flag, the
// results being filled in, and the resolved file names.
struct RunContext {
  const par::Comm& comm;
  par::Log log;
  StopRequest& stop;
  Results results;
  bool restart = false;
  std::string json_path;        // empty until known
  std::string checkpoint_path;  // empty until the input is read

  // A safe point after `what` (e.g. "the SCF checkpoint") was written:
  // throws Interrupted on every rank if any rank received a stop signal.
  void stop_point(const std::string& what);
  // A safe point inside a stage that adds nothing to the checkpoint (e.g.
  // "the MO transform"): reports the stop and throws Interrupted likewise.
  void stop_point_during(const std::string& stage);
};

// Reads and validates the input file (every rank; errors are deterministic).
input::Input stage_input(const std::string& path);

// SCF: restarted from the checkpoint (--restart and a matching checkpoint),
// or computed and then checkpointed. Throws ConvergenceError if the SCF does
// not converge (the last energy is in the results), CheckpointError for a
// checkpoint that does not match or is damaged.
chem::ScfResult stage_scf(RunContext& ctx, const input::Input& in, const chem::Basis& basis);

// Writes output.molden if the input asks for it.
void stage_molden(RunContext& ctx, const input::Input& in, const chem::Basis& basis,
                  const chem::ScfResult& scf);

// The correlated method of cc.method (none: nothing to do).
void stage_correlated(RunContext& ctx, const input::Input& in, const chem::Basis& basis,
                      const chem::ScfResult& scf);

}  // namespace cyclocc::app
