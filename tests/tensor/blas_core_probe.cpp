// A program for test_blas_core: starts as cyclocc does
// (use_fitting_openblas_kernels), then prints the kernels OpenBLAS runs and
// the log's note, one per line.
#include <cstdio>

#include "tensor/blas_core.hpp"

int main(int, char** argv) {
  cyclocc::tensor::use_fitting_openblas_kernels(argv);
  std::printf("%s\n%s\n", cyclocc::tensor::openblas_core().c_str(), cyclocc::tensor::openblas_kernels_note().c_str());
  return 0;
}
