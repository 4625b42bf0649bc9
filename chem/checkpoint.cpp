#include "chem/checkpoint.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <optional>
#include <sstream>
#include <type_traits>

#ifndef CYCLOCC_VERSION
#define CYCLOCC_VERSION "unknown"
#endif

namespace cyclocc::chem {

static_assert(std::is_same_v<hid_t, std::int64_t>, "hid_t is stored as int64_t in the header");

namespace {

constexpr const char* kFormatName = "cyclocc checkpoint";
// The checksum_algorithm names, by ChecksumKind.
constexpr const char* kFnvChecksumName = "fnv1a64-indexed-sum";
constexpr const char* kMixChecksumName = "splitmix64-indexed-sum";

// ---- small HDF5 helpers --------------------------------------------------

// Owns one HDF5 identifier and closes it with the matching function.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw CheckpointError("checkpoint " + path + ": " + what);
}

// The library prints its error stack by default; we report errors ourselves.
void silence_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

hid_t file_access(const par::Comm& comm, bool for_writing) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, comm.raw(), MPI_INFO_NULL);
  // The 1.10 format checksums object headers (and so our attributes).
  if (for_writing) H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110);
  return fapl;
}

hid_t collective_transfer() {
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  return dxpl;
}

// The value of a fixed-length string attribute of `object`, or nothing if it
// is missing or not one.
std::optional<std::string> string_attribute(hid_t file, const std::string& object, const std::string& name) {
  Handle obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
  if (!obj.ok() || H5Aexists(obj.get(), name.c_str()) <= 0) return std::nullopt;
  Handle attr(H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
  Handle type(attr.ok() ? H5Aget_type(attr.get()) : -1, H5Tclose);
  if (!type.ok() || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0)
    return std::nullopt;
  std::string value(H5Tget_size(type.get()), '\0');
  if (H5Aread(attr.get(), type.get(), value.data()) < 0) return std::nullopt;
  value.resize(std::strlen(value.c_str()));
  return value;
}

// Link creation that makes missing parent groups.
hid_t link_creation() {
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  return lcpl;
}

template <class T>
hid_t native_type() {
  if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
  else return H5T_NATIVE_INT64;
}
template <class T>
hid_t file_type() {
  if constexpr (std::is_same_v<T, double>) return H5T_IEEE_F64LE;
  else return H5T_STD_I64LE;
}

std::int64_t product(const std::vector<std::int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), std::int64_t{1}, std::multiplies<>());
}

// ---- checksum --------------------------------------------------------------

// FNV-1a, 64-bit (offset basis and prime from Fowler, Noll and Vo's reference).
constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

std::uint64_t fnv1a_word(std::uint64_t h, std::uint64_t word) {
  for (int b = 0; b < 8; ++b) {  // little-endian byte order, whatever the machine
    h ^= (word >> (8 * b)) & 0xffu;
    h *= kFnvPrime;
  }
  return h;
}

// The finaliser of SplitMix64 (Steele, Lea and Flood, OOPSLA 2014, with the
// constants of Stafford's variant 13): a bijection of 64-bit words.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ull;

template <class T>
std::uint64_t checksum_of(const T* values, std::int64_t count, std::int64_t first,
                          ChecksumKind kind = ChecksumKind::Mix64) {
  std::uint64_t sum = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    std::uint64_t bits;
    std::memcpy(&bits, &values[i], sizeof bits);
    const auto index = static_cast<std::uint64_t>(first + i);
    sum += kind == ChecksumKind::Mix64 ? mix64(bits + mix64(index + kGolden))
                                       : fnv1a_word(fnv1a_word(kFnvOffset, index), bits);
  }
  return sum;
}

}  // namespace

std::uint64_t checksum_piece(const double* values, std::int64_t count, std::int64_t first, ChecksumKind kind) {
  return checksum_of(values, count, first, kind);
}
std::uint64_t checksum_piece(const std::int64_t* values, std::int64_t count, std::int64_t first,
                             ChecksumKind kind) {
  return checksum_of(values, count, first, kind);
}

std::string checkpoint_temp_path(const std::string& path) { return path + ".tmp"; }
std::string checkpoint_previous_path(const std::string& path) { return path + ".prev"; }

