// The HDF5 checkpoint of a calculation (layout: docs/checkpoint.md).
//
// One file per calculation, written collectively with parallel HDF5 (MPI-IO)
// on the run's communicator. A checkpoint is always written whole, to
// PATH.tmp in the same folder, and only commit() replaces PATH: all ranks
// close the file, rank 0 fsyncs it and renames it over the old one, then the
// ranks meet. A kill at any moment leaves the previous checkpoint intact; a
// stale PATH.tmp from a killed run is simply overwritten. PATH.tmp starts
// empty, or as a copy of PATH (or as the checkpoint PATH replaced, kept as
// PATH.prev) when the caller wrote PATH itself and changes only some of it
// (the CC iterations): the writer then overwrites datasets of the same shape
// and attributes of the same type in place.
//
// Every dataset carries a "checksum" attribute (HDF5 does not checksum raw
// data) that readers verify; metadata is covered by HDF5's own checksums
// (the file is written with the 1.10 format, whose object headers have them).
//
// Arrays are stored in a canonical order independent of the number of ranks:
// a distributed array is written from each rank's contiguous piece
// [offset, offset + count) of the global 1-D array (write_distributed), so a
// run can restart on any rank count (read_distributed).
//
// All member functions are collective over the communicator given to the
// constructor unless they say otherwise, and throw CheckpointError on every
// rank alike, with a one-line message that names the file.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "chem/basis.hpp"
#include "chem/scf.hpp"
#include "input/input.hpp"
#include "parallel/comm.hpp"

namespace cyclocc::chem {

// Version of the layout in docs/checkpoint.md; a reader refuses other versions.
inline constexpr int kCheckpointFormatVersion = 1;

// A checkpoint that cannot be read, is damaged, or belongs to another
// calculation (exit code 4).
class CheckpointError : public std::runtime_error {
 public:
  explicit CheckpointError(const std::string& message) : std::runtime_error(message) {}
};

// What a checkpoint must share with the input to be reused (DESIGN.md §8):
// geometry to 1e-10 bohr, basis, puream, charge, multiplicity, reference.
// nbf is checked as well, in case a library basis file changed under a name.
struct CheckpointIdentity {
  std::vector<int> Z;
  std::vector<double> geometry;   // bohr, x y z per atom
  int charge = 0;
  int multiplicity = 1;
  std::string basis;
  bool puream = true;
  int nbf = 0;
  std::string reference;
  std::vector<double> shells;  // shell_data(); empty in files written before it was kept
};

inline constexpr double kGeometryMatchBohr = 1.0e-10;

CheckpointIdentity checkpoint_identity(const input::Input& in, const Basis& basis);

// Empty if a checkpoint of `stored` may be reused for `wanted`; otherwise a
// short description of the first difference, e.g.
// "basis differs (sto-3g in the checkpoint, cc-pvdz in the input)".
std::string identity_mismatch(const CheckpointIdentity& stored, const CheckpointIdentity& wanted);

// How a dataset's checksum hashes one element (the file's root attribute
// checksum_algorithm names it; see docs/checkpoint.md). Writers use Mix64;
// readers verify whichever the file names.
enum class ChecksumKind { Fnv1a, Mix64 };

// The checksum of a piece of a 1-D array of 8-byte values whose first element
// has global index `first`: the sum modulo 2^64 over the elements of a hash of
// (global index, value bits). Mix64: m(v + m(i + 0x9e3779b97f4a7c15)) with m
// the SplitMix64 finaliser, a bijection of v for each i, so any change of one
// element changes the sum. Fnv1a (files written before): FNV-1a-64 of the 8
// little-endian bytes of i followed by those of v. Sums of pieces add up to
// the checksum of the whole, whatever the distribution.
std::uint64_t checksum_piece(const double* values, std::int64_t count, std::int64_t first,
                             ChecksumKind kind = ChecksumKind::Mix64);
std::uint64_t checksum_piece(const std::int64_t* values, std::int64_t count, std::int64_t first,
                             ChecksumKind kind = ChecksumKind::Mix64);

// Reads a checkpoint, opened read-only (it is never modified through this).
class CheckpointReader {
 public:
  // Opens `path`. Throws CheckpointError if it is not a readable cyclocc
  // checkpoint of this format version.
  CheckpointReader(const par::Comm& comm, std::string path);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  const std::string& path() const { return path_; }

