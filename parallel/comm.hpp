// Communicator wrapper: the only MPI the layers above see.
//
// Everything above parallel/ receives a Comm and never names MPI_COMM_WORLD.
// Collective calls count the words (8-byte values) that leave and enter this
// rank, so the tensor layer can compare what moved with what it predicted.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "parallel/buffer.hpp"
#include "parallel/stats.hpp"

namespace cyclocc::par {

class Comm {
 public:
  // Wraps (does not own) an MPI communicator.
  explicit Comm(MPI_Comm comm);

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  MPI_Comm raw() const { return comm_; }

  void barrier() const;

  void allreduce_sum(double* x, std::size_t n) const;
  void allreduce_sum(std::int64_t* x, std::size_t n) const;
  double allreduce_sum(double x) const;
  std::int64_t allreduce_sum(std::int64_t x) const;
  double allreduce_max(double x) const;
  std::int64_t allreduce_max(std::int64_t x) const;
  // True on every rank if any rank passed true.
  bool any(bool flag) const;
  // How many ranks of this communicator share this rank's node (its memory). Collective.
  int ranks_on_this_node() const;

  void bcast(void* data, std::size_t bytes, int root) const;
  void bcast(std::vector<double>& v, int root) const;
  void bcast(std::string& s, int root) const;

  // Gathers one 64-bit value from every rank, on every rank.
  std::vector<std::int64_t> allgather(std::int64_t x) const;

  // All-to-all exchange of doubles. send holds the blocks for rank 0, 1, ...
  // back to back with send_counts[r] values for rank r. Returns the received
  // values back to back, with recv_counts filled in. Words to and from this
  // rank itself are copied and not counted as moved.
  // The received values are the only content of the returned buffer.
  Buffer<double> alltoallv(std::span<const double> send, const std::vector<std::int64_t>& send_counts,
                           std::vector<std::int64_t>& recv_counts) const;
  // The same exchange when every rank already knows what it receives from
  // each rank (recv_counts, e.g. from a kept plan of the exchange): one
  // collective fewer. The counts must match the senders' send_counts.
  Buffer<double> alltoallv_known(std::span<const double> send, const std::vector<std::int64_t>& send_counts,
                                 const std::vector<std::int64_t>& recv_counts) const;
  // The same exchange for 64-bit integers (keys of sparse reads and writes).
  Buffer<std::int64_t> alltoallv(std::span<const std::int64_t> send, const std::vector<std::int64_t>& send_counts,
                                 std::vector<std::int64_t>& recv_counts) const;

  // Words moved by this rank since construction (sent to / received from others).
  std::int64_t words_sent() const { return counters_->words_sent; }
  std::int64_t words_received() const { return counters_->words_received; }
  // All-to-all exchanges (alltoallv, alltoallv_known) this rank took part in.
  std::int64_t exchanges() const { return counters_->exchanges; }

  Stats& stats() const { return counters_->stats; }

 private:
  struct Counters {
    std::int64_t words_sent = 0;
    std::int64_t words_received = 0;
    std::int64_t exchanges = 0;
    Stats stats;
  };
  template <class T>
  Buffer<T> exchange(std::span<const T> send, const std::vector<std::int64_t>& send_counts,
                     std::vector<std::int64_t>& recv_counts, MPI_Datatype type) const;
  template <class T>
  Buffer<T> exchange_known(std::span<const T> send, const std::vector<std::int64_t>& send_counts,
                           const std::vector<std::int64_t>& recv_counts, MPI_Datatype type) const;

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::shared_ptr<Counters> counters_;
};

// Owns MPI for the program's lifetime: MPI_Init in the constructor,
// MPI_Finalize in the destructor. The one place that names MPI_COMM_WORLD.
class Environment {
 public:
  Environment(int* argc, char*** argv);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  Comm& world() { return *world_; }
  // Ends every rank at once with the given code; for errors that only one
  // rank can see and that leave the others unable to continue.
  [[noreturn]] static void abort(int code);

 private:
  std::unique_ptr<Comm> world_;
};

}  // namespace cyclocc::par
