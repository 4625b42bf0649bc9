// remap_traffic() (remap.hpp): the words every rank sends to every other
// rank in a remap, counted exactly per group of connected components
// without touching the data.
#include <functional>
#include <map>
#include <numeric>

#include "tensor/remap.hpp"

namespace cyclocc::tensor {

namespace {

struct Hist {
  std::vector<int> xcomps, ycomps;          // members of the super-component
  std::map<std::vector<int>, std::int64_t> counts;  // residues (x then y) -> tuples
};

// Union-find of X and Y components linked by shared positions.
std::vector<Hist> super_components(const Layout& X, const Layout& Y, const std::vector<int>& perm) {
  const int KX = static_cast<int>(X.comps().size()), KY = static_cast<int>(Y.comps().size());
  std::vector<int> parent(KX + KY);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  };
  const auto xcomp = X.comp_of_position();
  const auto ycomp = Y.comp_of_position();
  for (int j = 0; j < Y.shape().order(); ++j) parent[find(KX + ycomp[j])] = find(xcomp[perm[j]]);
  std::map<int, Hist> sets;
  for (int c = 0; c < KX; ++c) sets[find(c)].xcomps.push_back(c);
  for (int r = 0; r < KY; ++r) sets[find(KX + r)].ycomps.push_back(r);
  std::vector<Hist> out;
  for (auto& kv : sets) out.push_back(std::move(kv.second));
  return out;
}

void fill_hist(const Layout& X, const Layout& Y, const std::vector<int>& perm, Hist& h) {
  const auto ycomp = Y.comp_of_position();
  const std::vector<int> inv = inverse_perm(perm);
  const int nx = static_cast<int>(h.xcomps.size()), ny = static_cast<int>(h.ycomps.size());
  std::vector<int> yslot(Y.comps().size(), -1);
  for (int k = 0; k < ny; ++k) yslot[h.ycomps[k]] = k;
  for (int k = 0; k < nx; ++k)
    if (X.comps()[h.xcomps[k]].table->count == 0) return;  // an edge of length 0: no tuples
  // Odometer over all tuples of the member X components.
  std::vector<std::int64_t> u(nx, 0);
  std::vector<int> key(nx + ny);
  while (true) {
    std::fill(key.begin(), key.end(), 0);
    for (int k = 0; k < nx; ++k) {
      const Component& xc = X.comps()[h.xcomps[k]];
      const int* x = xc.table->tuple(u[k]);
      key[k] = xc.table->residue[u[k]];
      for (int p = xc.first; p < xc.last; ++p) key[nx + yslot[ycomp[inv[p]]]] += x[p - xc.first];
    }
    for (int k = 0; k < ny; ++k) key[nx + k] %= Y.comps()[h.ycomps[k]].phase;
    h.counts[key] += 1;
    int k = nx - 1;
    for (; k >= 0; --k) {
      if (++u[k] < X.comps()[h.xcomps[k]].table->count) break;
      u[k] = 0;
    }
    if (k < 0) break;
  }
}

}  // namespace

std::vector<std::int64_t> remap_traffic(const Layout& X, const Layout& Y, const std::vector<int>& perm, bool partial) {
  check_remap_perm(X, Y, perm);
  const int P = X.nranks();
  std::vector<std::int64_t> words(static_cast<std::size_t>(P) * P, 0);
  auto sets = super_components(X, Y, perm);
  for (Hist& h : sets) fill_hist(X, Y, perm, h);
  const auto xparts = X.rank_parts(), yparts = Y.rank_parts();
  const auto xrep = X.replica_offsets(), yrep = Y.replica_offsets();
  // Combine the histograms: every combination of residues with its count.
  std::vector<int> xres(X.comps().size(), 0), yres(Y.comps().size(), 0);
  std::function<void(std::size_t, std::int64_t)> combine = [&](std::size_t s, std::int64_t count) {
    if (s == sets.size()) {
      int xb = 0, yb = 0;
      for (std::size_t c = 0; c < xres.size(); ++c) xb += xparts[c][xres[c]];
      for (std::size_t r = 0; r < yres.size(); ++r) yb += yparts[r][yres[r]];
      for (int oy : yrep) {
        const int d = yb + oy;
        if (partial) {
          for (int ox : xrep)
            if (xb + ox != d) words[static_cast<std::size_t>(xb + ox) * P + d] += count;
          continue;
        }
        bool holds = false;
        for (int ox : xrep) holds |= (xb + ox == d);
        if (!holds) words[static_cast<std::size_t>(xb + xrep[d % xrep.size()]) * P + d] += count;
      }
      return;
    }
    const Hist& h = sets[s];
    for (const auto& [key, n] : h.counts) {
      for (std::size_t k = 0; k < h.xcomps.size(); ++k) xres[h.xcomps[k]] = key[k];
      for (std::size_t k = 0; k < h.ycomps.size(); ++k) yres[h.ycomps[k]] = key[h.xcomps.size() + k];
      combine(s + 1, count * n);
    }
  };
  combine(0, 1);
  return words;
}

}  // namespace cyclocc::tensor
