#include "parallel/comm.hpp"
#include "tensor/remap.hpp"

#include "tensor/context.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <functional>
#include <map>
#include <numeric>
#include <stdexcept>

namespace cyclocc::tensor {

std::vector<int> identity_perm(int n) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

std::vector<int> inverse_perm(const std::vector<int>& perm) {
  std::vector<int> inv(perm.size());
  for (std::size_t j = 0; j < perm.size(); ++j) inv[perm[j]] = static_cast<int>(j);
  return inv;
}

std::int64_t traffic_of(const std::vector<std::int64_t>& words, int nranks, int rank) {
  std::int64_t t = 0;
  for (int q = 0; q < nranks; ++q) {
    if (q == rank) continue;
    t += words[static_cast<std::size_t>(rank) * nranks + q] + words[static_cast<std::size_t>(q) * nranks + rank];
  }
  return t;
}

namespace {

std::vector<std::vector<int>> rank_parts(const Layout& L) { return L.rank_parts(); }
std::vector<int> replica_offsets(const Layout& L) { return L.replica_offsets(); }

// The rank with the same coordinates but replicated coordinates set to zero.
int replica_base(const Layout& L, int rank) {
  auto c = L.coords(rank);
  for (int d : L.replicated_dims()) c[d] = 0;
  return L.rank_of(c);
}

// Per X component: for each of its tuples (local ones, or all), the id
// contribution to each Y component (Y position j holds X position perm[j]).
struct Feed {
  int ycomp = 0;
  int xcomp = 0;
  std::vector<std::int64_t> contrib;  // per tuple of the X component
};

std::vector<Feed> id_feeds(const Layout& X, const Layout& Y, const std::vector<int>& perm, bool local_only) {
  const auto xcomp = X.comp_of_position();
  std::map<std::pair<int, int>, Feed> feeds;
  for (std::size_t r = 0; r < Y.comps().size(); ++r) {
    const Component& yc = Y.comps()[r];
    const ComponentTable& yt = *yc.table;
    for (std::size_t g = 0; g < yt.groups.size(); ++g) {
      const Group& gy = yt.groups[g];
      const int p0 = perm[yc.first + gy.first];
      const int cx = xcomp[p0];
      const Component& xc = X.comps()[cx];
      const ComponentTable& xt = *xc.table;
      Feed& f = feeds[{static_cast<int>(r), cx}];
      f.ycomp = static_cast<int>(r);
      f.xcomp = cx;
      const std::int64_t n = local_only ? static_cast<std::int64_t>(X.local_ids(cx).size()) : xt.count;
      f.contrib.resize(static_cast<std::size_t>(n), 0);
      int vals[kMaxOrder];
      for (std::int64_t u = 0; u < n; ++u) {
        const std::int64_t id = local_only ? X.local_ids(cx)[u] : u;
        const int* x = xt.tuple(id);
        for (int t = 0; t < gy.size; ++t) vals[t] = x[perm[yc.first + gy.first + t] - xc.first];
        f.contrib[u] += group_rank(vals, gy.size, gy.len, gy.sym) * yt.group_stride[g];
      }
    }
  }
  std::vector<Feed> out;
  for (auto& kv : feeds) out.push_back(std::move(kv.second));
  return out;
}

// Per Y component tuple (local): the sum of its values at the positions that
// belong to each mapped X component (for X residues on the receiving side).
struct SumFeed {
  int xcomp = 0;
  int ycomp = 0;
  std::vector<std::int32_t> sums;
};

std::vector<SumFeed> sum_feeds(const Layout& X, const Layout& Y, const std::vector<int>& perm) {
  const auto xcomp = X.comp_of_position();
  std::map<std::pair<int, int>, SumFeed> feeds;
  for (std::size_t r = 0; r < Y.comps().size(); ++r) {
    const Component& yc = Y.comps()[r];
    const auto& ids = Y.local_ids(static_cast<int>(r));
    for (int j = yc.first; j < yc.last; ++j) {
      const int cx = xcomp[perm[j]];
      if (X.comps()[cx].phase == 1) continue;
      SumFeed& f = feeds[{cx, static_cast<int>(r)}];
      f.xcomp = cx;
      f.ycomp = static_cast<int>(r);
      f.sums.resize(ids.size(), 0);
      for (std::size_t u = 0; u < ids.size(); ++u) f.sums[u] += yc.table->tuple(ids[u])[j - yc.first];
    }
  }
  std::vector<SumFeed> out;
  for (auto& kv : feeds) out.push_back(std::move(kv.second));
  return out;
}

}  // namespace

void check_remap_perm(const Layout& X, const Layout& Y, const std::vector<int>& perm) {
  const int n = X.shape().order();
  if (Y.shape().order() != n || static_cast<int>(perm.size()) != n) throw std::invalid_argument("remap: order differs");
  for (int j = 0; j < n; ++j) {
    if (Y.shape().lens[j] != X.shape().lens[perm[j]]) throw std::invalid_argument("remap: edge lengths differ");
    const bool ylink = j + 1 < n && Y.shape().sym[j] != Sym::NS;
    if (ylink && (perm[j + 1] != perm[j] + 1 || X.shape().sym[perm[j]] != Y.shape().sym[j]))
      throw std::invalid_argument("remap: permutation must move whole symmetric groups");
    if (!ylink && X.shape().sym[perm[j]] != Sym::NS && (j + 1 >= n || perm[j + 1] != perm[j] + 1))
      throw std::invalid_argument("remap: permutation must move whole symmetric groups");
  }
}

namespace {

// Walks the local elements of layout L in storage order: calls
// f(u, i) with the per-component local tuple indices u and the local offset i.
template <class F>
void walk_local(const Layout& L, F&& f) {
  const int K = static_cast<int>(L.comps().size());
  const std::int64_t n = L.local_size();
  if (n == 0) return;
  std::vector<std::int64_t> u(K, 0);
  const auto& ext = L.extent();
  for (std::int64_t i = 0; i < n; ++i) {
    f(u, i);
    for (int c = K - 1; c >= 0; --c) {
      if (++u[c] < ext[c]) break;
      u[c] = 0;
    }
  }
}

}  // namespace

namespace {

// Per-component parts of the destination rank and offset of every element:
// a Y component fed by a single X component contributes a function of that X
// component's tuple alone, so it is tabulated once per tuple; Y components
// fed by several X components (rare) are evaluated per element.
struct SendTables {
  std::vector<std::vector<int>> rank_part;                          // [xcomp][u]
  std::vector<std::vector<std::vector<std::int64_t>>> off_part;     // [xcomp][dest][u]
  std::vector<Feed> multi;                                          // feeds of multi-fed Y comps
  std::vector<int> multi_ycomps;
};

SendTables send_tables(const Layout& X, const Layout& Y, const std::vector<Feed>& feeds,
                       const std::vector<std::vector<int>>& yparts,
                       const std::vector<std::vector<std::int64_t>>& ystride, const std::vector<char>& dests) {
  const int KX = static_cast<int>(X.comps().size()), KY = static_cast<int>(Y.comps().size());
  const int P = static_cast<int>(dests.size());
  std::vector<int> nfeeds(KY, 0);
  for (const Feed& f : feeds) ++nfeeds[f.ycomp];
  SendTables t;
  t.rank_part.resize(KX);
  t.off_part.resize(KX);
  for (int c = 0; c < KX; ++c) {
    const std::size_t n = X.local_ids(c).size();
    t.rank_part[c].assign(n, 0);
    t.off_part[c].assign(P, {});
    for (int d = 0; d < P; ++d)
      if (dests[d]) t.off_part[c][d].assign(n, 0);
  }
  for (const Feed& f : feeds) {
    if (nfeeds[f.ycomp] != 1) {
      t.multi.push_back(f);
      continue;
    }
    const ComponentTable& yt = *Y.comps()[f.ycomp].table;
    for (std::size_t u = 0; u < f.contrib.size(); ++u) {
      const std::int64_t id = f.contrib[u];
      t.rank_part[f.xcomp][u] += yparts[f.ycomp][yt.residue[id]];
      for (int d = 0; d < P; ++d)
        if (dests[d]) t.off_part[f.xcomp][d][u] += yt.pos[id] * ystride[d][f.ycomp];
    }
  }
  for (int r = 0; r < KY; ++r)
    if (nfeeds[r] > 1) t.multi_ycomps.push_back(r);
  return t;
}

// Calls f(i, rank_part, offset_part(dest)) for every local element of X in
// storage order, summing the per-component tables with an odometer.
template <class F>
void walk_parts(const Layout& X, const SendTables& t, int P, F&& f) {
  const int K = static_cast<int>(X.comps().size());
  const std::int64_t n = X.local_size();
  if (n == 0) return;
  if (K == 0) {
    std::vector<std::int64_t> zero(P, 0);
    std::vector<std::int64_t> u;
    f(0, 0, zero, u);
    return;
  }
  std::vector<std::int64_t> u(K, 0);
  const auto& ext = X.extent();
  const std::int64_t inner = ext[K - 1];
  std::vector<std::int64_t> off(P, 0);
  for (std::int64_t i = 0; i < n; i += inner) {
    int rank = 0;
    std::fill(off.begin(), off.end(), 0);
    for (int c = 0; c < K - 1; ++c) {
      rank += t.rank_part[c][u[c]];
      for (int d = 0; d < P; ++d)
        if (!t.off_part[c][d].empty()) off[d] += t.off_part[c][d][u[c]];
    }
    for (std::int64_t v = 0; v < inner; ++v) {
      u[K - 1] = v;
      f(i + v, rank + t.rank_part[K - 1][v], off, u);
    }
    u[K - 1] = 0;
    for (int c = K - 2; c >= 0; --c) {
      if (++u[c] < ext[c]) break;
      u[c] = 0;
    }
  }
}

}  // namespace

namespace {

// The receiving side's tables: for each Y component and local tuple, the part
// of the sending rank fixed by the mapped X components it alone feeds.
struct RecvTables {
  std::vector<std::vector<int>> src_part;  // [ycomp][u]
  std::vector<SumFeed> multi;              // X components fed by several Y components
  std::vector<int> multi_xcomps;
};

RecvTables recv_tables(const Layout& X, const Layout& Y, const std::vector<SumFeed>& feeds) {
  const int KX = static_cast<int>(X.comps().size()), KY = static_cast<int>(Y.comps().size());
  const auto xparts = rank_parts(X);
  std::vector<int> nfeeds(KX, 0);
  for (const SumFeed& f : feeds) ++nfeeds[f.xcomp];
  RecvTables t;
  t.src_part.resize(KY);
  for (int r = 0; r < KY; ++r) t.src_part[r].assign(Y.local_ids(r).size(), 0);
  for (const SumFeed& f : feeds) {
    if (nfeeds[f.xcomp] != 1) {
      t.multi.push_back(f);
      continue;
    }
    const int ph = X.comps()[f.xcomp].phase;
    for (std::size_t u = 0; u < f.sums.size(); ++u) t.src_part[f.ycomp][u] += xparts[f.xcomp][f.sums[u] % ph];
  }
  for (int c = 0; c < KX; ++c)
    if (nfeeds[c] > 1) t.multi_xcomps.push_back(c);
  return t;
}

// Calls f(i, sum of parts, u) for every local element of L in storage order.
template <class F>
void walk_sums(const Layout& L, const std::vector<std::vector<int>>& parts, F&& f) {
  const int K = static_cast<int>(L.comps().size());
  const std::int64_t n = L.local_size();
  std::vector<std::int64_t> u(K, 0);
  if (n == 0) return;
  if (K == 0) return f(0, 0, u);
  const auto& ext = L.extent();
  const std::int64_t inner = ext[K - 1];
  for (std::int64_t i = 0; i < n; i += inner) {
    int outer = 0;
    for (int c = 0; c < K - 1; ++c) outer += parts[c][u[c]];
    for (std::int64_t v = 0; v < inner; ++v) {
      u[K - 1] = v;
      f(i + v, outer + parts[K - 1][v], u);
    }
    u[K - 1] = 0;
    for (int c = K - 2; c >= 0; --c) {
      if (++u[c] < ext[c]) break;
      u[c] = 0;
    }
  }
}

// Orders each destination's (offset, value) pairs by offset: by scattering
// into a dense buffer of the destination's size when the pairs fill enough
// of it, else by sorting.
std::vector<double> ordered_values(std::vector<std::pair<std::int64_t, double>>& pairs, std::int64_t dest_size) {
  std::vector<double> out;
  out.reserve(pairs.size());
  if (static_cast<std::int64_t>(pairs.size()) * 16 >= dest_size) {
    std::vector<double> dense(static_cast<std::size_t>(dest_size));
    std::vector<char> mark(static_cast<std::size_t>(dest_size), 0);
    for (const auto& [off, v] : pairs) {
      dense[off] = v;
      mark[off] = 1;
    }
    for (std::int64_t k = 0; k < dest_size; ++k)
      if (mark[k]) out.push_back(dense[k]);
  } else {
    std::sort(pairs.begin(), pairs.end());
    for (const auto& [off, v] : pairs) out.push_back(v);
  }
  return out;
}


// The number of trailing components walked as one inner loop: enough that
// the loop runs long (a 6-index tensor's last component may hold 5 tuples),
// few enough that the fused tables stay small.
int fused_first(const std::vector<std::int64_t>& ext) {
  int first = static_cast<int>(ext.size()) - 1;
  std::int64_t size = ext[first];
  while (first > 0 && size < 512 && size * ext[first - 1] <= (1 << 16)) size *= ext[--first];
  return first;
}

// Per-component additive parts of components [first, K) summed for every
// combination of their local tuples, in storage order.
template <class T>
std::vector<T> fuse_parts(const std::vector<const T*>& parts, const std::vector<std::int64_t>& ext, int first) {
  const int K = static_cast<int>(ext.size());
  std::int64_t size = 1;
  for (int c = first; c < K; ++c) size *= ext[c];
  std::vector<T> out(static_cast<std::size_t>(size), T(0));
  std::vector<std::int64_t> u(K, 0);
  for (std::int64_t v = 0; v < size; ++v) {
    for (int c = first; c < K; ++c) out[v] += parts[c][u[c]];
    for (int c = K - 1; c >= first; --c) {
      if (++u[c] < ext[c]) break;
      u[c] = 0;
    }
  }
  return out;
}

// The sending walk when every part is tabulated: an odometer over the outer
// components and a tight loop over the fused inner ones, once per replica of
// Y (yrep: rank offsets). Calls emit(d, offset in d's Y, local offset in X)
// for every element and every destination d this rank serves.
template <class Emit>
void send_simple(const Layout& X, const SendTables& t, const std::vector<int>& yrep,
                 const std::vector<char>& send_to, Emit&& emit) {
  const int K = static_cast<int>(X.comps().size());
  const int P = static_cast<int>(send_to.size());
  const std::int64_t n = X.local_size();
  if (n == 0) return;
  if (K == 0) {
    for (int rep : yrep)
      if (send_to[rep]) emit(rep, 0, 0);
    return;
  }
  const auto& ext = X.extent();
  const int first = fused_first(ext);
  std::vector<const int*> rparts(K);
  for (int c = 0; c < K; ++c) rparts[c] = t.rank_part[c].data();
  const std::vector<int> rp = fuse_parts(rparts, ext, first);
  const std::int64_t inner = static_cast<std::int64_t>(rp.size());
  bool fixed = true;  // the inner components do not change the destination
  for (std::int64_t v = 0; v < inner; ++v) fixed &= rp[v] == rp[0];
  std::vector<std::vector<std::int64_t>> ops(P);
  for (int d = 0; d < P; ++d) {
    if (!send_to[d]) continue;
    std::vector<const std::int64_t*> oparts(K);
    for (int c = 0; c < K; ++c) oparts[c] = t.off_part[c][d].data();
    ops[d] = fuse_parts(oparts, ext, first);
  }
  std::vector<std::int64_t> u(K, 0), off(P, 0);
  for (std::int64_t i = 0; i < n; i += inner) {
    int rank = 0;
    std::fill(off.begin(), off.end(), 0);
    for (int c = 0; c < first; ++c) {
      rank += t.rank_part[c][u[c]];
      for (int d = 0; d < P; ++d)
        if (send_to[d]) off[d] += t.off_part[c][d][u[c]];
    }
    for (int rep : yrep) {  // every replica of Y holding the element
      if (fixed) {
        const int d = rank + rp[0] + rep;
        if (!send_to[d]) continue;
        const std::int64_t o = off[d];
        const std::int64_t* od = ops[d].data();
        for (std::int64_t v = 0; v < inner; ++v) emit(d, o + od[v], i + v);
      } else {
        for (std::int64_t v = 0; v < inner; ++v) {
          const int d = rank + rp[v] + rep;
          if (send_to[d]) emit(d, off[d] + ops[d][v], i + v);
        }
      }
    }
    for (int c = first - 1; c >= 0; --c) {
      if (++u[c] < ext[c]) break;
      u[c] = 0;
    }
  }
}

// The sender's side of remapping X into Y: emit(d, offset in d's Y, local
// offset in X) for every element this rank delivers, to itself (d == me) or
// to another rank, in X's storage order.
template <class Emit>
void sender_walk(const Layout& X, const Layout& Y, const std::vector<int>& perm, bool partial, int me, Emit&& emit) {
  const int P = X.nranks();
  const auto yparts = rank_parts(Y);
  const auto yrep = replica_offsets(Y);
  const auto xrep = replica_offsets(X);
  const int xbase = replica_base(X, me);
  std::vector<char> send_to(P, 0);
  for (int d = 0; d < P; ++d) {
    if (partial) {
      send_to[d] = 1;
      continue;
    }
    bool holds = false;
    for (int o : xrep) holds |= (xbase + o == d);
    const int designated = holds ? d : xbase + xrep[d % xrep.size()];
    send_to[d] = designated == me;
  }
  std::vector<std::vector<std::int64_t>> ystride(P);
  for (int d = 0; d < P; ++d) ystride[d] = Y.strides(d);
  const SendTables tables = send_tables(X, Y, id_feeds(X, Y, perm, true), yparts, ystride, send_to);
  if (tables.multi.empty()) return send_simple(X, tables, yrep, send_to, emit);
  std::vector<std::int64_t> yid(Y.comps().size());
  walk_parts(X, tables, P, [&](std::int64_t i, int base, const std::vector<std::int64_t>& off_outer,
                               const std::vector<std::int64_t>& u) {
    const std::int64_t ulast = u.empty() ? 0 : u.back();
    const int klast = static_cast<int>(u.size()) - 1;
    for (int r : tables.multi_ycomps) yid[r] = 0;
    for (const Feed& f : tables.multi) yid[f.ycomp] += f.contrib[u[f.xcomp]];
    for (int r : tables.multi_ycomps) base += yparts[r][Y.comps()[r].table->residue[yid[r]]];
    for (int o : yrep) {
      const int d = base + o;
      if (!send_to[d]) continue;
      std::int64_t off = off_outer[d] + (klast >= 0 ? tables.off_part[klast][d][ulast] : 0);
      for (int r : tables.multi_ycomps) off += Y.comps()[r].table->pos[yid[r]] * ystride[d][r];
      emit(d, off, i);
    }
  });
}

// The receiver's side: take(s, local offset in Y) for every value this rank
// receives from another rank s, in Y's storage order (the order in which s
// sends them).
template <class Take>
void receiver_walk(const Layout& X, const Layout& Y, const std::vector<int>& perm, bool partial, int me, Take&& take) {
  const auto xrep = replica_offsets(X);
  const RecvTables rt = recv_tables(X, Y, sum_feeds(X, Y, perm));
  const std::int64_t n = Y.local_size();
  const int K = static_cast<int>(Y.comps().size());
  if (n == 0) return;
  if (rt.multi.empty() && !partial && xrep.size() == 1) {
    // Each element has one possible sender: a tight walk.
    if (K == 0) {
      if (0 != me) take(0, 0);
      return;
    }
    const auto& ext = Y.extent();
    const int first = fused_first(ext);
    std::vector<const int*> sparts(K);
    for (int c = 0; c < K; ++c) sparts[c] = rt.src_part[c].data();
    const std::vector<int> sp = fuse_parts(sparts, ext, first);
    const std::int64_t inner = static_cast<std::int64_t>(sp.size());
    std::vector<std::int64_t> u(K, 0);
    for (std::int64_t i = 0; i < n; i += inner) {
      int outer = 0;
      for (int c = 0; c < first; ++c) outer += rt.src_part[c][u[c]];
      for (std::int64_t v = 0; v < inner; ++v) {
        const int s = outer + sp[v];
        if (s != me) take(s, i + v);
      }
      for (int c = first - 1; c >= 0; --c) {
        if (++u[c] < ext[c]) break;
        u[c] = 0;
      }
    }
    return;
  }
  const auto xparts = rank_parts(X);
  std::vector<int> xsum(X.comps().size());
  walk_sums(Y, rt.src_part, [&](std::int64_t i, int base, const std::vector<std::int64_t>& u) {
    if (!rt.multi.empty()) {
      for (int c : rt.multi_xcomps) xsum[c] = 0;
      for (const SumFeed& f : rt.multi) xsum[f.xcomp] += f.sums[u[f.ycomp]];
      for (int c : rt.multi_xcomps) base += xparts[c][xsum[c] % X.comps()[c].phase];
    }
    if (partial) {
      for (int o : xrep)
        if (base + o != me) take(base + o, i);
      return;
    }
    for (int o : xrep)
      if (base + o == me) return;  // written locally by the sender phase
    take(base + xrep[me % xrep.size()], i);
  });
}

// Where consecutive elements go to consecutive places (an index that keeps
// its position, a whole group copied), a list stores each stretch once:
// from[r], to[r], len[r]. Otherwise it lists single elements (len empty).
// An empty `from` (`to`) given to moves_of stands for 0, 1, 2, ... (a send
// or receive buffer); the list itself always holds both sides.
//
// The entries are ordered by blocks of 2^kMoveBlockBits destinations, and
// inside a block as the walk listed them (by source): the writes stay in a
// few kilobytes of the destination while the sources are read in increasing
// order. In the storage order of either side alone, a transposition
// ([ij|ab] -> [ab|ij]) touches a new cache line of the other side at every
// element: 6-9 ns per element on this machine against 2.4-3 ns blocked
// (225 x 3249 values, medians over repeats).
constexpr int kMoveBlockBits = 10;  // 1024 doubles, 8 KB

struct Moves {
  std::vector<std::int32_t> from, to, len;
  std::int64_t bytes() const { return 4 * static_cast<std::int64_t>(from.size() + to.size() + len.size()); }
};

Moves moves_of(std::vector<std::int32_t> from, std::vector<std::int32_t> to) {
  const std::size_t n = std::max(from.size(), to.size());
  auto at = [](const std::vector<std::int32_t>& v, std::size_t k) { return v.empty() ? std::int32_t(k) : v[k]; };
  auto continues = [&](std::size_t k) {
    return k > 0 && at(from, k) == at(from, k - 1) + 1 && at(to, k) == at(to, k - 1) + 1;
  };
  std::size_t runs = 0;
  for (std::size_t k = 0; k < n; ++k) runs += continues(k) ? 0 : 1;
  Moves m;
  // Stretches of at least four elements on average are stored as runs.
  const bool as_runs = 4 * runs <= n;
  for (std::size_t k = 0; k < n; ++k) {
    if (as_runs && continues(k)) {
      ++m.len.back();
      continue;
    }
    m.from.push_back(at(from, k));
    m.to.push_back(at(to, k));
    if (as_runs) m.len.push_back(1);
  }
  // Order: destination block, then the order of the walk (a stable counting
  // sort by block; the walks list the sources in increasing order).
  auto block = [](std::int32_t to) { return static_cast<std::size_t>(to >> kMoveBlockBits); };
  std::size_t nblocks = 0;
  bool sorted = true;
  for (std::size_t r = 0; r < m.to.size(); ++r) {
    nblocks = std::max(nblocks, block(m.to[r]) + 1);
    sorted = sorted && (r == 0 || block(m.to[r]) >= block(m.to[r - 1]));
  }
  if (sorted) return m;
  std::vector<std::size_t> next(nblocks + 1, 0);
  for (std::int32_t t : m.to) ++next[block(t) + 1];
  for (std::size_t b = 0; b < nblocks; ++b) next[b + 1] += next[b];
  std::vector<std::uint32_t> order(m.to.size());
  for (std::size_t r = 0; r < m.to.size(); ++r) order[next[block(m.to[r])]++] = static_cast<std::uint32_t>(r);
  auto permuted = [&](const std::vector<std::int32_t>& v) {
    std::vector<std::int32_t> out(v.size());
    for (std::size_t r = 0; r < v.size(); ++r) out[r] = v[order[r]];
    return out;
  };
  m.from = permuted(m.from);
  m.to = permuted(m.to);
  if (as_runs) m.len = permuted(m.len);
  return m;
}

// y[to] += alpha * x[from] over the moves (or y[to] = alpha * x[from] unless add).
void apply_moves(const Moves& m, const double* x, double* y, double alpha, bool add) {
  const std::int32_t* f = m.from.data();
  const std::int32_t* t = m.to.data();
  const std::size_t n = m.from.size();
  if (m.len.empty()) {
    if (add) for (std::size_t k = 0; k < n; ++k) y[t[k]] += alpha * x[f[k]];
    else if (alpha == 1.0) for (std::size_t k = 0; k < n; ++k) y[t[k]] = x[f[k]];
    else for (std::size_t k = 0; k < n; ++k) y[t[k]] = alpha * x[f[k]];
    return;
  }
  const std::int32_t* len = m.len.data();
  for (std::size_t r = 0; r < n; ++r) {
    const double* xs = x + f[r];
    double* ys = y + t[r];
    const std::int32_t l = len[r];
    if (add) for (std::int32_t k = 0; k < l; ++k) ys[k] += alpha * xs[k];
    else for (std::int32_t k = 0; k < l; ++k) ys[k] = alpha * xs[k];
  }
}

// The whole of a remap worked out once: what this rank sends to each rank
// (X offsets into the send buffer, in the receiver's order), what stays (X
// offsets to Y offsets), and where each received value goes (buffer offsets
// to Y offsets). Running it is a gather, one exchange and a scatter. Offsets
// are 32-bit (the local sizes are checked).
struct RemapProgram {
  std::vector<std::int64_t> send_counts, recv_counts;
  std::int64_t send_size = 0;
  // Whether any rank sends anything: when none does, the exchange is skipped
  // (it would only make the ranks wait for each other).
  bool exchange = true;
  Moves send, local, recv;
  std::int64_t bytes() const { return send.bytes() + local.bytes() + recv.bytes(); }
};

RemapProgram remap_program(const Layout& X, const Layout& Y, const std::vector<int>& perm, bool partial, int me) {
  const int P = X.nranks();
  RemapProgram p;
  std::vector<std::vector<std::pair<std::int64_t, std::int32_t>>> out(P);
  std::vector<std::int32_t> local_x, local_y;
  sender_walk(X, Y, perm, partial, me, [&](int d, std::int64_t off, std::int64_t i) {
    if (d == me) {
      local_x.push_back(static_cast<std::int32_t>(i));
      local_y.push_back(static_cast<std::int32_t>(off));
    } else {
      out[d].emplace_back(off, static_cast<std::int32_t>(i));
    }
  });
  p.local = moves_of(std::move(local_x), std::move(local_y));
  p.send_counts.assign(P, 0);
  std::vector<std::int32_t> send_x;
  for (int d = 0; d < P; ++d) {
    std::stable_sort(out[d].begin(), out[d].end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    p.send_counts[d] = static_cast<std::int64_t>(out[d].size());
    for (const auto& [off, i] : out[d]) send_x.push_back(i);
    std::vector<std::pair<std::int64_t, std::int32_t>>().swap(out[d]);
  }
  p.send_size = static_cast<std::int64_t>(send_x.size());
  p.send = moves_of(std::move(send_x), {});
  std::vector<std::vector<std::int32_t>> from(P);
  receiver_walk(X, Y, perm, partial, me, [&](int s, std::int64_t i) { from[s].push_back(static_cast<std::int32_t>(i)); });
  std::vector<std::int32_t> recv_y;
  p.recv_counts.assign(P, 0);
  for (int s = 0; s < P; ++s) {
    p.recv_counts[s] = static_cast<std::int64_t>(from[s].size());
    recv_y.insert(recv_y.end(), from[s].begin(), from[s].end());
  }
  p.recv = moves_of({}, std::move(recv_y));
  return p;
}

void run_program(const RemapProgram& p, const par::Comm& comm, const double* x, double* y, double alpha, bool add) {
  apply_moves(p.local, x, y, alpha, add);
  if (comm.size() == 1 || !p.exchange) return;
  par::Buffer<double> send(static_cast<std::size_t>(p.send_size));
  apply_moves(p.send, x, send.data(), 1.0, false);
  const auto recv = comm.alltoallv_known(send, p.send_counts, p.recv_counts);
  apply_moves(p.recv, recv.data(), y, alpha, add);
}

// The largest local size of a layout over the ranks: the same on every rank.
std::int64_t largest_local_size(const Layout& L) {
  std::int64_t n = 0;
  for (int r = 0; r < L.nranks(); ++r) n = std::max(n, L.local_size(r));
  return n;
}

// The program for these layouts (the context's own, so their addresses name
// them), kept in the context from the second call on (one-off moves, such as
// the integral transformation's, keep nothing) while the programs kept stay
// within its budget (Context::set_program_budget). Null when there is none.
//
// Every rank decides alike: a kept program knows what each rank sends it and
// skips the exchange of counts, so the ranks must run kept programs at the
// same calls. The decision uses only what every rank knows (the layouts, the
// largest local sizes), and every rank charges the budget with the largest
// program of any rank.
const RemapProgram* cached_program(Context& ctx, const Layout& X, const Layout& Y, const std::vector<int>& perm,
                                   bool partial) {
  std::string k = "remap|" + layout_id(X) + layout_id(Y) + (partial ? "1|" : "0|");
  for (int q : perm) k += std::to_string(q) + ",";
  auto& cache = ctx.extensions();
  const auto it = cache.find(k);
  if (it == cache.end()) {
    cache.emplace(k, nullptr);  // seen once
    return nullptr;
  }
  if (it->second) return static_cast<const RemapProgram*>(it->second.get());
  constexpr std::int64_t kMax32 = std::numeric_limits<std::int32_t>::max();
  const std::int64_t x_size = largest_local_size(X), y_size = largest_local_size(Y);
  if (x_size > kMax32 || y_size > kMax32) return nullptr;
  // At most: every local X element sent or kept, every local Y element
  // received, each as a pair of 32-bit offsets.
  const std::int64_t bound = 8 * (x_size * static_cast<std::int64_t>(replica_offsets(Y).size()) +
                                  y_size * static_cast<std::int64_t>(replica_offsets(X).size()));
  if (!ctx.reserve_program_bytes(bound)) return nullptr;
  auto p = std::make_shared<RemapProgram>(remap_program(X, Y, perm, partial, ctx.rank()));
  ctx.reserve_program_bytes(ctx.comm().allreduce_max(p->bytes()) - bound);
  p->exchange = ctx.comm().allreduce_max(p->send_size) > 0;
  cache[k] = p;  // not `it`: an unordered map may have rehashed meanwhile
  return p.get();
}

}  // namespace

namespace {

// Y += alpha * X, or with `assign` (never with partial sums) Y = alpha * X.
void remap_into(const Tensor& Xt, Tensor& Yt, const std::vector<int>& perm, double alpha, bool partial, bool assign) {
  const Layout& X = Xt.layout();
  const Layout& Y = Yt.layout();
  check_remap_perm(X, Y, perm);
  const par::Comm& comm = Yt.ctx().comm();
  const int P = comm.size();
  const int me = comm.rank();
  auto& ydata = Yt.data();
  const auto& xdata = Xt.data();
  if (const RemapProgram* p = cached_program(Yt.ctx(), X, Y, perm, partial))
    return run_program(*p, comm, xdata.data(), ydata.data(), alpha, !assign);

  // Once: the sender delivers its own elements and lists the others by destination.
  std::vector<std::vector<std::pair<std::int64_t, double>>> out(P);
  // An even share of the local elements per destination, so that the buffers
  // of a large redistribution rarely grow (and copy) on the way.
  for (int d = 0; d < P; ++d)
    if (d != me) out[d].reserve(static_cast<std::size_t>(X.local_size() / P));
  std::vector<char> sorted(P, 1);
  std::vector<std::int64_t> last(P, -1);
  sender_walk(X, Y, perm, partial, me, [&](int d, std::int64_t off, std::int64_t i) {
    if (d == me) {
      ydata[off] = (assign ? 0.0 : ydata[off]) + alpha * xdata[i];
      return;
    }
    if (off < last[d]) sorted[d] = 0;
    last[d] = off;
    out[d].emplace_back(off, xdata[i]);
  });
  if (P == 1) return;

  std::vector<std::int64_t> send_counts(P, 0);
  std::vector<double> send;
  for (int d = 0; d < P; ++d) {
    send_counts[d] = static_cast<std::int64_t>(out[d].size());
    if (sorted[d]) {
      for (const auto& [off, v] : out[d]) send.push_back(v);
    } else {
      const auto vals = ordered_values(out[d], Y.local_size(d));
      send.insert(send.end(), vals.begin(), vals.end());
    }
    std::vector<std::pair<std::int64_t, double>>().swap(out[d]);
  }
  std::vector<std::int64_t> recv_counts;
  const auto recv = comm.alltoallv(send, send_counts, recv_counts);
  std::vector<std::int64_t> next(P, 0);
  for (int s = 1; s < P; ++s) next[s] = next[s - 1] + recv_counts[s - 1];
  receiver_walk(X, Y, perm, partial, me,
                [&](int s, std::int64_t i) { ydata[i] = (assign ? 0.0 : ydata[i]) + alpha * recv[next[s]++]; });
}

}  // namespace

void remap(const Tensor& X, Tensor& Y, const std::vector<int>& perm, double alpha, bool partial) {
  remap_into(X, Y, perm, alpha, partial, false);
}

Tensor remapped(const Tensor& X, const Shape& yshape, const Mapping& map, const std::vector<int>& perm,
                std::string name) {
  Tensor y(X.ctx(), yshape, map, Tensor::Unset{}, std::move(name));
  remap_into(X, y, perm, 1.0, false, true);
  return y;
}

std::shared_ptr<const OffsetParts> local_offset_parts(Context& ctx, const Layout& X, const Layout& Y,
                                                      const std::vector<int>& perm) {
  std::string key = "local_offsets|" + X.shape().str() + "|" + X.mapping().str() + "|" + Y.shape().str() + "|" +
                    Y.mapping().str() + "|";
  for (int l : X.shape().lens) key += std::to_string(l) + ",";
  for (int p : perm) key += ":" + std::to_string(p);
  auto& cache = ctx.extensions();
  if (auto it = cache.find(key); it != cache.end()) return std::static_pointer_cast<const OffsetParts>(it->second);
  std::shared_ptr<const OffsetParts> parts;
  const auto words = remap_traffic(X, Y, perm);
  const bool local = std::all_of(words.begin(), words.end(), [](std::int64_t w) { return w == 0; });
  const int P = X.nranks();
  const bool unreplicated = replica_offsets(X).size() == 1 && replica_offsets(Y).size() == 1;
  // Either nothing is replicated, or every rank holds all of both.
  if (local && (unreplicated || (X.mapping().whole_on_every_rank() && Y.mapping().whole_on_every_rank()))) {
    const int me = ctx.rank();
    std::vector<char> dests(P, 0);
    dests[me] = 1;
    std::vector<std::vector<std::int64_t>> ystride(P);
    ystride[me] = Y.strides(me);
    SendTables t = send_tables(X, Y, id_feeds(X, Y, perm, true), rank_parts(Y), ystride, dests);
    if (t.multi.empty()) {
      auto out = std::make_shared<OffsetParts>(X.comps().size());
      for (std::size_t c = 0; c < X.comps().size(); ++c) (*out)[c] = std::move(t.off_part[c][me]);
      parts = out;
    }
  }
  cache[key] = parts;
  return parts;
}

}  // namespace cyclocc::tensor
