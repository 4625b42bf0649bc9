#include "app/checkpoint_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace cyclocc::app {

namespace {

// "pid P on host H, started at T": what the holder writes into the file.
std::string this_run() {
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  char started[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(started, sizeof started, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
  return "pid " + std::to_string(::getpid()) + " on host " + host + ", started at " + started;
}

// What the holder wrote (first line, at most 200 bytes), or "".
std::string holder_of(int fd) {
  char text[201] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string s(text, n > 0 ? static_cast<std::size_t>(n) : 0);
  return s.substr(0, s.find('\n'));
}

bool same_inode(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

}  // namespace

std::string checkpoint_lock_path(const std::string& checkpoint) { return checkpoint + ".lock"; }

CheckpointLock::CheckpointLock(const std::string& checkpoint, std::string& warning)
    : path_(checkpoint_lock_path(checkpoint)) {
  using chem::CheckpointError;
  for (int attempt = 0; attempt < 10; ++attempt) {
    // A link (never followed) or another kind of file at the name is removed.
    struct stat st {};
    if (::lstat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) ::unlink(path_.c_str());
    // Another user's lock file cannot be opened to write; it can be locked
    // all the same, and is replaced once it is found stale (below).
    bool ours = true;
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ < 0 && errno == EACCES) {
      fd_ = ::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      ours = false;
    }
    if (fd_ < 0)
      throw CheckpointError(path_ + ": the checkpoint's lock cannot be created (" + std::strerror(errno) + ")");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      const std::string holder = holder_of(fd_);
      ::close(fd_);
      fd_ = -1;
      if (e == EWOULDBLOCK)
        throw CheckpointInUse("checkpoint " + checkpoint + " is in use by another run (" +
                              (holder.empty() ? "it has just started" : holder) + ", holding " + path_ +
                              "); wait for it to end or stop it: two runs must not write one checkpoint");
      warning = "checkpoint: " + path_ + " cannot be locked here (" + std::strerror(e) +
                "), so nothing keeps a second run from writing " + checkpoint + " at the same time";
      return;
    }
    // Held. The file is used if it is still at the name (the run that held
    // it may have removed it between our open and our lock), has no other
    // name (a hard link of a user's file is not written into) and can be
    // written; a stale file that fails the last two is replaced.
    struct stat mine {}, now {};
    const bool at_name = ::fstat(fd_, &mine) == 0 && ::lstat(path_.c_str(), &now) == 0 && same_inode(mine, now);
    if (at_name && ours && mine.st_nlink == 1) {
      const std::string text = this_run() + "\n";
      const bool written = ::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, text.data(), text.size(), 0) > 0;
      (void)written;  // without it, only another run's refusal lacks the details
      return;
    }
    const int removed = at_name ? ::unlink(path_.c_str()) : 0, e = errno;
    ::close(fd_);
    fd_ = -1;
    if (removed != 0)
      throw CheckpointError(path_ + ": the stale lock file of an earlier run cannot be replaced (" +
                            std::strerror(e) + "); remove it");
  }
  throw CheckpointError(path_ + ": the checkpoint's lock kept being replaced by other runs");
}

CheckpointLock::~CheckpointLock() {
  if (fd_ < 0) return;
  // Removed while still held (see the constructor), and only if the name is
  // still this file: one removed by hand and since taken by another run stays.
  struct stat mine {}, now {};
  if (::fstat(fd_, &mine) == 0 && ::lstat(path_.c_str(), &now) == 0 && same_inode(mine, now))
    ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace cyclocc::app
