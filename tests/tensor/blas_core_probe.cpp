// A program for test_blas_core: starts as cyclocc does
// (start_in_fitting_environment), then prints, one per line: the kernels
// OpenBLAS runs, the log's BLAS line, the process's name (/proc/self/comm),
// GLIBC_TUNABLES ("-" when unset), the kB of huge pages that back 64 MiB just
// allocated by malloc and written, and the log's memory line ("-" when none).
// With the arguments --start-again-with CORE it first starts again with
// OPENBLAS_CORETYPE CORE whatever OpenBLAS chose, so that the restart is
// tested on any processor.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "parallel/process_start.hpp"
#include "tensor/blas_core.hpp"

// AnonHugePages (/proc/self/smaps_rollup) grown by writing 64 MiB from malloc.
long huge_kb_of_64_mib() {
  auto huge_kb = [] {
    std::ifstream in("/proc/self/smaps_rollup");
    for (std::string key; in >> key;) {
      long kb = 0;
      if (key == "AnonHugePages:" && in >> kb) return kb;
      in.ignore(1 << 20, '\n');
    }
    return 0L;
  };
  const long before = huge_kb();
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  char* p = static_cast<char*>(std::malloc(kBytes));
  if (!p) return -1;
  std::memset(p, 1, kBytes);
  asm volatile("" : : "r"(p) : "memory");  // the writes happen: p is read
  const long grown = huge_kb() - before;
  std::free(p);
  return grown;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--start-again-with" && !std::getenv("OPENBLAS_CORETYPE"))
    cyclocc::par::start_again_with(argv, cyclocc::tensor::openblas_settings(argv[2]));
  cyclocc::tensor::start_in_fitting_environment(argv);
  std::string name;
  std::getline(std::ifstream("/proc/self/comm"), name);
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string pages = cyclocc::par::huge_pages_note();
  std::printf("%s\n%s\n%s\n%s\n%ld\n%s\n", cyclocc::tensor::openblas_core().c_str(),
              cyclocc::tensor::openblas_kernels_note().c_str(), name.c_str(), tunables ? tunables : "-",
              huge_kb_of_64_mib(), pages.empty() ? "-" : pages.c_str());
  return 0;
}