void remove_previous_checkpoint(const par::Comm& comm, const std::string& path) {
  if (comm.root()) std::remove(checkpoint_previous_path(path).c_str());
}

bool checkpoint_exists(const par::Comm& comm, const std::string& path) {
  std::int64_t exists = 0;
  if (comm.root()) {
    std::error_code ec;
    exists = std::filesystem::exists(path, ec) ? 1 : 0;
  }
  comm.bcast(&exists, sizeof exists, 0);
  return exists != 0;
}

bool is_cyclocc_checkpoint(const std::string& path) {
  silence_hdf5();
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  return file.ok() && string_attribute(file.get(), "/", "format") == std::optional<std::string>(kFormatName);
}

std::pair<std::int64_t, std::int64_t> even_piece(std::int64_t total, int rank, int size) {
  const std::int64_t base = total / size, extra = total % size;
  return {rank * base + std::min<std::int64_t>(rank, extra), base + (rank < extra ? 1 : 0)};
}

// ---- identity ---------------------------------------------------------------

CheckpointIdentity checkpoint_identity(const input::Input& in, const Basis& basis) {
  CheckpointIdentity id;
  for (const auto& atom : in.molecule.atoms) {
    id.Z.push_back(atom.Z);
    id.geometry.insert(id.geometry.end(), atom.xyz.begin(), atom.xyz.end());
  }
  id.charge = in.molecule.charge;
  id.multiplicity = in.molecule.multiplicity;
  id.basis = in.basis;
  id.puream = basis.pure;
  id.nbf = basis.nbf;
  id.reference = in.scf.reference;
  id.shells = shell_data(basis);
  return id;
}

namespace {

template <class T>
std::string differs(const std::string& what, const T& stored, const T& wanted) {
  std::ostringstream s;
  s.precision(12);
  s << what << " differs (" << stored << " in the checkpoint, " << wanted << " in the input)";
  return s.str();
}

std::string geometry_mismatch(const CheckpointIdentity& a, const CheckpointIdentity& b) {
  if (a.Z.size() != b.Z.size() || a.geometry.size() != b.geometry.size())
    return differs("number of atoms", a.Z.size(), b.Z.size());
  for (std::size_t i = 0; i < a.Z.size(); ++i)
    if (a.Z[i] != b.Z[i])
      return differs("atomic number of atom " + std::to_string(i + 1), a.Z[i], b.Z[i]);
  static const char* axis[] = {"x", "y", "z"};
  for (std::size_t k = 0; k < a.geometry.size(); ++k)
    if (!(std::fabs(a.geometry[k] - b.geometry[k]) <= kGeometryMatchBohr))
      return differs("geometry: atom " + std::to_string(k / 3 + 1) + " " + axis[k % 3] + " (bohr)",
                     a.geometry[k], b.geometry[k]);
  return {};
}

}  // namespace

std::string identity_mismatch(const CheckpointIdentity& stored, const CheckpointIdentity& wanted) {
  if (auto g = geometry_mismatch(stored, wanted); !g.empty()) return g;
  if (stored.charge != wanted.charge) return differs("charge", stored.charge, wanted.charge);
  if (stored.multiplicity != wanted.multiplicity)
    return differs("multiplicity", stored.multiplicity, wanted.multiplicity);
  if (stored.basis != wanted.basis) return differs("basis", stored.basis, wanted.basis);
  if (stored.puream != wanted.puream)
    return differs("puream", stored.puream ? "true" : "false", wanted.puream ? "true" : "false");
  if (stored.nbf != wanted.nbf) return differs("number of basis functions", stored.nbf, wanted.nbf);
  // To 1e-12 relative: the coefficients are normalised by the library's arithmetic.
  const auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)); };
  if (!stored.shells.empty() && !std::equal(stored.shells.begin(), stored.shells.end(), wanted.shells.begin(),
                                            wanted.shells.end(), near))
    return "basis differs: the exponents or coefficients of " + wanted.basis +
           " are not those in the checkpoint (was its file edited?)";
  if (stored.reference != wanted.reference)
    return differs("scf.reference", stored.reference, wanted.reference);
  return {};
}

// ---- reader -------------------------------------------------------------------

