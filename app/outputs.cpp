#include "app/outputs.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include "app/checkpoint_lock.hpp"
#include "app/results.hpp"
#include "chem/checkpoint.hpp"

namespace cyclocc::app {

namespace fs = std::filesystem;

namespace {

// What a file the run writes holds.
enum class Kind { results, checkpoint, molden };

// A file the run writes and what names it ("output.json", "--json", ...).
struct Output {
  std::string path, named_by;
  Kind kind = Kind::results;
  bool checkpoint() const { return kind == Kind::checkpoint; }  // never written through a device or pipe
  bool renamed() const { return kind != Kind::molden; }         // written beside itself and renamed
};

std::vector<Output> outputs(const input::Input& in, const CliOptions& o) {
  std::vector<Output> files{
      {o.json.value_or(in.output.json), o.json ? "--json" : "output.json"},
      {o.checkpoint.value_or(in.checkpoint.file), o.checkpoint ? "--checkpoint" : "checkpoint.file", Kind::checkpoint}};
  if (!in.output.molden.empty()) files.push_back({in.output.molden, "output.molden", Kind::molden});
  return files;
}

[[noreturn]] void refuse(const input::Input& in, const std::string& key, const std::string& what) {
  throw input::InputError(input::input_error_message(in.path, 0, key, what));
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;  // both exist
  // Absolute first: weakly_canonical leaves a relative path whose first part
  // does not exist as it is.
  auto canonical = [](const std::string& p, std::error_code& e) {
    const fs::path abs = fs::absolute(p, e);
    return e ? fs::path() : fs::weakly_canonical(abs, e);
  };
  std::error_code ea, eb;
  const fs::path x = canonical(a, ea), y = canonical(b, eb);
  return !ea && !eb && x == y;
}

namespace {

// Whether a and b name the same folder entry: links among their folders are
// followed, a link that is the entry itself is not.
bool same_entry(const std::string& a, const std::string& b) {
  auto entry = [](const std::string& p, std::error_code& e) {
    const fs::path abs = fs::absolute(p, e);
    return e ? fs::path() : fs::weakly_canonical(abs.parent_path(), e) / abs.filename();
  };
  std::error_code ea, eb;
  const fs::path x = entry(a, ea), y = entry(b, eb);
  return !ea && !eb && x == y;
}

// The files the run reads besides the input itself, and what names them.
std::vector<Output> read_files(const input::Input& in) {
  std::vector<Output> files;
  if (!in.molecule.xyz_file.empty()) files.push_back({in.molecule.xyz_file, "molecule.xyz"});
  if (in.basis_is_file) files.push_back({in.basis, "basis"});
  return files;
}

// The names f is written under before it takes its own, beside the file a
// link points to: PATH.tmp, and for the checkpoint PATH.prev too (its last
// version, kept while the next is written) and PATH.lock (held while the run
// lasts, checkpoint_lock.hpp). An existing file of such a name is the run's
// own, left by a run that stopped, and is replaced.
std::vector<std::string> working_names(const Output& f) {
  if (!f.renamed()) return {};
  std::string target = f.path;
  try {
    target = rename_target(f.path);
  } catch (const std::runtime_error&) {
    // A loop of links: refused as unwritable.
  }
  std::vector<std::string> names{target + ".tmp"};
  if (f.checkpoint()) {
    names.push_back(chem::checkpoint_previous_path(target));
    names.push_back(checkpoint_lock_path(target));
  }
  return names;
}

// A file of the run and what it is ("the input file", "the file --json names").
struct Named {
  std::string path, what;
};

// The input, the files it reads and the outputs.
std::vector<Named> files_of_the_run(const input::Input& in, const std::vector<Output>& outputs) {
  std::vector<Named> named{{in.path, "the input file"}};
  for (const Output& r : read_files(in)) named.push_back({r.path, "the file " + r.named_by + " names"});
  for (const Output& o : outputs) named.push_back({o.path, "the file " + o.named_by + " names"});
  return named;
}

// What of `named` the working name w (working_names) is, or "". What is at w
// is removed or renamed, never written through (a link) or into (a second
// name of a file: mid-commit, PATH.prev is one of PATH), so only a path
// naming that entry itself is w.
std::string working_name_clash(const std::string& w, const std::vector<Named>& named) {
  for (const Named& n : named)
    if (same_entry(w, n.path)) return n.what;
  return "";
}

// Whether a file can be created in `folder`: tried with a file of a name of
// its own, removed at once (access() lets root pass where no file can be
// made, as in /proc, and each rank tries, so the name is unique).
bool can_create_in(const fs::path& folder) {
  std::string name = (folder / ".cyclocc-probe-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return false;
  ::close(fd);
  ::unlink(name.c_str());
  return true;
}

// Why the run could not write file f where it is, or "": it is a folder, a
// checkpoint that is not a regular file (a device, a pipe), a link that
// leads nowhere, or where it is written cannot be written: the folder of the
// file a link points to for the results file and the checkpoint (written
// beside themselves and renamed), the file itself for an existing Molden file
// (written in place).
std::string unwritable(const Output& f) {
  std::error_code ec;
  const fs::file_status st = fs::status(f.path, ec);  // follows links
  if (ec && ec != std::errc::no_such_file_or_directory) return f.path + ": " + ec.message();
  if (fs::is_directory(st)) return f.path + " is a folder";
  if (written_through(f.path)) return f.checkpoint() ? f.path + " is not a regular file" : "";
  if (!f.renamed() && fs::exists(st))
    return ::access(f.path.c_str(), W_OK) == 0 ? "" : f.path + " cannot be written";
  fs::path target;
  try {
    target = rename_target(f.path);
  } catch (const std::runtime_error&) {
    return f.path + " is a loop of symbolic links";
  }
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (!fs::is_directory(folder, ec)) return "folder " + folder.string() + " of " + f.path + " does not exist";
  if (::access(folder.c_str(), W_OK | X_OK) != 0 || !can_create_in(folder))
    return "folder " + folder.string() + " of " + f.path + " cannot be written";
  return "";
}

// Whether a text starts, after a UTF-8 byte order mark and white space, as a
// results file ('{') or a Molden file ("[Molden Format]", in any case) does;
// white space alone does.
bool text_starts_as(std::istream& in, Kind kind) {
  char bom[3] = {};
  if (!in.read(bom, 3) || !std::equal(bom, bom + 3, "\xEF\xBB\xBF")) {
    in.clear();
    in.seekg(0);
  }
  char c = 0;
  while (in.get(c) && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {}
  if (!in) return true;
  if (kind == Kind::results) return c == '{';
  std::string head(1, c), rest(14, '\0');
  in.read(rest.data(), 14);
  head += rest.substr(0, static_cast<std::size_t>(in.gcount()));
  for (char& h : head) h = static_cast<char>(std::tolower(static_cast<unsigned char>(h)));
  return head == "[molden format]";
}

// Whether a file of `size` bytes has HDF5's signature at byte 0, 512, 1024,
// 2048, ... (where its superblock starts, after a user block).
bool has_hdf5_signature(std::istream& in, std::uintmax_t size) {
  static constexpr char kSignature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  for (std::uintmax_t at = 0; at + 8 <= size; at = at == 0 ? 512 : 2 * at) {
    char head[8] = {};
    if (!in.seekg(static_cast<std::streamoff>(at)) || !in.read(head, 8)) return false;
    if (std::equal(head, head + 8, kSignature)) return true;
  }
  return false;
}

// Why an existing regular file at `path` must not be replaced by what the
// run would write there (above; a checkpoint: an HDF5 file that is a cyclocc
// checkpoint), or "" if it holds that, or nothing, so that a slip such as
// `--json other.yaml` does not replace a file of the user's. A file it cannot
// read it cannot tell, and leaves alone too.
std::string not_replaceable(const std::string& path, Kind kind) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return "";
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec || size == 0) return "";
  std::ifstream in(path, std::ios::binary);
  if (!in) return path + " exists and cannot be read";
  if (kind == Kind::checkpoint ? has_hdf5_signature(in, size) && chem::is_cyclocc_checkpoint(path)
                               : text_starts_as(in, kind))
    return "";
  const char* what = kind == Kind::checkpoint ? "a cyclocc checkpoint"
                     : kind == Kind::molden   ? "a Molden file"
                                              : "a results file (JSON)";
  return path + " exists and is not " + what;
}

// Why f must not be replaced, or "". A checkpoint under --restart is read
// first, and refused as one (exit 4).
std::string foreign(const Output& f, const CliOptions& o) {
  if (f.kind == Kind::checkpoint && o.restart) return "";
  const std::string why = not_replaceable(f.path, f.kind);
  return why.empty() ? "" : why + "; the run would replace it: remove it or name another file";
}

}  // namespace

void check_output_files(const input::Input& in, const CliOptions& options) {
  const std::vector<Output> files = outputs(in, options);
  const std::vector<Named> run_files = files_of_the_run(in, files);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const Output& f = files[i];
    if (same_file(f.path, in.path))
      refuse(in, f.named_by, f.path + " is the input file itself; name another file");
    for (const Output& r : read_files(in))
      if (same_file(f.path, r.path))
        refuse(in, f.named_by, f.path + " is the file " + r.named_by + " names, which the run reads; name another file");
    for (std::size_t j = 0; j < i; ++j)
      if (same_file(f.path, files[j].path))
        refuse(in, files[j].named_by, "names the same file as " + f.named_by + " (" + f.path + ")");
    for (const std::string& w : working_names(f)) {
      std::error_code ec;
      if (fs::is_directory(fs::symlink_status(w, ec)))
        refuse(in, f.named_by, f.path + " uses " + w + " while it is written, and that is a folder; remove it");
      if (const std::string what = working_name_clash(w, run_files); !what.empty())
        refuse(in, f.named_by,
               f.path + " uses " + w + " while it is written, and that is " + what + "; name another file");
    }
    if (const std::string why = unwritable(f); !why.empty()) refuse(in, f.named_by, why);
    if (const std::string why = foreign(f, options); !why.empty()) refuse(in, f.named_by, why);
  }
}

std::string safe_results_path(const input::Input& in, const CliOptions& options) {
  const std::vector<Output> files = outputs(in, options);
  const std::string& json = files.front().path;
  if (same_file(json, in.path)) return "";
  for (std::size_t i = 1; i < files.size(); ++i)
    if (same_file(json, files[i].path)) return "";
  for (const Output& r : read_files(in))
    if (same_file(json, r.path)) return "";
  const std::vector<Named> run_files = files_of_the_run(in, files);
  for (const std::string& w : working_names(files.front()))
    if (!working_name_clash(w, run_files).empty()) return "";
  return not_replaceable(json, Kind::results).empty() ? json : "";
}

std::string results_path_before_input(const CliOptions& options) {
  std::error_code ec;
  const bool readable = fs::is_regular_file(options.input, ec) && ::access(options.input.c_str(), R_OK) == 0;
  if (!readable && !options.json) return "";  // the input's own output.json is unknown
  const input::OutputHints hints = readable ? input::output_hints(options.input) : input::OutputHints{};
  const std::string json = options.json.value_or(hints.json);
  const std::string checkpoint = options.checkpoint.value_or(hints.checkpoint);
  if (same_file(json, options.input) || (!checkpoint.empty() && same_file(json, checkpoint))) return "";
  if (!not_replaceable(json, Kind::results).empty()) return "";
  for (const std::string& read : hints.reads)
    if (same_file(json, read)) return "";
  std::vector<Named> named{{options.input, "the input file"}};
  if (!checkpoint.empty()) named.push_back({checkpoint, "the checkpoint"});
  for (const std::string& read : hints.reads) named.push_back({read, "a file the input reads"});
  for (const std::string& w : working_names({json, "--json"}))
    if (!working_name_clash(w, named).empty()) return "";
  return json;
}

}  // namespace cyclocc::app
