// cyclocc_regression: runs the cases of regression/references.yaml with
// mpirun at each of their rank counts and compares the results files with the
// reference values (format: regression/README.md). Exits non-zero if any
// comparison fails.
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Options {
  std::string cyclocc;
  std::string mpiexec = "mpirun";
  std::vector<std::string> references;  // empty: regression/references.yaml
  std::set<std::string> ids;         // empty: all
  std::set<std::string> quantities;  // empty: all
  std::set<std::string> also;        // compared too in the cases that run anyway
  std::vector<int> ranks;            // empty: each case's own
  std::string workdir;               // empty: a fresh temporary folder
  bool keep = false;
  double agree = -1;                 // > 0: values at all rank counts must agree this well
};

struct Row {
  std::string id;
  int ranks = 0;
  std::string quantity;
  std::optional<double> computed;
  double reference = 0;
  bool pass = false;
  std::string note;
};

const char* kUsage =
    "usage: cyclocc_regression --cyclocc PATH [--mpiexec PATH] [--references FILE]...\n"
    "                          [--id ID]... [--quantity NAME]... [--with NAME]... [--ranks N]...\n"
    "                          [--workdir DIR] [--keep] [--agree TOL]\n"
    "Runs each case of the references files at each of its rank counts (or the --ranks given)\n"
    "and compares the listed properties of its results file with the reference values.\n"
    "--id and --quantity restrict the cases and the properties (repeatable); a case that lists\n"
    "none of the chosen properties is not run; --with NAME compares NAME as well in the cases that\n"
    "run. --agree TOL also requires the values of each case at all its rank counts to agree\n"
    "within TOL. Exit code 0 if every comparison passes (last line: 'N passed, M failed').\n";

[[noreturn]] void usage_error(const std::string& message) {
  std::cerr << "cyclocc_regression: " << message << "\n" << kUsage;
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--cyclocc") o.cyclocc = value();
    else if (a == "--mpiexec") o.mpiexec = value();
    else if (a == "--references") o.references.push_back(value());
    else if (a == "--id") o.ids.insert(value());
    else if (a == "--quantity") o.quantities.insert(value());
    else if (a == "--with") o.also.insert(value());
    else if (a == "--workdir") o.workdir = value();
    else if (a == "--keep") o.keep = true;
    else if (a == "--agree") {
      const std::string v = value();
      char* end = nullptr;
      o.agree = std::strtod(v.c_str(), &end);
      if (*end != '\0' || !(o.agree > 0)) usage_error("--agree needs a positive number (got '" + v + "')");
    }
    else if (a == "--ranks") {
      const std::string v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (*end != '\0' || n < 1) usage_error("--ranks needs a positive integer (got '" + v + "')");
      o.ranks.push_back(static_cast<int>(n));
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      usage_error("unknown option '" + a + "'");
    }
  }
  if (o.cyclocc.empty()) usage_error("--cyclocc is required");
  if (o.references.empty()) o.references.push_back(std::string(CYCLOCC_SOURCE_DIR) + "/regression/references.yaml");
  // The runs happen in their own folders.
  o.cyclocc = fs::absolute(o.cyclocc).string();
  if (o.mpiexec.find('/') != std::string::npos) o.mpiexec = fs::absolute(o.mpiexec).string();
  return o;
}