CheckpointReader::CheckpointReader(const par::Comm& comm, std::string path)
    : comm_(comm), path_(std::move(path)) {
  silence_hdf5();
  Handle fapl(file_access(comm_, false), H5Pclose);
  file_ = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, fapl.get());
  if (comm_.any(file_ < 0)) {
    if (file_ >= 0) H5Fclose(file_);
    file_ = -1;
    const bool unreadable = ::access(path_.c_str(), F_OK) == 0 && ::access(path_.c_str(), R_OK) != 0;
    fail(path_, unreadable ? "cannot be read (permission denied)"
                           : "cannot be opened as HDF5 (missing, truncated or not a checkpoint)");
  }
  std::string format;
  std::int64_t version = -1;
  try {
    format = read_string("/", "format");
    version = read_int("/", "format_version");
  } catch (const CheckpointError&) {
    format.clear();
  }
  if (format != kFormatName) {
    H5Fclose(file_);
    file_ = -1;
    fail(path_, "not a cyclocc checkpoint");
  }
  if (version != kCheckpointFormatVersion) {
    H5Fclose(file_);
    file_ = -1;
    fail(path_, "format version " + std::to_string(version) + ", this program reads version " +
                    std::to_string(kCheckpointFormatVersion));
  }
  std::string algorithm;
  try {
    algorithm = read_string("/", "checksum_algorithm");
  } catch (const CheckpointError&) {
  }
  if (algorithm == kFnvChecksumName) checksum_ = ChecksumKind::Fnv1a;
  else if (algorithm == kMixChecksumName) checksum_ = ChecksumKind::Mix64;
  else {
    H5Fclose(file_);
    file_ = -1;
    fail(path_, "unknown checksum_algorithm '" + algorithm + "'");
  }
}

CheckpointReader::~CheckpointReader() {
  if (file_ >= 0) H5Fclose(file_);
}

bool CheckpointReader::exists(const std::string& name) const {
  if (name == "/") return true;
  // H5Lexists needs every parent to exist: walk the path.
  std::string prefix;
  std::stringstream parts(name);
  std::string part;
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    prefix += "/" + part;
    if (H5Lexists(file_, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
  }
  return true;
}

namespace {

herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->emplace_back(name);
  return 0;
}

}  // namespace

std::vector<std::string> CheckpointReader::members(const std::string& group) const {
  std::vector<std::string> names;
  if (!exists(group)) return names;
  Handle g(H5Gopen2(file_, group.c_str(), H5P_DEFAULT), H5Gclose);
  bool ok = g.ok() && H5Literate(g.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names) >= 0;
  if (comm_.any(!ok)) fail(path_, "cannot list the members of " + group + " (corrupt file)");
  return names;
}

namespace {

// Reads a scalar attribute of `object` into `out` (memory type `type`).
bool read_attribute(hid_t file, const std::string& object, const std::string& name, hid_t type,
                    void* out) {
  Handle obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
  if (!obj.ok()) return false;
  if (H5Aexists(obj.get(), name.c_str()) <= 0) return false;
  Handle attr(H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
  return attr.ok() && H5Aread(attr.get(), type, out) >= 0;
}

}  // namespace

std::int64_t CheckpointReader::read_int(const std::string& object, const std::string& attribute) const {
  std::int64_t v = 0;
  if (!read_attribute(file_, object, attribute, H5T_NATIVE_INT64, &v))
    fail(path_, "missing or unreadable attribute " + attribute + " of " + object);
  return v;
}

double CheckpointReader::read_double(const std::string& object, const std::string& attribute) const {
  double v = 0;
  if (!read_attribute(file_, object, attribute, H5T_NATIVE_DOUBLE, &v))
    fail(path_, "missing or unreadable attribute " + attribute + " of " + object);
  return v;
}

std::string CheckpointReader::read_string(const std::string& object, const std::string& attribute) const {
  std::optional<std::string> value = string_attribute(file_, object, attribute);
  if (!value) fail(path_, "missing or unreadable attribute " + attribute + " of " + object);
  return *value;
}

std::vector<std::int64_t> CheckpointReader::shape(const std::string& dataset) const {
  Handle ds(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) fail(path_, "missing dataset " + dataset);
  Handle space(H5Dget_space(ds.get()), H5Sclose);
  int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) fail(path_, "unreadable dataspace of " + dataset);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return {dims.begin(), dims.end()};
}

