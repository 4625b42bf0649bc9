#include "chem/fock.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <numeric>
#include <stdexcept>

#include "chem/integrals.hpp"

namespace cyclocc::chem {

FockBuilder::FockBuilder(const Basis& basis, int rank, int nranks, double threshold, std::size_t incore_bytes)
    : basis_(basis),
      threshold_(threshold),
      engine_(libint2::Operator::coulomb, basis.max_nprim, basis.max_l, 0),
      incore_limit_(incore_bytes / sizeof(double)) {
  // Primitive screening inside libint2 far below the quartet threshold.
  engine_.set_precision(kPrimitivePrecision);
  make_pairs(schwarz_matrix(basis));
  make_tasks(rank, nranks);
}

std::int64_t FockBuilder::quartet_cost(const libint2::Shell& a, const libint2::Shell& b,
                                       const libint2::Shell& c, const libint2::Shell& d) {
  // Work of a contracted quartet: a part per primitive quartet (Boys function
  // and recurrences, growing with the total angular momentum) plus a part per
  // contracted integral (transfer relations, scattering into J and K).
  const std::int64_t nprim = static_cast<std::int64_t>(a.nprim() * b.nprim() * c.nprim() * d.nprim());
  const std::int64_t nfunc = static_cast<std::int64_t>(a.size() * b.size() * c.size() * d.size());
  const std::int64_t ltot = a.contr[0].l + b.contr[0].l + c.contr[0].l + d.contr[0].l;
  return nprim * (4 + ltot * ltot) + 4 * nfunc;
}

void FockBuilder::make_pairs(const Eigen::MatrixXd& schwarz) {
  const int ns = static_cast<int>(basis_.shells.size());
  const double qmax = ns ? schwarz.maxCoeff() : 0.0;
  for (int s1 = 0; s1 < ns; ++s1)
    for (int s2 = 0; s2 <= s1; ++s2)
      if (schwarz(s1, s2) * qmax >= threshold_) {
        pairs_.push_back({s1, s2, schwarz(s1, s2)});
        // Primitive-pair data, computed once instead of in every quartet.
        shellpairs_.emplace_back(basis_.shells[s1], basis_.shells[s2], std::log(kPrimitivePrecision));
      }
}

void FockBuilder::make_tasks(int rank, int nranks) {
  const auto& sh = basis_.shells;
  const int np = static_cast<int>(pairs_.size());
  // Cost of the surviving quartet (p, q <= p); recomputed rather than stored,
  // so planning needs no memory quadratic in the number of pairs.
  auto cost = [&](int p, int q) -> std::int64_t {
    if (pairs_[p].q * pairs_[q].q < threshold_) return 0;
    return quartet_cost(sh[pairs_[p].s1], sh[pairs_[p].s2], sh[pairs_[q].s1], sh[pairs_[q].s2]);
  };
  total_cost_ = 0;
  for (int p = 0; p < np; ++p)
    for (int q = 0; q <= p; ++q) total_cost_ += cost(p, q);
  // Cut each bra pair's ket range into tasks of at most `cap`.
  const std::int64_t cap = std::max<std::int64_t>(1, total_cost_ / (20 * static_cast<std::int64_t>(nranks)));
  std::vector<Task> all;
  for (int p = 0; p < np; ++p) {
    Task t{p, 0, 0, 0};
    for (int q = 0; q <= p; ++q) {
      const std::int64_t c = cost(p, q);
      if (t.cost > 0 && t.cost + c > cap) {
        all.push_back(t);
        t = Task{p, q, q, 0};
      }
      t.cost += c;
      t.ket_end = q + 1;
    }
    if (t.cost > 0) all.push_back(t);
  }
  // Longest processing time first; ties broken by position, so every rank
  // derives the same assignment.
  std::vector<int> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return all[x].cost > all[y].cost; });
  planned_cost_.assign(nranks, 0);
  tasks_.clear();
  for (int i : order) {
    const int r = static_cast<int>(std::min_element(planned_cost_.begin(), planned_cost_.end()) -
                                   planned_cost_.begin());
    planned_cost_[r] += all[i].cost;
    if (r == rank) tasks_.push_back(all[i]);
  }
}

void FockBuilder::add_quartet(int p, int q, const double* eri, const Eigen::MatrixXd& Dj,
                              const std::vector<Eigen::MatrixXd>& Dk, Eigen::MatrixXd& A,
                              std::vector<Eigen::MatrixXd>& B) const {
  const int s1 = pairs_[p].s1, s2 = pairs_[p].s2, s3 = pairs_[q].s1, s4 = pairs_[q].s2;
  const int o1 = basis_.shell_offset[s1], o2 = basis_.shell_offset[s2];
  const int o3 = basis_.shell_offset[s3], o4 = basis_.shell_offset[s4];
  const int n1 = static_cast<int>(basis_.shells[s1].size()), n2 = static_cast<int>(basis_.shells[s2].size());
  const int n3 = static_cast<int>(basis_.shells[s3].size()), n4 = static_cast<int>(basis_.shells[s4].size());
  // Degeneracy of the unique quartet among its 8 permutations.
  const double deg = (s1 == s2 ? 1.0 : 2.0) * (s3 == s4 ? 1.0 : 2.0) * (p == q ? 1.0 : 2.0);
  // Column-major element (r, c) of an n x n matrix is at r + c*n.
  const std::size_t n = static_cast<std::size_t>(basis_.nbf);
  const std::size_t nk = Dk.size();
  const double* dj = Dj.data();
  double* a = A.data();
  const double* dk[2] = {nk > 0 ? Dk[0].data() : nullptr, nk > 1 ? Dk[1].data() : nullptr};
  double* b[2] = {nk > 0 ? B[0].data() : nullptr, nk > 1 ? B[1].data() : nullptr};
  for (int f1 = 0, f1234 = 0; f1 < n1; ++f1) {
    const std::size_t i = o1 + f1;
    for (int f2 = 0; f2 < n2; ++f2) {
      const std::size_t j = o2 + f2;
      const double dij = dj[i + j * n];
      double aij = 0;
      for (int f3 = 0; f3 < n3; ++f3) {
        const std::size_t k = o3 + f3;
        for (int f4 = 0; f4 < n4; ++f4, ++f1234) {
          const std::size_t l = o4 + f4;
          const double v = eri[f1234] * deg;
          aij += dj[k + l * n] * v;
          a[k + l * n] += dij * v;
          for (std::size_t s = 0; s < nk; ++s) {
            const double* d = dk[s];
            double* bs = b[s];
            bs[i + k * n] += d[j + l * n] * v;
            bs[j + l * n] += d[i + k * n] * v;
            bs[i + l * n] += d[j + k * n] * v;
            bs[j + k * n] += d[i + l * n] * v;
          }
        }
      }
      a[i + j * n] += aij;
    }
  }
}

