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

#include "tensor/tensor.hpp"

namespace cyclocc::tensor {

void relabel(const Tensor& X, Tensor& Y, const std::vector<int>& q, double alpha);


}  // namespace cyclocc::tensor