namespace {

std::uint64_t stored_checksum(hid_t ds) {
  std::uint64_t sum = 0;
  if (H5Aexists(ds, "checksum") <= 0) return 0;
  Handle attr(H5Aopen(ds, "checksum", H5P_DEFAULT), H5Aclose);
  if (!attr.ok() || H5Aread(attr.get(), H5T_NATIVE_UINT64, &sum) < 0) return 0;
  return sum;
}

template <class T>
std::vector<T> read_whole(const par::Comm& comm, hid_t file, const std::string& path,
                          const std::string& name, std::int64_t n, ChecksumKind kind) {
  std::vector<T> values(static_cast<std::size_t>(n));
  Handle ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  bool ok = ds.ok() && (n == 0 || H5Dread(ds.get(), native_type<T>(), H5S_ALL, H5S_ALL,
                                          H5P_DEFAULT, values.data()) >= 0);
  if (comm.any(!ok)) fail(path, "cannot read dataset " + name + " (truncated or corrupt file)");
  bool good = stored_checksum(ds.get()) == checksum_of(values.data(), n, 0, kind);
  if (comm.any(!good)) fail(path, "checksum mismatch in dataset " + name + " (corrupt file)");
  return values;
}

}  // namespace

std::vector<double> CheckpointReader::read_array(const std::string& dataset) const {
  return read_whole<double>(comm_, file_, path_, dataset, product(shape(dataset)), checksum_);
}

std::vector<std::int64_t> CheckpointReader::read_int_array(const std::string& dataset) const {
  return read_whole<std::int64_t>(comm_, file_, path_, dataset, product(shape(dataset)), checksum_);
}

namespace {

// True if the pieces [offset, offset + count) of all ranks tile [0, total).
bool pieces_tile(const par::Comm& comm, std::int64_t total, std::int64_t offset, std::int64_t count) {
  auto offsets = comm.allgather(offset);
  auto counts = comm.allgather(count);
  std::vector<std::pair<std::int64_t, std::int64_t>> pieces;
  for (std::size_t r = 0; r < offsets.size(); ++r) {
    if (counts[r] < 0) return false;
    if (counts[r] > 0) pieces.emplace_back(offsets[r], counts[r]);
  }
  std::sort(pieces.begin(), pieces.end());
  std::int64_t next = 0;
  for (const auto& [o, c] : pieces) {
    if (o != next) return false;
    next += c;
  }
  return next == total;
}

// Selects [offset, offset + count) of a 1-D dataspace, or nothing.
void select_piece(hid_t space, std::int64_t offset, std::int64_t count) {
  if (count == 0) {
    H5Sselect_none(space);
    return;
  }
  hsize_t start = static_cast<hsize_t>(offset), n = static_cast<hsize_t>(count);
  H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &n, nullptr);
}

// A 1-D memory space of `count` values (nothing selected if count is 0).
hid_t memory_space(std::int64_t count) {
  hsize_t n = static_cast<hsize_t>(std::max<std::int64_t>(count, 1));
  hid_t space = H5Screate_simple(1, &n, nullptr);
  if (count == 0) H5Sselect_none(space);
  return space;
}

std::uint64_t total_checksum(const par::Comm& comm, std::uint64_t mine) {
  std::uint64_t sum = 0;
  for (std::int64_t part : comm.allgather(static_cast<std::int64_t>(mine)))
    sum += static_cast<std::uint64_t>(part);
  return sum;
}

}  // namespace

std::vector<double> CheckpointReader::read_distributed(const std::string& dataset, std::int64_t offset,
                                                       std::int64_t count) const {
  const auto dims = shape(dataset);
  if (dims.size() != 1) throw std::invalid_argument("read_distributed: " + dataset + " is not 1-D");
  const std::int64_t total = dims[0];
  if (!pieces_tile(comm_, total, offset, count))
    throw std::invalid_argument("read_distributed: the pieces do not tile " + dataset);
  std::vector<double> values(static_cast<std::size_t>(std::max<std::int64_t>(count, 1)));
  Handle ds(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), H5Dclose);
  Handle file_space(H5Dget_space(ds.get()), H5Sclose);
  select_piece(file_space.get(), offset, count);
  Handle mem(memory_space(count), H5Sclose);
  Handle dxpl(collective_transfer(), H5Pclose);
  bool ok = total == 0 || H5Dread(ds.get(), H5T_NATIVE_DOUBLE, mem.get(), file_space.get(),
                                  dxpl.get(), values.data()) >= 0;
  if (comm_.any(!ok)) fail(path_, "cannot read dataset " + dataset + " (truncated or corrupt file)");
  values.resize(static_cast<std::size_t>(count));
  std::uint64_t sum = total_checksum(comm_, checksum_of(values.data(), count, offset, checksum_));
  if (comm_.any(sum != stored_checksum(ds.get())))
    fail(path_, "checksum mismatch in dataset " + dataset + " (corrupt file)");
  return values;
}

