#include "app/driver.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include "app/agree.hpp"
#include "app/checkpoint_lock.hpp"
#include "app/errors.hpp"
#include "app/outputs.hpp"
#include "app/run_memory.hpp"
#include "app/stages.hpp"
#include "parallel/process_start.hpp"
#include "tensor/blas_core.hpp"

#ifndef CYCLOCC_VERSION
#define CYCLOCC_VERSION "unknown"
#endif

namespace cyclocc::app {

namespace {

// Hill order: C, then H, then the others alphabetically; without carbon,
// everything alphabetically.
std::string formula(const input::MoleculeInput& mol) {
  std::map<std::string, int> count;
  for (const auto& a : mol.atoms) ++count[a.symbol];
  std::string out;
  auto emit = [&](const std::string& sym) {
    auto it = count.find(sym);
    if (it == count.end()) return;
    out += sym;
    if (it->second > 1) out += std::to_string(it->second);
    count.erase(it);
  };
  if (count.count("C")) {
    emit("C");
    emit("H");
  }
  while (!count.empty()) emit(count.begin()->first);
  return out;
}

void print_header(const RunContext& ctx, const CliOptions& options) {
  ctx.log.print("cyclocc %s, coupled-cluster energies\n", CYCLOCC_VERSION);
  ctx.log.print("ranks: %d\n", ctx.comm.size());
  ctx.log.print("input: %s\n", options.input.c_str());
  ctx.log.print("%s\n", tensor::openblas_kernels_note().c_str());
  if (const std::string pages = par::huge_pages_note(); !pages.empty()) ctx.log.print("%s\n", pages.c_str());
}

void print_input_summary(const RunContext& ctx, const input::Input& in) {
  const auto& mol = in.molecule;
  if (!in.title.empty()) ctx.log.print("title: %s\n", in.title.c_str());
  const std::string atoms = par::count_of(static_cast<long>(mol.atoms.size()), "atom");
  const std::string electrons = par::count_of(mol.n_electrons(), "electron");
  ctx.log.print("molecule: %s, %s, charge %d, multiplicity %d, %s (%d alpha, %d beta)\n", formula(mol).c_str(),
                atoms.c_str(), mol.charge, mol.multiplicity, electrons.c_str(), mol.n_alpha(), mol.n_beta());
  ctx.log.print("method: %s, cc.method %s\n", in.scf.reference.c_str(), in.cc.method.c_str());
  ctx.log.print("results file: %s\n", ctx.json_path.c_str());
  ctx.log.print("checkpoint: %s%s\n", ctx.checkpoint_path.c_str(), ctx.restart ? " (restart)" : "");
}

void print_basis(const RunContext& ctx, const chem::Basis& basis) {
  ctx.log.print("basis: %s, %s, %d basis functions, %zu shells\n", basis.name.c_str(),
                basis.pure ? "spherical" : "cartesian", basis.nbf, basis.shells.size());
  if (basis.pure_by_default && basis.max_l >= 2)
    ctx.log.warning("basis: %s has no 'spherical' or 'cartesian' first line and the input no puream, so its "
                    "d and higher shells are spherical; the shipped library's files have no such line (their "
                    "convention is in share/basis/index.yaml), so a copy of a cartesian set (the 6-31G family) "
                    "needs puream: false\n",
                    basis.name.c_str());
}

void print_energies(const RunContext& ctx, const chem::ScfResult& scf) {
  ctx.log.print("\nnuclear repulsion energy  %20.12f\n", scf.nuclear_repulsion);
  ctx.log.print("SCF total energy          %20.12f   (%s)\n", scf.energy,
                par::count_of(scf.iterations, "iteration").c_str());
}

void print_footer(RunContext& ctx, double total_seconds) {
  ctx.results.set_timing("total", total_seconds);
  ctx.log.print("\ntimings (seconds, wall):\n");
  for (const char* name : {"scf", "checkpoint", "motransform", "cc", "cc_checkpoint", "triples", "total"})
    if (const auto t = ctx.results.timing(name)) ctx.log.print("  %-12s %10.3f\n", name, *t);
  const double mb = peak_resident_mb(ctx.comm);
  ctx.results.set_extra("peak_memory_mb", std::round(mb * 10.0) / 10.0);
  ctx.log.print("peak memory: %.0f MB resident, on the largest of %d rank(s)\n", mb, ctx.comm.size());
  ctx.results.set_extra("warnings", json::Value::array_of(ctx.log.warnings()));
  if (ctx.comm.stats().totals().empty())
    ctx.log.print("\noperations on rank 0: none recorded\n");
  else
    ctx.log.print("\noperations on rank 0:\n%s", ctx.comm.stats().table(ctx.log.verbose() ? 60 : 10).c_str());
}

// Rank 0 writes the results file. Returns, on every rank, why it could not
// (empty if it could, or if there is no file to write).
std::string write_results(RunContext& ctx) {
  std::string problem;
  if (ctx.json_path.empty()) return problem;
  if (ctx.comm.root()) {
    try {
      write_file_atomically(ctx.json_path, ctx.results.to_json().dump());
    } catch (const std::exception& e) {
      problem = one_line(e.what());
    }
  }
  ctx.comm.bcast(problem, 0);
  return problem;
}

// Replaces a results file an earlier run left with one saying that this run
// has not finished, so that a run killed before it writes its results (out
// of time or memory, SIGKILL) leaves no earlier run's success behind.
// The warnings so far are in it too, and it is written again (by rank 0, as
// far as it can) after each warning, so that a run killed after a warning
// that it might be (lack of memory) leaves that warning in its results.
void write_unfinished(RunContext& ctx) {
  // Not into /dev/null or a pipe: its reader would get two documents.
  if (ctx.json_path.empty() || written_through(ctx.json_path)) return;
  char started[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(started, sizeof started, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
  const std::string message = std::string("the run started at ") + started +
                              " has not finished: it is still running, or was killed before it could write its "
                              "results";
  auto unfinished = [&ctx, message] {
    Results r = ctx.results;
    r.set_extra("warnings", json::Value::array_of(ctx.log.warnings()));
    r.set_error("interrupted", message);
    return r.to_json().dump();
  };
  agreed(ctx.comm, [&] {
    if (ctx.comm.root()) write_file_atomically(ctx.json_path, unfinished());
  });
  ctx.log.on_warning([&ctx, unfinished] {
    try {
      write_file_atomically(ctx.json_path, unfinished());
    } catch (...) {
      // The results file at the end reports a file that cannot be written.
    }
  });
}

// Rank 0 takes the checkpoint's lock for the rest of the run. A run refused
// because another holds it writes no results file: that file is the other
// run's (any other failure here writes its results as usual).
void lock_checkpoint(RunContext& ctx, std::optional<CheckpointLock>& lock) {
  std::string warning;
  int in_use = 0;
  try {
    agreed(ctx.comm, [&] {
      if (!ctx.comm.root()) return;
      try {
        lock.emplace(ctx.checkpoint_path, warning);
      } catch (const CheckpointInUse&) {
        in_use = 1;
        throw;
      }
    });
  } catch (const AgreedFailure&) {
    ctx.comm.bcast(&in_use, sizeof in_use, 0);
    if (in_use) ctx.json_path.clear();
    throw;
  }
  if (!warning.empty()) ctx.log.warning("%s\n", warning.c_str());
}

// The stages in order; throws AgreedFailure.
void run_stages(RunContext& ctx, const CliOptions& options, std::optional<CheckpointLock>& lock) {
  print_header(ctx, options);
  ctx.json_path = results_path_before_input(options);  // where a failure of the input is reported
  const input::Input in = agreed(ctx.comm, [&] { return stage_input(options.input); });
  ctx.results.set_input(in);
  ctx.json_path = safe_results_path(in, options);
  agreed(ctx.comm, [&] { check_output_files(in, options); });
  // Written beside itself and renamed: through a link, beside the file it
  // points to, as rank 0 sees it (a collective create needs one name).
  std::string checkpoint = options.checkpoint.value_or(in.checkpoint.file);
  agreed(ctx.comm, [&] {
    if (ctx.comm.root()) checkpoint = rename_target(checkpoint);
  });
  ctx.comm.bcast(checkpoint, 0);
  ctx.checkpoint_path = checkpoint;
  lock_checkpoint(ctx, lock);
  write_unfinished(ctx);
  print_input_summary(ctx, in);

  const chem::Basis basis = agreed(ctx.comm, [&] { return chem::load_basis(in); });
  ctx.results.set_keyword("puream", basis.pure);
  print_basis(ctx, basis);
  const chem::ScfResult scf = agreed(ctx.comm, [&] { return stage_scf(ctx, in, basis); });
  print_energies(ctx, scf);
  agreed(ctx.comm, [&] { stage_molden(ctx, in, basis, scf); });
  agreed(ctx.comm, [&] { stage_correlated(ctx, in, basis, scf); });
}

}  // namespace

int run(const par::Comm& comm, const CliOptions& options, StopRequest& stop) {
  Stopwatch clock;
  RunContext ctx{comm, par::Log(comm.root(), options.verbose), stop,
                 Results(CYCLOCC_VERSION, comm.size()), options.restart, {}, {}};
  comm.stats().verbose = options.verbose;
  int code = exit_code::kSuccess;
  std::optional<CheckpointLock> lock;  // held until the results are written
  try {
    run_stages(ctx, options, lock);
  } catch (const AgreedFailure& agreed_failure) {
    const Failure& f = agreed_failure.failure;
    ctx.results.set_error(f.type, f.message);
    if (comm.root()) std::fprintf(stderr, "cyclocc: error: %s\n", f.message.c_str());
    code = f.code;
  }
  ctx.log.on_warning({});  // the results now replace the unfinished file
  print_footer(ctx, clock.seconds());
  const std::string problem = write_results(ctx);
  if (!problem.empty() && code == exit_code::kSuccess) {
    // Only when nothing else failed: every error is one line.
    if (comm.root()) std::fprintf(stderr, "cyclocc: error: %s\n", problem.c_str());
    code = exit_code::kFailure;
  }
  if (code == exit_code::kSuccess) ctx.log.print("\ncyclocc: done\n");
  return code;
}

void report_command_line_failure(const par::Comm& comm, const NamedFiles& named, const std::string& type,
                                 const std::string& message) {
  if (!comm.root() || !named.json) return;
  try {
    // Each word may be the input: the file must be safe for every one.
    std::vector<std::string> inputs = named.words;
    if (inputs.empty()) inputs.emplace_back();
    for (const std::string& input : inputs)
      if (results_path_before_input(CliOptions{input, named.json, named.checkpoint}) != *named.json) return;
    Results results(CYCLOCC_VERSION, comm.size());
    results.set_extra("warnings", json::Value::array_of(std::vector<std::string>{}));
    results.set_error(type, message);
    write_file_atomically(*named.json, results.to_json().dump());
  } catch (...) {
    // The command line's error is the one line this run prints.
  }
}

}  // namespace cyclocc::app
