#include "app/outputs.hpp"

#include <filesystem>
#include <utility>
#include <vector>

namespace cyclocc::app {

namespace fs = std::filesystem;

namespace {

// A file the run writes and what names it ("output.json", "--json", ...).
struct Output {
  std::string path, named_by;
};

std::vector<Output> outputs(const input::Input& in, const CliOptions& o) {
  std::vector<Output> files{
      {o.json.value_or(in.output.json), o.json ? "--json" : "output.json"},
      {o.checkpoint.value_or(in.checkpoint.file), o.checkpoint ? "--checkpoint" : "checkpoint.file"}};
  if (!in.output.molden.empty()) files.push_back({in.output.molden, "output.molden"});
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

void check_output_files(const input::Input& in, const CliOptions& options) {
  const std::vector<Output> files = outputs(in, options);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const Output& f = files[i];
    if (same_file(f.path, in.path))
      refuse(in, f.named_by, f.path + " is the input file itself; name another file");
    for (std::size_t j = 0; j < i; ++j)
      if (same_file(f.path, files[j].path))
        refuse(in, files[j].named_by, "names the same file as " + f.named_by + " (" + f.path + ")");
    const fs::path folder = fs::path(f.path).parent_path();
    std::error_code ec;
    if (!folder.empty() && !fs::is_directory(folder, ec))
      refuse(in, f.named_by, "folder " + folder.string() + " of " + f.path + " does not exist");
  }
}

std::string safe_results_path(const input::Input& in, const CliOptions& options) {
  const std::vector<Output> files = outputs(in, options);
  const std::string& json = files.front().path;
  if (same_file(json, in.path)) return "";
  for (std::size_t i = 1; i < files.size(); ++i)
    if (same_file(json, files[i].path)) return "";
  return json;
}

std::string results_path_before_input(const CliOptions& options) {
  std::error_code ec;
  const bool readable = fs::is_regular_file(options.input, ec);
  if (!readable && !options.json) return "";  // the input's own output.json is unknown
  const input::OutputHints hints = readable ? input::output_hints(options.input) : input::OutputHints{};
  const std::string json = options.json.value_or(hints.json);
  const std::string checkpoint = options.checkpoint.value_or(hints.checkpoint);
  if (same_file(json, options.input) || (!checkpoint.empty() && same_file(json, checkpoint))) return "";
  return json;
}

}  // namespace cyclocc::app
