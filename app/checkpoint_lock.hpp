// One run per checkpoint at a time. Rank 0 holds an advisory lock (flock) on
// CHECKPOINT.lock, beside the checkpoint, from before the run writes anything
// until it ends. A second run with the same checkpoint (a job requeued while
// the ranks of the first still run, after a kill -9 of mpirun; two jobs of one
// input) is refused instead of writing the same file (docs/checkpoint.md).
// The kernel drops the lock when its process dies, so a file a killed run
// leaves behind is taken over by the next one.
#pragma once

#include <string>

#include "chem/checkpoint.hpp"

namespace cyclocc::app {

// CHECKPOINT.lock.
std::string checkpoint_lock_path(const std::string& checkpoint);

// Another run holds the lock (exit 4, and no results file: it is the other run's).
class CheckpointInUse : public chem::CheckpointError {
 public:
  using chem::CheckpointError::CheckpointError;
};

class CheckpointLock {
 public:
  // Takes the lock of `checkpoint` (the path the checkpoint is renamed to).
  // Throws CheckpointInUse if another process holds it, naming that run (its
  // process, host and start, as it wrote them into the file), and
  // chem::CheckpointError if the file cannot be made (exit 4 both). Where the
  // file system has no locks (some network file systems), runs without one
  // and sets `warning`.
  CheckpointLock(const std::string& checkpoint, std::string& warning);
  // Removes the file if its name is still this file's, then lets go.
  ~CheckpointLock();
  CheckpointLock(const CheckpointLock&) = delete;
  CheckpointLock& operator=(const CheckpointLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace cyclocc::app
