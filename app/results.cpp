#include "app/results.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "input/input.hpp"

namespace cyclocc::app {

Results::Results(std::string version, int ranks) : version_(std::move(version)), ranks_(ranks) {}

void Results::set_input(const input::Input& in) {
  method_ = in.cc.method;
  basis_ = in.basis;
  symbols_.clear();
  geometry_.clear();
  for (const auto& atom : in.molecule.atoms) {
    symbols_.push_back(atom.symbol);
    geometry_.insert(geometry_.end(), atom.xyz.begin(), atom.xyz.end());
  }
  charge_ = in.molecule.charge;
  multiplicity_ = in.molecule.multiplicity;
  keywords_ = json::Value::object();
  keywords_.set("reference", in.scf.reference);
  keywords_.set("scf_convergence", in.scf.convergence);
  if (in.cc.method != "none") keywords_.set("cc_convergence", in.cc.convergence);
}

void Results::set_keyword(const std::string& name, json::Value value) { keywords_.set(name, std::move(value)); }

void Results::set_property(const std::string& name, double value) { properties_.set(name, value); }
void Results::set_property(const std::string& name, int value) { properties_.set(name, value); }

void Results::set_timing(const std::string& name, double seconds) { timings_.set(name, seconds); }
void Results::set_timing(const std::string& name, const std::vector<double>& seconds) {
  timings_.set(name, json::Value::array_of(seconds));
}

std::optional<double> Results::timing(const std::string& name) const {
  const json::Value* t = timings_.find(name);
  return t ? t->number() : std::nullopt;
}

void Results::set_extra(const std::string& name, json::Value value) {
  if (name == "timings") throw std::logic_error("results: use set_timing for extras.timings");
  extras_.set(name, std::move(value));
}

void Results::set_error(const std::string& type, const std::string& message) {
  if (!error_) error_ = ResultsError{type, message};
}

json::Value Results::to_json() const {
  using json::Value;
  Value root = Value::object();
  root.set("schema_name", "qcschema_output");
  root.set("schema_version", 1);
  root.set("driver", "energy");
  Value& model = root.set("model", Value::object());
  model.set("method", method_);
  model.set("basis", basis_);
  root.set("keywords", keywords_);
  Value& mol = root.set("molecule", Value::object());
  mol.set("symbols", Value::array_of(symbols_));
  mol.set("geometry", Value::array_of(geometry_));
  mol.set("molecular_charge", charge_);
  mol.set("molecular_multiplicity", multiplicity_);
  root.set("success", success());
  Value energy = return_energy_ ? Value(*return_energy_) : Value();
  root.set("return_result", energy);
  root.set("return_energy", energy);
  Value& prov = root.set("provenance", Value::object());
  prov.set("creator", "cyclocc");
  prov.set("version", version_);
  prov.set("ranks", ranks_);
  root.set("properties", properties_);
  Value extras = extras_;
  extras.set("timings", timings_);
  root.set("extras", extras);
  if (error_) {
    Value& err = root.set("error", Value::object());
    err.set("error_type", error_->type);
    err.set("error_message", error_->message);
  } else {
    root.set("error", Value());
  }
  return root;
}

namespace {

[[noreturn]] void fail(const std::string& path, const char* what) {
  throw std::runtime_error("cannot write " + path + ": " + what + " (" + std::strerror(errno) + ")");
}

// All of text to fd; false (errno set) if a write fails.
bool write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Writes text into an existing file that is not a regular one (/dev/null, a
// pipe): nothing to replace atomically. A pipe nobody reads is an error, not
// a wait (the other ranks would wait too).
void write_through(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
  if (fd < 0) fail(path, errno == ENXIO ? "open (no reader on the pipe)" : "open");
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // a reader is there: writes may wait for it
  if (!write_all(fd, text)) {
    ::close(fd);
    fail(path, "write");
  }
  ::close(fd);
}

void fsync_folder(const std::filesystem::path& folder) {
  int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // best effort: the rename itself has happened
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::string rename_target(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  // Link by link (a link to a file not made yet is followed too), at most as
  // many as Linux follows. Not normalized: "dir/../x" is for the kernel to
  // resolve, as dir may itself be a link.
  for (int hops = 0; fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    const fs::path to = fs::read_symlink(p, ec);
    if (ec || hops == 40)
      throw std::runtime_error("cannot write " + path + ": too many levels of symbolic links, or an unreadable one");
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  return p.string();
}

bool written_through(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  return std::filesystem::exists(st) && !std::filesystem::is_regular_file(st);
}

void write_file_atomically(const std::string& named, const std::string& text) {
  namespace fs = std::filesystem;
  if (written_through(named)) return write_through(named, text);
  // A link stays a link: the file it points to is replaced.
  const std::string path = rename_target(named);
  const fs::path target(path);
  const std::string tmp = path + ".tmp";
  // A stale PATH.tmp, or a link of that name, is removed (never written
  // through: a link there would lead the text into another file).
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
  if (fd < 0) fail(named, "open");
  if (!write_all(fd, text)) {
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(named, "write");
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    fail(path, "fsync");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    fail(path, "rename");
  }
  fsync_folder(target.parent_path());
}

}  // namespace cyclocc::app
