#include "app/cc_checkpoint.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <type_traits>

#include "app/run_memory.hpp"
#include "app/signals.hpp"
#include "chem/cc/diis.hpp"
#include "chem/checkpoint.hpp"

namespace cyclocc::app {

AmplitudeSpace amplitude_space(const chem::ActiveSpace& space, bool restricted) {
  return {space.frozen, space.occ, space.vir, restricted};
}

std::vector<std::string> cc_methods(const std::string& method) {
  if (method == "ccsd" || method == "ccsd(t)") return {"ccsd"};
  if (method == "ccsdt") return {"ccsd", "ccsdt"};
  return {};
}

std::string method_label(const std::string& method) {
  std::string s = method;
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

namespace {

// ---- the group header (docs/checkpoint.md) ----------------------------------

struct GroupHeader {
  std::string method;
  std::string reference;
  double scf_energy = 0;
  double convergence = 0;  // the threshold of the run that wrote it
  CcProgress progress;
  AmplitudeSpace space;
};

const char* const kSpin[2] = {"alpha", "beta"};

void write_header(chem::CheckpointWriter& w, const std::string& g, const GroupHeader& h) {
  w.create_group(g);
  w.set_string(g, "method", h.method);
  w.set_string(g, "reference", h.reference);
  w.set_double(g, "scf_energy", h.scf_energy);
  w.set_double(g, "convergence", h.convergence);
  w.set_int(g, "iteration", h.progress.iteration);
  w.set_double(g, "energy", h.progress.energy);
  w.set_double(g, "delta_e", h.progress.delta_e);
  w.set_double(g, "delta_t", h.progress.delta_t);
  w.set_int(g, "converged", h.progress.converged ? 1 : 0);
  for (int s = 0; s < 2; ++s) {
    w.set_int(g, std::string("frozen_") + kSpin[s], h.space.frozen[s]);
    w.set_int(g, std::string("occupied_") + kSpin[s], h.space.occ[s]);
    w.set_int(g, std::string("virtual_") + kSpin[s], h.space.vir[s]);
  }
  w.set_int(g, "restricted", h.space.restricted ? 1 : 0);
}

GroupHeader read_header(const chem::CheckpointReader& r, const std::string& g) {
  GroupHeader h;
  h.method = r.read_string(g, "method");
  h.reference = r.read_string(g, "reference");
  h.scf_energy = r.read_double(g, "scf_energy");
  h.convergence = r.read_double(g, "convergence");
  h.progress.iteration = static_cast<int>(r.read_int(g, "iteration"));
  h.progress.energy = r.read_double(g, "energy");
  h.progress.delta_e = r.read_double(g, "delta_e");
  h.progress.delta_t = r.read_double(g, "delta_t");
  h.progress.converged = r.read_int(g, "converged") != 0;
  for (int s = 0; s < 2; ++s) {
    h.space.frozen[s] = static_cast<int>(r.read_int(g, std::string("frozen_") + kSpin[s]));
    h.space.occ[s] = static_cast<int>(r.read_int(g, std::string("occupied_") + kSpin[s]));
    h.space.vir[s] = static_cast<int>(r.read_int(g, std::string("virtual_") + kSpin[s]));
  }
  h.space.restricted = r.read_int(g, "restricted") != 0;
  return h;
}

// "frozen core 1+1 in the checkpoint, 0+0 in this run" (alpha+beta), or empty.
std::string space_difference(const AmplitudeSpace& stored, const AmplitudeSpace& wanted) {
  auto pair = [](const std::array<int, 2>& n) { return std::to_string(n[0]) + "+" + std::to_string(n[1]); };
  auto differs = [&](const char* what, const std::array<int, 2>& a, const std::array<int, 2>& b) {
    return std::string(what) + " " + pair(a) + " in the checkpoint, " + pair(b) + " in this run";
  };
  if (stored.frozen != wanted.frozen) return differs("frozen orbitals", stored.frozen, wanted.frozen);
  if (stored.occ != wanted.occ) return differs("active occupied orbitals", stored.occ, wanted.occ);
  if (stored.vir != wanted.vir) return differs("virtual orbitals", stored.vir, wanted.vir);
  if (stored.restricted != wanted.restricted) return "restricted spin layer differs";
  return {};
}

// ---- amplitude datasets ---------------------------------------------------------

// Calls f(dataset name, block) for every computed spin block of every
// amplitude tensor of t: /GROUP/t1_aa, /GROUP/t2_abab, /GROUP/t3_aabaab, ...
// Restricted (RHF) runs keep only the blocks not filled from a flipped
// partner (SpinTensor::derived): t1_aa, t2_abab, t3_aabaab. Amplitudes to
// restore are written block by block, their derived blocks left unfilled.
template <class Amps, class F>
void each_block(Amps& t, const std::string& group, F&& f) {
  auto blocks = [&](auto& x, const std::string& name) {
    for (const std::string& key : x.computed_keys()) {
      const std::string dataset = group + "/" + name + "_" + key;
      if constexpr (std::is_const_v<Amps>) f(name, dataset, x.block(key));
      else f(name, dataset, x.write_block(key));
    }
  };
  blocks(t.t1, "t1");
  blocks(t.t2, "t2");
  if (t.t3) blocks(*t.t3, "t3");
}

void write_amplitudes(chem::CheckpointWriter& w, const std::string& group, const cc::Amplitudes& t) {
  each_block(t, group, [&](const std::string&, const std::string& dataset, const tensor::Tensor& block) {
    const int rank = block.ctx().rank();
    const std::int64_t begin = block.slab_begin(rank);
    const std::vector<double> slab = block.export_slab();
    w.write_distributed(dataset, block.shape().packed_size(), begin, slab.data(),
                        static_cast<std::int64_t>(slab.size()));
  });
}

std::int64_t amplitude_bytes(const cc::Amplitudes& t) {
  std::int64_t bytes = 0;
  each_block(t, "", [&](const std::string&, const std::string&, const tensor::Tensor& block) {
    bytes += static_cast<std::int64_t>(sizeof(double)) * block.shape().packed_size();
  });
  return bytes;
}

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw chem::CheckpointError("checkpoint " + path + ": " + what);
}

// Reads every dataset of a group once, in even pieces, so its checksums are
// verified (read_distributed throws on a mismatch).
void verify_group(const par::Comm& comm, const chem::CheckpointReader& r, const std::string& g) {
  for (const std::string& name : r.members(g)) {
    const std::string dataset = g + "/" + name;
    const auto dims = r.shape(dataset);
    if (dims.size() != 1) refuse(r.path(), dataset + " is not a 1-D amplitude dataset");
    const auto [offset, count] = chem::even_piece(dims[0], comm.rank(), comm.size());
    r.read_distributed(dataset, offset, count);
  }
}

}  // namespace

// ---- CcCheckpoint ------------------------------------------------------------------

CcCheckpoint::CcCheckpoint(RunContext& ctx, const input::Input& in, const chem::Basis& basis,
                           const chem::ScfResult& scf, const AmplitudeSpace& space)
    : ctx_(ctx), in_(in), basis_(basis), scf_(scf), space_(space) {}

CcCheckpoint::~CcCheckpoint() {
  in_flight_.reset();  // rank 0 waits for its thread (which may still link PATH.prev)
  if (saved_) chem::remove_previous_checkpoint(ctx_.comm, path());
}

void CcCheckpoint::finish() {
  if (!in_flight_) return;
  chem::CommitInFlight commit = std::move(*in_flight_);
  in_flight_.reset();
  commit.finish();
}

void CcCheckpoint::load(const std::vector<std::string>& methods) {
  if (methods.empty() || !chem::checkpoint_exists(ctx_.comm, path())) return;  // (the SCF stage warned)
  const chem::CheckpointReader r(ctx_.comm, path());
  for (const std::string& m : methods) {
    const std::string g = "/" + m;
    if (!r.exists(g)) continue;
    const GroupHeader h = read_header(r, g);
    if (h.method != m) refuse(path(), g + " holds amplitudes of method " + h.method);
    if (h.reference != scf_.reference || h.scf_energy != scf_.energy)
      refuse(path(), "the amplitudes in " + g + " belong to another SCF than the checkpoint's");
    if (const std::string why = space_difference(h.space, space_); !why.empty()) {
      ctx_.log.warning("%s: not reusing the amplitudes of checkpoint %s (%s); starting them fresh\n",
                       method_label(m).c_str(), path().c_str(), why.c_str());
      continue;
    }
    verify_group(ctx_.comm, r, g);
    CcProgress p = h.progress;
    p.converged = std::abs(p.delta_e) < in_.cc.convergence && p.delta_t < in_.cc.convergence;
    stored_[m] = p;
  }
}

std::optional<CcProgress> CcCheckpoint::stored(const std::string& method) const {
  const auto it = stored_.find(method);
  if (it == stored_.end()) return std::nullopt;
  return it->second;
}

void CcCheckpoint::restore(const std::string& method, cc::Amplitudes& t) const {
  const chem::CheckpointReader r(ctx_.comm, path());
  const std::string g = "/" + method;
  bool has_t3 = false;  // CCSD amplitudes have none
  for (const std::string& name : r.members(g)) has_t3 = has_t3 || name.rfind("t3_", 0) == 0;
  if (t.t3 && !has_t3) t.t3->set_zero();
  each_block(t, g, [&](const std::string& name, const std::string& dataset, tensor::Tensor& block) {
    if (name == "t3" && !has_t3) return;
    if (!r.exists(dataset)) refuse(path(), "missing dataset " + dataset);
    const std::int64_t n = block.shape().packed_size();
    const auto dims = r.shape(dataset);
    if (dims.size() != 1 || dims[0] != n)
      refuse(path(), dataset + " has the wrong size for its spin block (expected " + std::to_string(n) + ")");
    const int rank = block.ctx().rank();
    const std::int64_t begin = block.slab_begin(rank);
    block.import_slab(r.read_distributed(dataset, begin, block.slab_begin(rank + 1) - begin));
  });
  // Restricted: the blocks filled from their flipped partners follow.
  t.t1.blocks_written();
  t.t2.blocks_written();
  if (t.t3) t.t3->blocks_written();
}

double CcCheckpoint::save(const std::string& method, const cc::Amplitudes& t, const CcProgress& progress,
                          Commit commit, const std::function<void(double)>& done) {
  const Stopwatch clock;
  finish();
  double seconds = 0;
  {
    // From the second save on, the file this run committed last holds all
    // but this method's group as it should be: start from a copy of it, or
    // from the file it replaced if that differs from it in this group alone.
    using Start = chem::CheckpointWriter::Start;
    const Start start = !saved_ ? Start::empty : previous_differs_in_ == method ? Start::previous : Start::copy;
    if (!access_) access_.emplace(ctx_.comm);
    chem::CheckpointWriter w(ctx_.comm, path(), start, &*access_);
    // At most the file it replaces and this method's amplitudes anew.
    std::error_code ec;
    const auto replaced = std::filesystem::file_size(path(), ec);
    w.require_free_space((ec ? 0 : static_cast<std::int64_t>(replaced)) + amplitude_bytes(t));
    if (!w.from_copy()) {
      w.write_identity(chem::checkpoint_identity(in_, basis_));
      w.write_scf(scf_);
      // The other methods' groups, copied from the checkpoint in place.
      std::optional<chem::CheckpointReader> current;
      for (const auto& [m, p] : stored_) {
        if (m == method) continue;
        if (!current) current.emplace(ctx_.comm, path());
        const std::string g = "/" + m;
        write_header(w, g, read_header(*current, g));
        for (const std::string& name : current->members(g)) w.copy_distributed(*current, g + "/" + name);
      }
    }
    const GroupHeader h{method, scf_.reference, scf_.energy, in_.cc.convergence, progress, space_};
    write_header(w, "/" + method, h);
    write_amplitudes(w, "/" + method, t);
    // The file it replaces differs from the new one in this group alone if
    // this save started from it or from its copy.
    previous_differs_in_ = w.from_copy() ? std::optional(method) : std::nullopt;
    using Keep = chem::CheckpointWriter::Keep;
    if (commit == Commit::background) {
      seconds = clock.seconds();
      in_flight_.emplace(w.commit_in_background(Keep::previous, [done, seconds] {
        if (done) done(seconds);
      }));
    } else {
      w.commit(Keep::previous);
      seconds = clock.seconds();
      if (done) done(seconds);
    }
  }
  saved_ = true;
  stored_[method] = progress;
  write_seconds_ += seconds;
  ctx_.results.set_timing("cc_checkpoint", write_seconds_);
  return seconds;
}

// ---- the iterations ------------------------------------------------------------------

bool RunawayWatch::runs_away(double delta_t) {
  rises_ = rises_ >= 0 && delta_t > last_ ? rises_ + 1 : 0;
  last_ = delta_t;
  if (told_ || rises_ < kRises || !(delta_t > kDeltaT)) return false;
  told_ = true;
  return true;
}

std::string interrupted_message(const RunContext& ctx, const std::string& method, int iteration) {
  return "stopped by " + ctx.stop.signal_name() + " after " + method_label(method) + " iteration " +
         std::to_string(iteration) + " (checkpoint " + ctx.checkpoint_path +
         "); run again with --restart to continue";
}

namespace {

void log_stop(const RunContext& ctx, const std::string& method, int iteration) {
  ctx.log.print("%s received: the checkpoint %s holds the %s amplitudes of iteration %d; stopping\n",
                ctx.stop.signal_name().c_str(), ctx.checkpoint_path.c_str(), method_label(method).c_str(), iteration);
}

}  // namespace

void stop_after_method(RunContext& ctx, const std::string& method, int iteration) {
  if (!ctx.stop.requested(ctx.comm)) return;
  log_stop(ctx, method, iteration);
  throw Interrupted(interrupted_message(ctx, method, iteration));
}

cc::SolverResult stored_result(const CcProgress& p) {
  cc::SolverResult res;
  res.converged = p.converged;
  res.iterations = p.iteration;
  res.energy = p.energy;
  return res;
}

namespace {

// Where the iterations start: the stored amplitudes (restored into t) or the guess in t.
std::optional<CcProgress> resume(RunContext& ctx, CcCheckpoint& ckpt, const std::string& method, cc::Amplitudes& t) {
  const auto p = ckpt.stored(method);
  if (!p) return std::nullopt;
  ckpt.restore(method, t);
  const std::string label = method_label(method);
  if (p->converged)
    ctx.log.print("%s: converged amplitudes in checkpoint %s (iteration %d), no iterations needed\n",
                  label.c_str(), ckpt.path().c_str(), p->iteration);
  else
    ctx.log.print("%s: continuing from iteration %d of checkpoint %s (DIIS history starts empty)\n",
                  label.c_str(), p->iteration, ckpt.path().c_str());
  return p;
}

}  // namespace

namespace {
constexpr int kDiisAfter = 3;  // iterations before the memory line
}  // namespace

cc::SolverResult iterate_with_checkpoints(RunContext& ctx, const input::Input& in, CcCheckpoint& ckpt,
                                          const std::string& method, const cc::Equations& eq,
                                          const cc::MoIntegrals& mo, cc::Amplitudes& t) {
  const std::string label = method_label(method);
  const std::optional<CcProgress> start = resume(ctx, ckpt, method, t);
  if (start && start->converged) return stored_result(*start);
  const int first = start ? start->iteration : 0;
  const cc::SolverOptions opt{in.cc.convergence, in.cc.max_iterations - first, in.cc.diis};
  if (opt.max_iterations <= 0) return stored_result(start.value_or(CcProgress{}));  // used up before the restart

  const bool diis_on = cc::diis_on(opt.diis);
  const std::string diis = diis_on ? "DIIS " + std::to_string(opt.diis) + " vectors" : std::string("no DIIS");
  const std::string every = in.checkpoint.interval == 1 ? std::string("iteration")
                                                         : par::count_of(in.checkpoint.interval, "iteration");
  ctx.log.print("%s: convergence %.1e on |dE| and |dT|, %s, checkpoint every %s\n", label.c_str(), opt.convergence,
                diis.c_str(), every.c_str());
  const bool triples = t.t3.has_value();
  ctx.log.print(" iter        correlation energy           dE        |dT|%s  seconds  checkpoint\n",
                triples ? "       |dT3|" : "");
  int saved = first;
  CcProgress last;
  RunawayWatch watch;
  auto hook = [&](const cc::Amplitudes& x, const cc::Iteration& it) {
    const bool stop = ctx.stop.requested(ctx.comm);
    // Told below the iteration's line (so its checkpoint is not left to the commit thread).
    const bool runaway = watch.runs_away(it.delta_t);
    auto warn = [&] {
      if (!runaway) return;
      ctx.log.warning("%s: |dT| has grown at each of the last %d iterations, to %.2e: the amplitudes are "
                      "running away and may not converge%s\n", label.c_str(), RunawayWatch::kRises, it.delta_t,
                      diis_on ? "" : " (DIIS is off: cc.diis may help)");
    };
    // The convergence test of the solver (DESIGN.md §8), stored with the amplitudes.
    const bool converged = std::abs(it.delta_e) < opt.convergence && it.delta_t < opt.convergence;
    last = {it.number, it.energy, it.delta_e, it.delta_t, converged};
    // After three iterations, whose first two kept the plans and the moves
    // they reuse, below that iteration's line, unless it ends the method:
    // the peak so far, set while the third residual was computed with two
    // DIIS pairs held, and the peak with the history as full as it gets (a
    // pair an iteration; the last residual sees all but the last pair).
    const bool report_memory = it.number == first + kDiisAfter && !stop && !converged &&
                               kDiisAfter < opt.max_iterations;
    auto report = [&] {
      if (!report_memory) return;
      const int held = diis_on ? kDiisAfter - 1 : 0;
      const int full = diis_on ? std::min(opt.diis, opt.max_iterations - 1) : 0;
      const std::string when = std::to_string(kDiisAfter) + " iterations" + (first > 0 ? " of this run" : "");
      report_diis_memory(ctx, label + ": peak memory after " + when,
                         ctx.comm.allreduce_max(static_cast<double>(it.diis_pair_words)), held, full);
    };
    const int interval = in.checkpoint.interval;
    char line[160];
    char t3[24] = "";
    if (triples) std::snprintf(t3, sizeof t3, "  %10.4e", it.delta_t3);
    // (An energy running away, before it diverges, keeps its exponent.)
    const char* format = printed_with_exponent(it.energy) ? "%5d  %24.14e  %11.4e  %10.4e%s  %7.2f"
                                                           : "%5d  %24.14f  %11.4e  %10.4e%s  %7.2f";
    std::snprintf(line, sizeof line, format, it.number, it.energy, it.delta_e,
                  it.delta_t, t3, it.seconds);
    if (!stop && !(interval > 0 && it.number % interval == 0)) {
      ckpt.finish();  // the line of the iteration saved last comes first
      ctx.log.print("%s\n", line);
      warn();
      report();
      return stop;
    }
    // The line says the file holds this iteration: it is printed once the
    // file is in place, by rank 0's commit thread while the next iteration
    // runs (finish() waits for it at the latest), or here for a stop signal.
    const auto commit = stop || report_memory || runaway ? CcCheckpoint::Commit::now
                                                         : CcCheckpoint::Commit::background;
    ckpt.save(method, x, last, commit,
              [&log = ctx.log, text = std::string(line)](double s) { log.print("%s  %9.3f\n", text.c_str(), s); });
    saved = it.number;
    warn();
    report();
    return stop;
  };
  cc::SolverResult res = cc::solve(eq, mo, t, opt, first, hook);
  ckpt.finish();
  if (saved != res.iterations) {  // always after the last iteration
    const double seconds = ckpt.save(method, t, last);
    if (!res.seconds.empty()) res.seconds.back() += seconds;
    ctx.log.print("checkpoint: %s amplitudes of iteration %d written to %s (%.3f s)\n", label.c_str(),
                  res.iterations, ckpt.path().c_str(), seconds);
  }
  if (res.stopped) log_stop(ctx, method, res.iterations);
  return res;
}

}  // namespace cyclocc::app
