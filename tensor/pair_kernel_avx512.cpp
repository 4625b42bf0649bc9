// contract_both_orders' kernel (pair_kernel.hpp) with AVX-512VL's 32 vector
// registers: more columns of a block per pass for q = a^T b. This file is compiled with
// -mavx512f -mavx512vl and runs only where the processor has both.
#include "tensor/pair_kernel.hpp"

namespace cyclocc::tensor {

void both_orders_blocks_avx512(std::int64_t n, std::int64_t v, std::int64_t o, const double* a, const double* b,
                               const double* bt, double* p, double* q) {
  blocks_both_ways<32>(n, v, o, a, b, bt, p, q);
}

}  // namespace cyclocc::tensor
