// Where a checkpoint file goes (checkpoint.hpp): room for it before it is
// written, and the commit that moves it into place (fsync, rename) once it is.
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <future>
#include <string>
#include <utility>

#include "chem/checkpoint.hpp"

namespace cyclocc::chem {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw CheckpointError("checkpoint " + path + ": " + what);
}

// Bytes an unprivileged writer may still use in `folder`, or -1 if unknown.
std::int64_t free_bytes(const std::filesystem::path& folder) {
  struct statvfs st {};
  if (::statvfs(folder.empty() ? "." : folder.c_str(), &st) != 0) return -1;
  return static_cast<std::int64_t>(st.f_bavail) * static_cast<std::int64_t>(st.f_frsize);
}

// "340 kB", "12.5 MB".
std::string size_text(std::int64_t bytes) {
  char text[32];
  if (bytes < (std::int64_t{10} << 20))
    std::snprintf(text, sizeof text, "%.0f kB", static_cast<double>(bytes) / 1024.0);
  else
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1048576.0);
  return text;
}

}  // namespace

void CheckpointWriter::require_free_space(std::int64_t bytes) {
  // Collective HDF5 writes that fail on one rank leave the others waiting
  // in MPI-IO, so a full disk is found here, before any is started.
  // Rank 0's numbers, so that every rank decides alike.
  const std::int64_t slack = (std::int64_t{64} << 10) + bytes / 32;  // metadata, attributes, allocation
  const auto folder = std::filesystem::path(tmp_path_).parent_path();
  std::int64_t need_free[2] = {bytes + slack, comm_.root() ? free_bytes(folder) : 0};
  comm_.bcast(need_free, sizeof need_free, 0);
  const auto [need, available] = need_free;
  if (available >= 0 && available < need) {
    fail(path_, "not enough free space in " + (folder.empty() ? std::string(".") : folder.string()) + " (about " +
                    size_text(need) + " needed, " + size_text(available) + " free)");
  }
}

namespace {

// fsync(tmp), rename(tmp, path), fsync(folder); removes tmp if that failed.
// `keep`: a second name for the file that path held, so that the rename
// frees nothing (no link, e.g. no PATH yet: nothing is kept).
bool move_into_place(const std::string& tmp, const std::string& path, const std::string& keep) {
  int fd = ::open(tmp.c_str(), O_RDONLY);
  bool ok = fd >= 0 && ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (ok && !keep.empty()) {
    std::remove(keep.c_str());  // a stale one, of a killed run
    ::link(path.c_str(), keep.c_str());
  }
  ok = ok && std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) {
    std::remove(tmp.c_str());
    return false;
  }
  auto folder = std::filesystem::path(path).parent_path();
  int dfd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

// The second name commit(keep) gives the replaced file, or none.
std::string previous_if(CheckpointWriter::Keep keep, const std::string& path) {
  return keep == CheckpointWriter::Keep::previous ? checkpoint_previous_path(path) : "";
}

}  // namespace

void CheckpointWriter::commit(Keep keep) { start_commit(keep, {}, std::launch::deferred).finish(); }

CommitInFlight CheckpointWriter::commit_in_background(Keep keep, std::function<void()> then) {
  return start_commit(keep, std::move(then), std::launch::async);
}

CommitInFlight CheckpointWriter::start_commit(Keep keep, std::function<void()> then, std::launch when) {
  close_file();
  committed_ = true;  // from here on PATH.tmp is the commit's (it removes it if the rename fails)
  return CommitInFlight(comm_, path_, tmp_path_, previous_if(keep, path_), std::move(then), when);
}

CommitInFlight::CommitInFlight(const par::Comm& comm, std::string path, std::string tmp_path, std::string kept,
                               std::function<void()> then, std::launch when)
    : comm_(&comm), path_(std::move(path)), tmp_path_(std::move(tmp_path)) {
  if (!comm_->root()) return;
  // Only POSIX calls and `then` on the thread: no HDF5, no MPI.
  moved_ = std::async(when, [tmp = tmp_path_, path = path_, kept = std::move(kept), then = std::move(then)] {
    const bool ok = move_into_place(tmp, path, kept);
    if (ok && then) then();
    return ok;
  });
}

void CommitInFlight::finish() {
  const bool ok = !moved_.valid() || moved_.get();
  // The agreement is the barrier: no rank goes on before the rename is done.
  if (comm_->any(!ok)) fail(path_, "cannot move " + tmp_path_ + " into place");
}

}  // namespace cyclocc::chem
