// The tensor layer's per-communicator state: the communicator, and caches of
// component tables, layouts and contraction plans. Every Tensor refers to one
// Context; nothing in the layer is global.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "tensor/layout.hpp"

namespace cyclocc::par {
class Comm;  // parallel/comm.hpp: the tensor layer's headers do not expose MPI
}

namespace cyclocc::tensor {

struct ContractionPlan;

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
  std::map<std::string, std::shared_ptr<const ContractionPlan>>& plans() { return plans_; }
  // Cached derived data of layers built on tensors (e.g. spin expansions).
  std::map<std::string, std::shared_ptr<const void>>& extensions() { return extensions_; }

 private:
  const par::Comm& comm_;
  int rank_ = 0;
  int nranks_ = 1;
  std::map<std::string, std::shared_ptr<const ComponentTable>> tables_;
  std::map<std::string, std::shared_ptr<const Layout>> layouts_;
  std::map<std::string, std::shared_ptr<const ContractionPlan>> plans_;
  std::map<std::string, std::shared_ptr<const void>> extensions_;
};

}  // namespace cyclocc::tensor
