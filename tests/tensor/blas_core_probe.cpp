// A program for test_blas_core: starts as cyclocc does
// (use_fitting_openblas_kernels), then prints the kernels OpenBLAS runs, the
// log's line and the process's name (/proc/self/comm), one per line.
#include <cstdio>
#include <fstream>
#include <string>

#include "tensor/blas_core.hpp"

int main(int, char** argv) {
  cyclocc::tensor::use_fitting_openblas_kernels(argv);
  std::string name;
  std::getline(std::ifstream("/proc/self/comm"), name);
  std::printf("%s\n%s\n%s\n", cyclocc::tensor::openblas_core().c_str(), cyclocc::tensor::openblas_kernels_note().c_str(),
              name.c_str());
  return 0;
}