  CheckpointIdentity read_identity() const;
  // The stored SCF (orbitals, energies, occupations), checksums verified.
  ScfResult read_scf() const;

  // Generic access for later stages. Names are HDF5 paths ("/ccsd/t2_abab").
  bool exists(const std::string& name) const;
  // The names of the members (groups, datasets) of a group, in name order
  // (empty if the group does not exist).
  std::vector<std::string> members(const std::string& group) const;
  std::int64_t read_int(const std::string& object, const std::string& attribute) const;
  double read_double(const std::string& object, const std::string& attribute) const;
  std::string read_string(const std::string& object, const std::string& attribute) const;
  // Dimensions of a dataset.
  std::vector<std::int64_t> shape(const std::string& dataset) const;
  // The whole dataset (row-major) on every rank, checksum verified.
  std::vector<double> read_array(const std::string& dataset) const;
  std::vector<std::int64_t> read_int_array(const std::string& dataset) const;
  // This rank's piece [offset, offset + count) of a dataset viewed as 1-D.
  // The pieces of all ranks must tile the dataset exactly (a rank may have
  // count 0); the checksum of the whole is verified from the pieces.
  std::vector<double> read_distributed(const std::string& dataset, std::int64_t offset,
                                       std::int64_t count) const;

 private:
  const par::Comm& comm_;
  std::string path_;
  std::int64_t file_ = -1;  // hid_t
  ChecksumKind checksum_ = ChecksumKind::Mix64;
};

// A commit whose last steps run on a thread of rank 0 (fsync, rename, fsync
// of the folder) while the ranks go on: CheckpointWriter::commit_in_background.
class CommitInFlight {
 public:
  // std::launch::async: on a thread now; std::launch::deferred: in finish().
  CommitInFlight(const par::Comm& comm, std::string path, std::string tmp_path, std::string kept,
                 std::function<void()> then, std::launch when);
  // Waits for the rename and fails (CheckpointError on every rank alike) if
  // it failed; the ranks meet here, as at the end of commit(). Collective.
  void finish();
  CommitInFlight(CommitInFlight&&) = default;
  CommitInFlight& operator=(CommitInFlight&&) = default;
  // Without finish(), rank 0 still waits for its thread (not collective).
  ~CommitInFlight() = default;

 private:
  const par::Comm* comm_;
  std::string path_, tmp_path_;
  std::future<bool> moved_;  // rank 0's thread: whether PATH.tmp is now PATH
};

// The file access (MPI-IO on the run's communicator) of checkpoint writes,
// made once and kept for a run's many writes: making it costs collective
// calls (about 0.3 ms of each CC iteration's write at 2 ranks).
class CheckpointAccess {
 public:
  explicit CheckpointAccess(const par::Comm& comm);
  ~CheckpointAccess();
  CheckpointAccess(const CheckpointAccess&) = delete;
  CheckpointAccess& operator=(const CheckpointAccess&) = delete;
  std::int64_t fapl() const { return fapl_; }  // an HDF5 hid_t

 private:
  std::int64_t fapl_;
};

// Writes a new checkpoint to PATH.tmp; commit() puts it in place.
class CheckpointWriter {
 public:
  // How PATH.tmp starts: empty; as a copy of PATH; or as PATH.prev, the
  // checkpoint that PATH replaced, kept by commit(Keep::previous) (renamed,
  // not copied: for a caller that knows what differs from PATH and writes
  // it again). Without PATH.prev it starts as a copy, and if PATH cannot be
  // copied (it was removed meanwhile) empty: see from_copy().
  enum class Start { empty, copy, previous };
  // Creates PATH.tmp (overwriting a stale one) and writes the format header;
  // through `access` (made on the same communicator) when given.
  CheckpointWriter(const par::Comm& comm, std::string path, Start start = Start::empty,
                   const CheckpointAccess* access = nullptr);
  // Whether PATH.tmp started as a copy of PATH or as PATH.prev.
  bool from_copy() const { return from_copy_; }
  // Without commit(): closes and removes PATH.tmp; PATH is untouched.
  // (Collective: destroy it on all ranks alike.)
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  const std::string& path() const { return path_; }

