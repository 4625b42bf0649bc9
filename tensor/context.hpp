// The tensor layer's per-communicator state: the communicator, and caches of
// component tables, layouts and contraction plans. Every Tensor refers to one
// Context; nothing in the layer is global.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <memory>
#include <string>

#include "tensor/layout.hpp"

namespace cyclocc::par {
class Comm;  // parallel/comm.hpp: the tensor layer's headers do not expose MPI
}

namespace cyclocc::tensor {

struct ContractionPlan;

// A context keeps every layout it makes for its whole life, one per shape and
// mapping, so a layout's address names both: its bytes, for cache keys.
inline std::string layout_id(const Layout& L) {
  const Layout* at = &L;
  return std::string(reinterpret_cast<const char*>(&at), sizeof at);
}

class Context {
 public:
  explicit Context(const par::Comm& comm);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const par::Comm& comm() const { return comm_; }
  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  // The sum of x over the ranks (collective), for work the caller has split
  // between the ranks itself.
  double sum_over_ranks(double x) const;

  std::shared_ptr<const ComponentTable> table(const std::vector<Group>& groups, int phase);
  std::shared_ptr<const Layout> layout(const Shape& shape, const Mapping& map);

  // The mapping a new tensor gets: all ranks along its longest lone index (a
  // group of one) when that has at least 4 values per rank, else along the
  // group with the most tuples, else the ranks spread over several groups.
  Mapping default_mapping(const Shape& shape) const;

  // Contraction plans, keyed by the contraction's signature.
  std::unordered_map<std::string, std::shared_ptr<const ContractionPlan>>& plans() { return plans_; }
  // Cached derived data of layers built on tensors (e.g. spin expansions).
  std::unordered_map<std::string, std::shared_ptr<const void>>& extensions() { return extensions_; }

  // Redistributions that repeat (every CC iteration) keep their worked-out
  // index lists (remap.cpp) while all kept lists fit in this many bytes per
  // rank; the rest are worked out on every call.
  void set_program_budget(std::int64_t bytes) { program_budget_ = bytes; }
  std::int64_t program_budget() const { return program_budget_; }
  std::int64_t program_bytes() const { return program_bytes_; }
  // Takes `bytes` more of the budget (negative: gives some back). False, and
  // nothing taken, when that would exceed the budget.
  bool reserve_program_bytes(std::int64_t bytes);

  // Local lists that only this rank's arithmetic reads (the diagonal weights
  // of contract.cpp), kept while they fit in 64 MB per rank. Unlike the
  // program budget, which every rank charges alike so that all ranks keep
  // the same redistributions, each rank charges its own sizes here: nothing
  // another rank does depends on what one keeps.
  bool reserve_local_list_bytes(std::int64_t bytes);

  // A constant operand's prepared copy (Tensor::set_constant) counts as free
  // in the contraction plans' cost model only while no rank's part of it is
  // larger than this many words (128 MB): a kept copy of the largest
  // integrals doubles their memory, or multiplies it by P when made whole on
  // every rank (unrestricted <vv||vv> at 3 ranks: 5 GB per rank). Larger
  // copies count as moved at every use, and contract() does not keep them
  // (the limit is per copy: several copies just below it can add up).
  // Setting it forgets the plans made so far.
  void set_kept_copy_words(std::int64_t words) {
    kept_copy_words_ = words;
    plans_.clear();
  }
  std::int64_t kept_copy_words() const { return kept_copy_words_; }

  // Whether tensors made Tensor::Unset start as NaN rather than unset, so
  // that reading an element before it is written shows in the results. Set
  // from the environment variable CYCLOCC_POISON_UNSET (the MPI tests' main
  // sets it); off in production.
  bool poison_unset() const { return poison_unset_; }

 private:
  const par::Comm& comm_;
  int rank_ = 0;
  int nranks_ = 1;
  std::unordered_map<std::string, std::shared_ptr<const ComponentTable>> tables_;
  std::unordered_map<std::string, std::shared_ptr<const Layout>> layouts_;
  std::unordered_map<std::string, std::shared_ptr<const ContractionPlan>> plans_;
  std::unordered_map<std::string, std::shared_ptr<const void>> extensions_;
  std::int64_t program_budget_ = std::int64_t{256} << 20;
  std::int64_t program_bytes_ = 0;
  std::int64_t local_list_bytes_ = 0;
  std::int64_t kept_copy_words_ = std::int64_t{1} << 24;
  bool poison_unset_ = false;
};

// While it lives, the context keeps no new redistribution programs: for
// one-off work such as the integral transformation, whose moves never repeat
// often enough to pay for the memory.
class OneOffMoves {
 public:
  explicit OneOffMoves(Context& ctx) : ctx_(ctx), budget_(ctx.program_budget()) { ctx.set_program_budget(0); }
  ~OneOffMoves() { ctx_.set_program_budget(budget_); }
  OneOffMoves(const OneOffMoves&) = delete;
  OneOffMoves& operator=(const OneOffMoves&) = delete;

 private:
  Context& ctx_;
  std::int64_t budget_;
};

}  // namespace cyclocc::tensor
