// Helpers shared by the tensor-layer benchmarks.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tensor/shape.hpp"

namespace cyclocc::bench {

// Wall-clock seconds.
inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A shape from its edge lengths and one flag per index, 'A' antisymmetric
// with the next index, anything else not ("ANNANN").
inline tensor::Shape mk(std::vector<int> lens, const std::string& syms) {
  std::vector<tensor::Sym> s;
  for (char c : syms) s.push_back(c == 'A' ? tensor::Sym::AS : tensor::Sym::NS);
  return tensor::Shape(std::move(lens), std::move(s));
}

}  // namespace cyclocc::bench