CheckpointIdentity CheckpointReader::read_identity() const {
  CheckpointIdentity id;
  for (std::int64_t z : read_int_array("/molecule/Z")) id.Z.push_back(static_cast<int>(z));
  id.geometry = read_array("/molecule/geometry");
  if (id.geometry.size() != 3 * id.Z.size()) fail(path_, "/molecule/geometry has the wrong shape");
  id.charge = static_cast<int>(read_int("/molecule", "charge"));
  id.multiplicity = static_cast<int>(read_int("/molecule", "multiplicity"));
  id.basis = read_string("/basis", "name");
  id.puream = read_int("/basis", "puream") != 0;
  id.nbf = static_cast<int>(read_int("/basis", "nbf"));
  id.reference = read_string("/scf", "reference");
  if (exists("/basis/shells")) id.shells = read_array("/basis/shells");
  return id;
}

namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void read_spin(const CheckpointReader& r, const std::string& group, int nbf, Eigen::MatrixXd& C,
               Eigen::VectorXd& eps, Eigen::VectorXd& occ) {
  auto dims = r.shape(group + "/coefficients");
  if (dims.size() != 2 || dims[0] != nbf)
    throw CheckpointError("checkpoint " + r.path() + ": " + group + "/coefficients has the wrong shape");
  const auto nmo = dims[1];
  auto c = r.read_array(group + "/coefficients");
  auto e = r.read_array(group + "/orbital_energies");
  auto o = r.read_array(group + "/occupations");
  if (static_cast<std::int64_t>(e.size()) != nmo || static_cast<std::int64_t>(o.size()) != nmo)
    throw CheckpointError("checkpoint " + r.path() + ": " + group + " arrays disagree in length");
  C = Eigen::Map<const RowMajor>(c.data(), nbf, nmo);
  eps = Eigen::Map<const Eigen::VectorXd>(e.data(), nmo);
  occ = Eigen::Map<const Eigen::VectorXd>(o.data(), nmo);
}

}  // namespace

ScfResult CheckpointReader::read_scf() const {
  if (!exists("/scf/alpha")) fail(path_, "holds no SCF results (/scf/alpha)");
  ScfResult s;
  s.reference = read_string("/scf", "reference");
  s.converged = read_int("/scf", "converged") != 0;
  s.iterations = static_cast<int>(read_int("/scf", "iterations"));
  s.energy = read_double("/scf", "energy");
  s.nuclear_repulsion = read_double("/scf", "nuclear_repulsion_energy");
  s.s2 = read_double("/scf", "s2");
  s.nbf = static_cast<int>(read_int("/scf", "nbf"));
  s.n_alpha = static_cast<int>(read_int("/scf", "n_alpha"));
  s.n_beta = static_cast<int>(read_int("/scf", "n_beta"));
  read_spin(*this, "/scf/alpha", s.nbf, s.C_alpha, s.eps_alpha, s.occ_alpha);
  s.nmo = static_cast<int>(s.C_alpha.cols());
  if (read_int("/scf", "nmo") != s.nmo) fail(path_, "/scf nmo disagrees with the coefficients");
  if (exists("/scf/beta")) read_spin(*this, "/scf/beta", s.nbf, s.C_beta, s.eps_beta, s.occ_beta);
  return s;
}

// ---- writer -------------------------------------------------------------------

static_assert(std::is_same_v<hid_t, std::int64_t>, "CheckpointAccess keeps a hid_t as std::int64_t");

CheckpointAccess::CheckpointAccess(const par::Comm& comm) : fapl_((silence_hdf5(), file_access(comm, true))) {}