std::string shell_quote(const std::string& word) {
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs cyclocc on `input` at `ranks` ranks in `dir`; returns the exit code.
int run_case(const Options& o, const fs::path& input, int ranks, const fs::path& dir) {
  fs::create_directories(dir);
  const std::string cmd = "cd " + shell_quote(dir.string()) + " && " + shell_quote(o.mpiexec) +
                          " -q --oversubscribe -np " + std::to_string(ranks) + " " + shell_quote(o.cyclocc) +
                          " " + shell_quote(input.string()) + " --json results.json --checkpoint checkpoint.h5" +
                          " > log.txt 2> stderr.txt";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string first_line(const fs::path& file) {
  std::FILE* f = std::fopen(file.c_str(), "r");
  if (!f) return "";
  char buf[512] = {0};
  if (!std::fgets(buf, sizeof buf, f)) buf[0] = '\0';
  std::fclose(f);
  std::string s = buf;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// Compares the chosen quantities of one run's results file.
std::vector<Row> compare(const YAML::Node& run, const std::vector<std::string>& quantities, int ranks,
                         int exit_code, const fs::path& dir) {
  const std::string id = run["id"].as<std::string>();
  const double tolerance = run["tolerance"].as<double>();
  std::vector<Row> rows;
  YAML::Node results;
  std::string problem;
  try {
    results = YAML::LoadFile((dir / "results.json").string());
  } catch (const std::exception&) {
    problem = "no results file (exit " + std::to_string(exit_code) + ": " + first_line(dir / "stderr.txt") + ")";
  }
  // Values of a run that failed other than in a later, unimplemented stage
  // (runtime_error) are not to be trusted: unconverged, interrupted, ...
  if (problem.empty() && !results["success"].as<bool>(false)) {
    const std::string type = results["error"]["error_type"].as<std::string>("");
    if (type != "runtime_error") problem = type + ": " + results["error"]["error_message"].as<std::string>("");
  }
  for (const auto& q : quantities) {
    Row row{id, ranks, q, std::nullopt, run["quantities"][q]["value"].as<double>(), false, ""};
    if (!problem.empty()) {
      row.note = problem;
    } else if (!results["properties"][q] || !results["properties"][q].IsScalar()) {
      row.note = "missing from the results";
    } else {
      row.computed = results["properties"][q].as<double>();
      row.pass = std::fabs(*row.computed - row.reference) <= tolerance;
      if (!row.pass) {
        char text[32];
        std::snprintf(text, sizeof text, "tolerance %.1e", tolerance);
        row.note = text;
      }
    }
    rows.push_back(row);
  }
  return rows;
}

void print_row(const Row& r) {
  char computed[32] = "-", diff[32] = "-";
  if (r.computed) {
    std::snprintf(computed, sizeof computed, "%.10f", *r.computed);
    std::snprintf(diff, sizeof diff, "%.2e", *r.computed - r.reference);
  }
  std::printf("%-28s %5d  %-30s %18s %18.10f %10s  %s%s%s\n", r.id.c_str(), r.ranks, r.quantity.c_str(),
              computed, r.reference, diff, r.pass ? "PASS" : "FAIL", r.note.empty() ? "" : "  ",
              r.note.c_str());
  std::fflush(stdout);
}

// The spread of each quantity over the rank counts of one case, as rows
// (computed = the spread, reference = 0, pass when spread <= tol).
std::vector<Row> agreement(const std::vector<Row>& rows, double tol) {
  std::map<std::string, std::pair<double, double>> range;
  std::map<std::string, int> count;
  for (const Row& r : rows) {
    if (!r.computed) continue;
    auto [it, fresh] = range.try_emplace(r.quantity, *r.computed, *r.computed);
    it->second.first = std::min(it->second.first, *r.computed);
    it->second.second = std::max(it->second.second, *r.computed);
    ++count[r.quantity];
  }
  std::vector<Row> out;
  for (const auto& [q, mm] : range) {
    if (count[q] < 2) continue;
    const double spread = mm.second - mm.first;
    out.push_back(Row{rows.front().id, count[q], q + " (rank spread)", spread, 0.0, spread <= tol,
                      spread <= tol ? "" : "ranks disagree"});
  }
  return out;
}

}  // namespace

struct Tally {
  int passed = 0, failed = 0;
  void add(const Row& row) {
    print_row(row);
    (row.pass ? passed : failed) += 1;
  }
};

// One run of a references file (input paths relative to `base`) at each of
// its rank counts; nothing if it lists none of the chosen quantities.
void run_one(const Options& o, const YAML::Node& run, const fs::path& base, const fs::path& work, Tally& tally) {
  const std::string id = run["id"].as<std::string>();
  std::vector<std::string> quantities, extra;
  for (const auto& q : run["quantities"]) {
    const auto name = q.first.as<std::string>();
    if (o.quantities.empty() || o.quantities.count(name)) quantities.push_back(name);
    else if (o.also.count(name)) extra.push_back(name);
  }
  if (quantities.empty()) return;
  quantities.insert(quantities.end(), extra.begin(), extra.end());
  std::vector<int> rank_counts = o.ranks;
  if (rank_counts.empty())
    for (const auto& n : run["ranks"]) rank_counts.push_back(n.as<int>());
  std::vector<Row> all;
  for (int ranks : rank_counts) {
    const fs::path dir = work / (id + "_np" + std::to_string(ranks));
    const int code = run_case(o, fs::absolute(base / run["input"].as<std::string>()), ranks, dir);
    for (const auto& row : compare(run, quantities, ranks, code, dir)) {
      tally.add(row);
      all.push_back(row);
    }
  }
  if (o.agree > 0 && !all.empty())
    for (const auto& row : agreement(all, o.agree)) tally.add(row);
}

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  std::vector<YAML::Node> files;
  for (const std::string& path : o.references) {
    try {
      files.push_back(YAML::LoadFile(path));
    } catch (const std::exception& e) {
      std::cerr << "cyclocc_regression: cannot read " << path << ": " << e.what() << "\n";
      return 2;
    }
  }
  fs::path work = o.workdir.empty() ? fs::temp_directory_path() / ("cyclocc_regression_" + std::to_string(::getpid()))
                                    : fs::path(o.workdir);
  fs::create_directories(work);

  std::set<std::string> seen_ids;
  Tally tally;
  std::printf("%-28s %5s  %-30s %18s %18s %10s  %s\n", "case", "ranks", "quantity", "computed", "reference",
              "difference", "status");
  for (std::size_t f = 0; f < files.size(); ++f)
    for (const auto& run : files[f]["runs"]) {
      const std::string id = run["id"].as<std::string>();
      seen_ids.insert(id);
      if (o.ids.empty() || o.ids.count(id)) run_one(o, run, fs::path(o.references[f]).parent_path(), work, tally);
    }
  for (const auto& id : o.ids)
    if (!seen_ids.count(id)) {
      std::printf("%-28s  no such case in the references files  FAIL\n", id.c_str());
      ++tally.failed;
    }
  if (tally.passed + tally.failed == 0) {
    std::printf("no comparison selected  FAIL\n");
    tally.failed = 1;
  }
  if (tally.failed == 0 && !o.keep) fs::remove_all(work);
  else std::printf("run folders kept in %s\n", work.c_str());
  std::printf("%d passed, %d failed\n", tally.passed, tally.failed);
  return tally.failed == 0 ? 0 : 1;
}