  // Throws CheckpointError (on every rank) unless PATH's folder has room for
  // about `bytes` more (checkpoint_commit.cpp). Call it before writing: a
  // collective write that fails on one rank cannot end cleanly on the others.
  void require_free_space(std::int64_t bytes);

  // /molecule, /basis (and the reference, stored with the SCF).
  void write_identity(const CheckpointIdentity& id);
  // /scf (needs write_identity first for the reference check on reading).
  void write_scf(const ScfResult& scf);

  // Generic writing for later stages. Groups are created with their parents.
  void create_group(const std::string& name);
  // Attributes take the same value on every rank.
  void set_int(const std::string& object, const std::string& attribute, std::int64_t value);
  void set_double(const std::string& object, const std::string& attribute, double value);
  void set_string(const std::string& object, const std::string& attribute, const std::string& value);
  // A replicated array (the same values on every rank; rank 0 writes them),
  // stored with the given dimensions (row-major; empty dims = 1-D).
  void write_array(const std::string& dataset, const std::vector<double>& values,
                   const std::vector<std::int64_t>& dims = {});
  void write_int_array(const std::string& dataset, const std::vector<std::int64_t>& values);
  // A distributed 1-D array of `total` values: this rank writes its piece
  // [offset, offset + count) from `values` (a rank with nothing passes
  // count 0 and still calls). The pieces must tile [0, total).
  void write_distributed(const std::string& dataset, std::int64_t total, std::int64_t offset,
                         const double* values, std::int64_t count);
  // Copies the 1-D dataset `dataset` of `from` (another file) to the same
  // name here, each rank moving its even_piece() of it, so no rank holds
  // more than its share. The stored checksum is verified on the way.
  void copy_distributed(const CheckpointReader& from, const std::string& dataset);

  // Closes the file and renames PATH.tmp over PATH (see the file comment).
  // With Keep::previous the checkpoint it replaces stays as PATH.prev (a
  // hard link made first; without one, nothing is kept), for Start::previous:
  // the next write then moves it instead of copying PATH, and the rename
  // frees no blocks. remove_previous_checkpoint() removes it.
  enum class Keep { nothing, previous };
  void commit(Keep keep = Keep::nothing);
  // The same, with rank 0 doing the fsync and the renames on a thread of its
  // own, calling `then` there once PATH is the new checkpoint (not if the
  // rename failed). PATH is the old checkpoint or the new one at every
  // moment; finish() the result before PATH is read or written again.
  CommitInFlight commit_in_background(Keep keep, std::function<void()> then);

 private:
  void close_file();
  CommitInFlight start_commit(Keep keep, std::function<void()> then, std::launch when);

  const par::Comm& comm_;
  std::string path_;
  std::string tmp_path_;
  std::int64_t file_ = -1;  // hid_t
  bool from_copy_ = false;
  bool committed_ = false;
};

// An even split of [0, total) over `size` ranks: rank r's piece
// {offset, count}, the first total % size ranks taking one more.
std::pair<std::int64_t, std::int64_t> even_piece(std::int64_t total, int rank, int size);

// PATH.tmp, the name a checkpoint is written under before commit().
std::string checkpoint_temp_path(const std::string& path);
// PATH.prev, the checkpoint replaced by commit(Keep::previous).
std::string checkpoint_previous_path(const std::string& path);
// Removes PATH.prev (rank 0; not collective, it never fails).
void remove_previous_checkpoint(const par::Comm& comm, const std::string& path);

// Collective: whether a checkpoint file exists (rank 0 looks, every rank learns).
bool checkpoint_exists(const par::Comm& comm, const std::string& path);

// Whether `path` is an HDF5 file whose root attribute "format" names a cyclocc
// checkpoint (of any format version). Not collective: the calling process
// opens it alone, read-only.
bool is_cyclocc_checkpoint(const std::string& path);

}  // namespace cyclocc::chem
