// Local (communication-free) rearrangement inside symmetric groups.
//
// relabel() adds alpha * P[X] into Y, where Y and X have the same mapping and
// Y position j corresponds to X position q[j], with q moving positions only
// inside blocks of positions that are unions of groups of both tensors. P is
// the antisymmetriser (or symmetriser) of Y's groups modulo the symmetry X
// already has: every permutation of a Y group that X does not have is added
// once, with its sign for antisymmetric groups, and no 1/n! (DESIGN.md §8).
// So with Y less symmetric than X this unpacks X (one term); with Y more
// symmetric it antisymmetrises; with the same symmetry it reorders labels
// inside groups with the permutation's sign.
//
// Because ownership depends only on the sum of the indices of a mapped range
// (layout.hpp), both tensors hold the same elements on every rank.
#pragma once

#include <vector>

#include "tensor/remap.hpp"
#include "tensor/tensor.hpp"

namespace cyclocc::tensor {

void relabel(const Tensor& X, Tensor& Y, const std::vector<int>& q, double alpha);

// The same with a local remap fused in (offset parts from local_offset_parts
// in remap.hpp), saving the intermediate tensor and one pass over the data:
// relabel_into adds the result, laid out as Y, into Z where the parts put
// each element of Y; relabel_from reads X (of layout X) from Z where the
// parts put each element of X. The layouts must be the context's
// (Context::layout) and the parts local_offset_parts' own: what a relabel
// does is worked out once per layouts, positions and parts, and kept in the
// context under their addresses.
void relabel_into(const Tensor& X, const Layout& Y, const OffsetParts& y_at, Tensor& Z, const std::vector<int>& q,
                  double alpha);
void relabel_from(const Tensor& Z, const Layout& X, const OffsetParts& x_at, Tensor& Y, const std::vector<int>& q,
                  double alpha);


}  // namespace cyclocc::tensor