void FockBuilder::keep(int bra, int ket, const double* eri) {
  const auto& sh = basis_.shells;
  const std::size_t n = sh[pairs_[bra].s1].size() * sh[pairs_[bra].s2].size() * sh[pairs_[ket].s1].size() *
                        sh[pairs_[ket].s2].size();
  if (values_.size() + n > incore_limit_) {  // does not fit: stay direct
    mode_ = Mode::Direct;
    std::vector<Stored>().swap(stored_);
    std::vector<double>().swap(values_);
    return;
  }
  stored_.push_back(Stored{bra, ket, values_.size()});
  values_.insert(values_.end(), eri, eri + n);
}

void FockBuilder::compute_quartets(const Eigen::MatrixXd& Dj, const std::vector<Eigen::MatrixXd>& Dk,
                                   Eigen::MatrixXd& A, std::vector<Eigen::MatrixXd>& B) {
  const auto& sh = basis_.shells;
  const auto& buf = engine_.results();
  computed_quartets_ = 0;
  computed_cost_ = 0;
  for (const Task& t : tasks_) {
    const Pair& bra = pairs_[t.bra];
    for (int q = t.ket_begin; q < t.ket_end; ++q) {
      const Pair& ket = pairs_[q];
      if (bra.q * ket.q < threshold_) continue;
      engine_.compute2<libint2::Operator::coulomb, libint2::BraKet::xx_xx, 0>(
          sh[bra.s1], sh[bra.s2], sh[ket.s1], sh[ket.s2], &shellpairs_[t.bra], &shellpairs_[q]);
      ++computed_quartets_;
      computed_cost_ += quartet_cost(sh[bra.s1], sh[bra.s2], sh[ket.s1], sh[ket.s2]);
      if (buf[0] == nullptr) continue;  // all primitives screened out
      add_quartet(t.bra, q, buf[0], Dj, Dk, A, B);
      if (mode_ == Mode::First) keep(t.bra, q, buf[0]);
    }
  }
  if (mode_ == Mode::First) mode_ = Mode::InCore;
}

JK FockBuilder::compute_local(const Eigen::MatrixXd& Dj, const std::vector<Eigen::MatrixXd>& Dk) {
  if (Dk.size() > 2) throw std::logic_error("FockBuilder: at most two exchange densities");
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  const int n = basis_.nbf;
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  std::vector<Eigen::MatrixXd> B(Dk.size(), Eigen::MatrixXd::Zero(n, n));
  if (mode_ == Mode::InCore) {
    for (const Stored& q : stored_) add_quartet(q.bra, q.ket, values_.data() + q.offset, Dj, Dk, A, B);
  } else {
    compute_quartets(Dj, Dk, A, B);
  }
  // Each unique quartet was scattered to one of the two triangles of each
  // permutation pair; symmetrising restores the rest (see fock.hpp).
  JK out;
  out.J = (A + A.transpose()) * 0.25;
  for (auto& b : B) out.K.push_back((b + b.transpose()) * 0.125);
  last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  last_cpu_seconds_ = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  return out;
}

JK FockBuilder::compute(const par::Comm& comm, const Eigen::MatrixXd& Dj,
                        const std::vector<Eigen::MatrixXd>& Dk) {
  if (static_cast<std::size_t>(comm.size()) != planned_cost_.size())
    throw std::logic_error("FockBuilder: communicator size differs from the plan");
  JK jk = compute_local(Dj, Dk);
  if (comm.size() == 1) return jk;
  const std::size_t nn = static_cast<std::size_t>(jk.J.size());
  std::vector<double> buf(nn * (1 + jk.K.size()));
  std::copy(jk.J.data(), jk.J.data() + nn, buf.begin());
  for (std::size_t s = 0; s < jk.K.size(); ++s)
    std::copy(jk.K[s].data(), jk.K[s].data() + nn, buf.begin() + nn * (s + 1));
  comm.allreduce_sum(buf.data(), buf.size());
  std::copy(buf.begin(), buf.begin() + nn, jk.J.data());
  for (std::size_t s = 0; s < jk.K.size(); ++s)
    std::copy(buf.begin() + nn * (s + 1), buf.begin() + nn * (s + 2), jk.K[s].data());
  return jk;
}

}  // namespace cyclocc::chem