CheckpointAccess::~CheckpointAccess() { H5Pclose(fapl_); }

CheckpointWriter::CheckpointWriter(const par::Comm& comm, std::string path, Start start,
                                   const CheckpointAccess* access)
    : comm_(comm), path_(std::move(path)), tmp_path_(checkpoint_temp_path(path_)) {
  silence_hdf5();
  const Handle own(access ? -1 : file_access(comm_, true), H5Pclose);
  const hid_t fapl = access ? access->fapl() : own.get();
  // A stale PATH.tmp, or a link of that name, is removed first: creating or
  // copying over a link would write into the file it points to.
  if (comm_.root()) std::remove(tmp_path_.c_str());
  if (start == Start::empty) comm_.barrier();  // removed before any rank creates it
  if (start != Start::empty) {
    bool ok = false;
    if (comm_.root()) {
      const std::string prev = checkpoint_previous_path(path_);
      ok = start == Start::previous && std::rename(prev.c_str(), tmp_path_.c_str()) == 0;
      std::error_code ec;
      if (!ok) std::filesystem::copy_file(path_, tmp_path_, std::filesystem::copy_options::overwrite_existing, ec);
      ok = ok || !ec;
    }
    from_copy_ = !comm_.any(comm_.root() && !ok);
  }
  if (from_copy_) file_ = H5Fopen(tmp_path_.c_str(), H5F_ACC_RDWR, fapl);
  else file_ = H5Fcreate(tmp_path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (comm_.any(file_ < 0)) {
    if (file_ >= 0) H5Fclose(file_);
    file_ = -1;
    fail(path_, "cannot create " + tmp_path_);
  }
  set_string("/", "format", kFormatName);
  set_int("/", "format_version", kCheckpointFormatVersion);
  set_string("/", "creator", std::string("cyclocc ") + CYCLOCC_VERSION);
  set_string("/", "checksum_algorithm", kMixChecksumName);
}

void CheckpointWriter::close_file() {
  if (file_ < 0) return;
  herr_t rc = H5Fclose(file_);
  file_ = -1;
  if (comm_.any(rc < 0)) fail(path_, "cannot close " + tmp_path_);
}

CheckpointWriter::~CheckpointWriter() {
  if (committed_) return;
  if (file_ >= 0) H5Fclose(file_);
  if (comm_.root()) std::remove(tmp_path_.c_str());
}

void CheckpointWriter::create_group(const std::string& name) {
  if (name == "/" || H5Lexists(file_, name.c_str(), H5P_DEFAULT) > 0) return;
  Handle lcpl(link_creation(), H5Pclose);
  Handle g(H5Gcreate2(file_, name.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  if (comm_.any(!g.ok())) fail(path_, "cannot create group " + name);
}

namespace {

// Writes a scalar attribute of obj: in place when it exists with this type.
bool put_attribute(hid_t obj, const std::string& name, hid_t mem_type, hid_t store_type, const void* value) {
  if (H5Aexists(obj, name.c_str()) > 0) {
    {
      Handle attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
      Handle type(attr.ok() ? H5Aget_type(attr.get()) : -1, H5Tclose);
      if (type.ok() && H5Tequal(type.get(), store_type) > 0) return H5Awrite(attr.get(), mem_type, value) >= 0;
    }
    H5Adelete(obj, name.c_str());
  }
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attr(H5Acreate2(obj, name.c_str(), store_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  return attr.ok() && H5Awrite(attr.get(), mem_type, value) >= 0;
}

void write_attribute(hid_t file, const std::string& object, const std::string& name, hid_t mem_type,
                     hid_t store_type, const void* value, bool& ok) {
  Handle obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
  if (!obj.ok()) { ok = false; return; }
  ok = put_attribute(obj.get(), name, mem_type, store_type, value);
}

}  // namespace

void CheckpointWriter::set_int(const std::string& object, const std::string& attribute, std::int64_t value) {
  bool ok = true;
  write_attribute(file_, object, attribute, H5T_NATIVE_INT64, H5T_STD_I64LE, &value, ok);
  if (comm_.any(!ok)) fail(path_, "cannot write attribute " + attribute + " of " + object);
}

void CheckpointWriter::set_double(const std::string& object, const std::string& attribute, double value) {
  bool ok = true;
  write_attribute(file_, object, attribute, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &value, ok);
  if (comm_.any(!ok)) fail(path_, "cannot write attribute " + attribute + " of " + object);
}

void CheckpointWriter::set_string(const std::string& object, const std::string& attribute,
                                  const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1));
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  std::string padded = value;
  padded.resize(std::max<std::size_t>(value.size(), 1), '\0');
  bool ok = true;
  write_attribute(file_, object, attribute, type.get(), type.get(), padded.data(), ok);
  if (comm_.any(!ok)) fail(path_, "cannot write attribute " + attribute + " of " + object);
}

namespace {

// The dataset `name` of this type and these dims: the existing one (in a
// copied file, overwritten in place), else created anew.
hid_t dataset_for(hid_t file, const std::string& name, hid_t type, hid_t space, const std::vector<hsize_t>& dims) {
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0) {
    {
      Handle ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
      Handle t(ds.ok() ? H5Dget_type(ds.get()) : -1, H5Tclose);
      Handle sp(ds.ok() ? H5Dget_space(ds.get()) : -1, H5Sclose);
      std::vector<hsize_t> have(dims.size() + 1, 0);
      const bool same = t.ok() && sp.ok() && H5Tequal(t.get(), type) > 0 &&
                        H5Sget_simple_extent_ndims(sp.get()) == static_cast<int>(dims.size()) &&
                        H5Sget_simple_extent_dims(sp.get(), have.data(), nullptr) >= 0 &&
                        std::equal(dims.begin(), dims.end(), have.begin());
      if (same) return H5Dopen2(file, name.c_str(), H5P_DEFAULT);
    }
    H5Ldelete(file, name.c_str(), H5P_DEFAULT);
  }
  Handle lcpl(link_creation(), H5Pclose);
  return H5Dcreate2(file, name.c_str(), type, space, lcpl.get(), H5P_DEFAULT, H5P_DEFAULT);
}

// Writes `name` with `dims`, each rank its piece [offset, offset + count) of
// the row-major 1-D view, collectively, then the checksum attribute.
template <class T>
bool write_pieces(hid_t file, const std::string& name, const std::vector<std::int64_t>& dims,
                  std::int64_t offset, const T* values, std::int64_t count, std::uint64_t checksum) {
  std::vector<hsize_t> hdims(dims.begin(), dims.end());
  Handle space(H5Screate_simple(static_cast<int>(hdims.size()), hdims.data(), nullptr), H5Sclose);
  Handle ds(dataset_for(file, name, file_type<T>(), space.get(), hdims), H5Dclose);
  if (!ds.ok()) return false;
  // A 1-D dataset takes each rank's piece; an n-D one is written whole by
  // one rank (replicated arrays), the others selecting nothing.
  const std::int64_t total = product(dims);
  if (dims.size() == 1) {
    select_piece(space.get(), offset, count);
  } else if (count == total && total > 0) {
    H5Sselect_all(space.get());
  } else {
    H5Sselect_none(space.get());
  }
  Handle mem(memory_space(count), H5Sclose);
  Handle dxpl(collective_transfer(), H5Pclose);
  const T dummy{};
  // Nothing to write in an empty dataset (a block with an edge of 0).
  bool ok = total == 0 ||
            ((dims.size() == 1 || count == 0 || count == total) &&
             H5Dwrite(ds.get(), native_type<T>(), mem.get(), space.get(), dxpl.get(),
                      count > 0 ? values : &dummy) >= 0);
  return ok && put_attribute(ds.get(), "checksum", H5T_NATIVE_UINT64, H5T_STD_U64LE, &checksum);
}

}  // namespace

void CheckpointWriter::write_array(const std::string& dataset, const std::vector<double>& values,
                                   const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> shape = dims.empty() ? std::vector<std::int64_t>{std::int64_t(values.size())} : dims;
  if (product(shape) != static_cast<std::int64_t>(values.size()))
    throw std::invalid_argument("write_array: dims do not match the values of " + dataset);
  std::uint64_t sum = comm_.root() ? checksum_of(values.data(), std::int64_t(values.size()), 0) : 0;
  comm_.bcast(&sum, sizeof sum, 0);
  const std::int64_t count = comm_.root() ? static_cast<std::int64_t>(values.size()) : 0;
  bool ok = write_pieces(file_, dataset, shape, 0, values.data(), count, sum);
  if (comm_.any(!ok)) fail(path_, "cannot write dataset " + dataset);
}

void CheckpointWriter::write_int_array(const std::string& dataset, const std::vector<std::int64_t>& values) {
  std::uint64_t sum = comm_.root() ? checksum_of(values.data(), std::int64_t(values.size()), 0) : 0;
  comm_.bcast(&sum, sizeof sum, 0);
  const std::int64_t count = comm_.root() ? static_cast<std::int64_t>(values.size()) : 0;
  bool ok = write_pieces(file_, dataset, {std::int64_t(values.size())}, 0, values.data(), count, sum);
  if (comm_.any(!ok)) fail(path_, "cannot write dataset " + dataset);
}

void CheckpointWriter::write_distributed(const std::string& dataset, std::int64_t total,
                                         std::int64_t offset, const double* values, std::int64_t count) {
  if (!pieces_tile(comm_, total, offset, count))
    throw std::invalid_argument("write_distributed: the pieces do not tile " + dataset);
  std::uint64_t sum = total_checksum(comm_, checksum_of(values, count, offset));
  bool ok = write_pieces(file_, dataset, {total}, offset, values, count, sum);
  if (comm_.any(!ok)) fail(path_, "cannot write dataset " + dataset);
}

void CheckpointWriter::copy_distributed(const CheckpointReader& from, const std::string& dataset) {
  const auto dims = from.shape(dataset);
  if (dims.size() != 1) throw std::invalid_argument("copy_distributed: " + dataset + " is not 1-D");
  const auto [offset, count] = even_piece(dims[0], comm_.rank(), comm_.size());
  const std::vector<double> piece = from.read_distributed(dataset, offset, count);
  write_distributed(dataset, dims[0], offset, piece.data(), count);
}

void CheckpointWriter::write_identity(const CheckpointIdentity& id) {
  create_group("/molecule");
  std::vector<std::int64_t> Z(id.Z.begin(), id.Z.end());
  write_int_array("/molecule/Z", Z);
  write_array("/molecule/geometry", id.geometry, {std::int64_t(id.Z.size()), 3});
  set_int("/molecule", "charge", id.charge);
  set_int("/molecule", "multiplicity", id.multiplicity);
  create_group("/basis");
  set_string("/basis", "name", id.basis);
  set_int("/basis", "puream", id.puream ? 1 : 0);
  set_int("/basis", "nbf", id.nbf);
  write_array("/basis/shells", id.shells);
  create_group("/scf");
  set_string("/scf", "reference", id.reference);
}

namespace {

void write_spin(CheckpointWriter& w, const std::string& group, const Eigen::MatrixXd& C,
                const Eigen::VectorXd& eps, const Eigen::VectorXd& occ) {
  w.create_group(group);
  RowMajor c = C;
  w.write_array(group + "/coefficients", std::vector<double>(c.data(), c.data() + c.size()),
                {std::int64_t(C.rows()), std::int64_t(C.cols())});
  w.write_array(group + "/orbital_energies", std::vector<double>(eps.data(), eps.data() + eps.size()));
  w.write_array(group + "/occupations", std::vector<double>(occ.data(), occ.data() + occ.size()));
}

}  // namespace

void CheckpointWriter::write_scf(const ScfResult& s) {
  create_group("/scf");
  set_string("/scf", "reference", s.reference);
  set_int("/scf", "converged", s.converged ? 1 : 0);
  set_int("/scf", "iterations", s.iterations);
  set_double("/scf", "energy", s.energy);
  set_double("/scf", "nuclear_repulsion_energy", s.nuclear_repulsion);
  set_double("/scf", "s2", s.s2);
  set_int("/scf", "nbf", s.nbf);
  set_int("/scf", "n_alpha", s.n_alpha);
  set_int("/scf", "n_beta", s.n_beta);
  set_int("/scf", "nmo", s.C_alpha.cols());
  write_spin(*this, "/scf/alpha", s.C_alpha, s.eps_alpha, s.occ_alpha);
  if (s.C_beta.size() > 0) write_spin(*this, "/scf/beta", s.C_beta, s.eps_beta, s.occ_beta);
}

}  // namespace cyclocc::chem
