// A program for test_blas_core: starts as cyclocc does
// (use_fitting_openblas_kernels), then prints the kernels OpenBLAS runs, the
// log's line and the process's name (/proc/self/comm), one per line. With
// the arguments --start-again-with CORE it starts again with OPENBLAS_CORETYPE
// CORE whatever OpenBLAS chose, so that the restart is tested on any processor.
#include <cstdio>
#include <fstream>
#include <cstdlib>
#include <string>

#include "tensor/blas_core.hpp"

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--start-again-with" && !std::getenv("OPENBLAS_CORETYPE"))
    cyclocc::tensor::start_again_with_openblas_core(argv, argv[2]);
  else
    cyclocc::tensor::use_fitting_openblas_kernels(argv);
  std::string name;
  std::getline(std::ifstream("/proc/self/comm"), name);
  std::printf("%s\n%s\n%s\n", cyclocc::tensor::openblas_core().c_str(), cyclocc::tensor::openblas_kernels_note().c_str(),
              name.c_str());
  return 0;
}
