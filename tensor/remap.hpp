// Moving tensor data between layouts without sending indices.
//
// remap() adds alpha * X into Y, where Y's index positions are a permutation
// of whole groups of X (Y position j holds X position perm[j]) and Y may have
// any mapping. Both sides walk the data in Y's canonical order: the sender
// sorts what it sends to each rank by the receiver's local offset, and the
// receiver reads its buffers in its own storage order, computing from each
// element which rank sent it. Only values travel (CTF's dense redistribution).
//
// With `partial` set, the replicas of X along its replicated grid dimensions
// hold partial sums (the output of a contraction split over its contracted
// indices): every replica sends, and Y receives their sum.
//
// remap_traffic() predicts, exactly and without touching the data, the words
// every rank sends to every other rank, by counting per group of connected
// components; the contraction's mapping search uses it as its cost model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace cyclocc::tensor {

void remap(const Tensor& X, Tensor& Y, const std::vector<int>& perm, double alpha, bool partial = false);

// A new tensor of shape `yshape` (X's groups permuted by perm) and mapping
// `map` holding X: every element is assigned once, so its storage is never
// zeroed first (Tensor::Unset).
Tensor remapped(const Tensor& X, const Shape& yshape, const Mapping& map, const std::vector<int>& perm,
                std::string name = "");

// words[s * P + r]: values rank s sends to rank r (s != r).
std::vector<std::int64_t> remap_traffic(const Layout& X, const Layout& Y, const std::vector<int>& perm,
                                        bool partial = false);

// Per component c of X and local tuple u of it: parts[c][u]. An element's
// local offset in another layout is the sum of its components' parts.
using OffsetParts = std::vector<std::vector<std::int64_t>>;

// When remapping X into Y (perm as in remap) moves nothing between ranks, on
// any rank, and neither layout is replicated or both are whole on every rank:
// where each local element of X
// lands in Y's local storage, as parts over X's components. Otherwise null.
// The answer depends on the layouts only, so it is the same on every rank,
// and it is kept in the Context (the remap can then be fused into a relabel).
std::shared_ptr<const OffsetParts> local_offset_parts(Context& ctx, const Layout& X, const Layout& Y,
                                                      const std::vector<int>& perm);

// Throws unless Y's positions are a permutation of whole groups of X with the
// same edge lengths (remap's precondition).
void check_remap_perm(const Layout& X, const Layout& Y, const std::vector<int>& perm);

// Sent plus received words of `rank` from a traffic matrix.
std::int64_t traffic_of(const std::vector<std::int64_t>& words, int nranks, int rank);

// Identity permutation of n positions.
std::vector<int> identity_perm(int n);
// The inverse of a permutation: inverse_perm(p)[p[j]] = j.
std::vector<int> inverse_perm(const std::vector<int>& perm);

}  // namespace cyclocc::tensor
