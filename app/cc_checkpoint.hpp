// Checkpoints and restart of the coupled-cluster iterations (layout:
// docs/checkpoint.md; rules: DESIGN.md §8 Checkpoints and Signals).
//
// Each CC method ("ccsd", "ccsdt") owns a group of the checkpoint file: the
// amplitudes (every spin block of T1, T2 and, for CCSDT, T3, each a 1-D
// dataset in canonical packed order written from the ranks' slabs, so no rank
// holds more than its share and any rank count can read them back), how far
// the iterations got, and the orbital spaces the amplitudes belong to. Every
// write is a whole new file (identity, SCF, the groups of the other methods of
// this run copied from the current file, then this method's group) committed
// atomically by chem::CheckpointWriter.
//
// The DIIS history is not stored: a restart extrapolates afresh from the
// stored amplitudes, which costs a few iterations, and keeps the file at one
// set of amplitudes per method instead of 2 x cc.diis sets.
//
// Everything here is collective over ctx.comm; failures are CheckpointError
// (exit 4) thrown on every rank alike.
#pragma once

#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/stages.hpp"
#include "chem/checkpoint.hpp"
#include "chem/cc/solver.hpp"
#include "chem/motransform.hpp"

namespace cyclocc::app {

// How far a method's iterations got.
struct CcProgress {
  int iteration = 0;       // iterations done, those of earlier runs included
  double energy = 0;       // correlation energy after them
  double delta_e = 0;      // the last iteration's energy change
  double delta_t = 0;      // and the 2-norm of its amplitude change
  bool converged = false;  // by the threshold of the current run (see stored())
};

// The orbital spaces amplitudes belong to: stored amplitudes are reused only
// where these match the run's (otherwise they start fresh, DESIGN.md §8).
struct AmplitudeSpace {
  std::array<int, 2> frozen{0, 0};  // alpha, beta
  std::array<int, 2> occ{0, 0};     // active occupied
  std::array<int, 2> vir{0, 0};
  bool restricted = false;          // closed-shell spin layer (RHF)
  bool operator==(const AmplitudeSpace&) const = default;
};

AmplitudeSpace amplitude_space(const chem::ActiveSpace& space, bool restricted);

// The CC methods whose groups a run of cc.method iterates, in order:
// ccsd, ccsd(t): {ccsd}; ccsdt: {ccsd, ccsdt}; none, mp2: {}.
std::vector<std::string> cc_methods(const std::string& method);

class CcCheckpoint {
 public:
  CcCheckpoint(RunContext& ctx, const input::Input& in, const chem::Basis& basis, const chem::ScfResult& scf,
               const AmplitudeSpace& space);
  // Removes the replaced checkpoint that the saves keep (PATH.prev).
  ~CcCheckpoint();
  CcCheckpoint(const CcCheckpoint&) = delete;
  CcCheckpoint& operator=(const CcCheckpoint&) = delete;

  // --restart: finds the groups of `methods` in the checkpoint, refuses
  // (CheckpointError) groups that are damaged (every dataset's checksum is
  // verified here) or belong to another SCF, and prints why a group of other
  // orbital spaces is left out (those amplitudes start fresh and the group
  // is dropped at the next write). Reads only; the file stays untouched.
  void load(const std::vector<std::string>& methods);

  // The progress stored for `method` (after load() or save()), with
  // `converged` judged by this run's cc.convergence on the stored |dE| and
  // |dT|; nothing if there are no usable amplitudes.
  std::optional<CcProgress> stored(const std::string& method) const;

  // Reads the stored amplitudes of `method` into t, at this run's rank count.
  // A T3 of t that the group does not have (CCSD amplitudes seeding CCSDT)
  // is set to zero.
  void restore(const std::string& method, cc::Amplitudes& t) const;

  // Writes the whole checkpoint with `method`'s amplitudes t and progress,
  // keeping the stored groups of the other methods. From the second call on
  // it starts from a copy of the file it committed last (or, when the last
  // save was of the same method, from the file that one replaced, which
  // differs only in this method's group) and overwrites only this method's
  // group. Returns the seconds taken, and calls done(those seconds) once the
  // file is in place. With Commit::background the ranks go on meanwhile:
  // rank 0 moves the file into place (fsync, rename: milliseconds, a good
  // part of a small CC iteration) on a thread of its own and calls done
  // there; the next save(), or finish(), waits for it.
  enum class Commit { now, background };
  double save(const std::string& method, const cc::Amplitudes& t, const CcProgress& progress,
              Commit commit = Commit::now, const std::function<void(double)>& done = {});
  // Waits for a save's background commit, if one is in flight. Collective.
  void finish();

  const std::string& path() const { return ctx_.checkpoint_path; }

 private:
  RunContext& ctx_;
  const input::Input& in_;
  const chem::Basis& basis_;
  const chem::ScfResult& scf_;
  AmplitudeSpace space_;
  std::map<std::string, CcProgress> stored_;  // groups in the file usable by this run
  bool saved_ = false;                        // this run has committed the file (save() starts from a copy)
  // The method whose group alone PATH.prev (the file the last save replaced)
  // differs in: the next save of it starts from PATH.prev instead of a copy.
  std::optional<std::string> previous_differs_in_;
  std::optional<chem::CheckpointAccess> access_;  // made at the first save, kept for the others
  std::optional<chem::CommitInFlight> in_flight_;  // a save's commit still running (Commit::background)
  double write_seconds_ = 0;                  // all saves, for extras.timings.cc_checkpoint
};

// Watches a method's |dT| for amplitudes that run away, so that the log
// says so iterations before they overflow (cc::solve stops a method at its
// first iteration that is not finite): |dT| grown at each of the last
// kRises iterations, to above kDeltaT. A converging run changes its
// amplitudes by far less than 1 (|T| itself is about 0.1-0.5 where one
// reference describes the molecule), and DIIS seldom lets |dT| grow three
// times running.
class RunawayWatch {
 public:
  static constexpr int kRises = 3;
  static constexpr double kDeltaT = 1.0;
  // Takes the next iteration's |dT|; true once, at the first that shows it.
  bool runs_away(double delta_t);

 private:
  double last_ = 0;
  int rises_ = -1;  // none before the first iteration
  bool told_ = false;
};

// The iterations of one method ("ccsd", "ccsdt") with checkpoints: resumes
// from the stored amplitudes if there are any (counting on from their
// iteration; cc.max_iterations bounds the total), returns them at once if
// they are converged, writes the checkpoint every checkpoint.interval
// iterations and always after the last one, and on a stop request (signal)
// writes it at once, reports it and returns with `stopped` set. t holds the
// guess on entry and the latest amplitudes on return.
cc::SolverResult iterate_with_checkpoints(RunContext& ctx, const input::Input& in, CcCheckpoint& ckpt,
                                          const std::string& method, const cc::Equations& eq,
                                          const cc::MoIntegrals& mo, cc::Amplitudes& t);

// Whether an energy is printed with an exponent: one that has run away (a
// diverging CC) from 1e9 on, which fixed notation would cut short.
inline bool printed_with_exponent(double energy) { return !(std::abs(energy) < 1e9); }

// The one-line message of the Interrupted error after `method` stopped.
std::string interrupted_message(const RunContext& ctx, const std::string& method, int iteration);

// A method's name as printed: "ccsd" -> "CCSD".
std::string method_label(const std::string& method);

// The result of a method whose stored amplitudes need no more iterations
// (converged, or cc.max_iterations used up).
cc::SolverResult stored_result(const CcProgress& p);

// A safe point between two methods (the first one's amplitudes are in the
// checkpoint): on a stop request, reports it and throws Interrupted.
void stop_after_method(RunContext& ctx, const std::string& method, int iteration);

}  // namespace cyclocc::app
