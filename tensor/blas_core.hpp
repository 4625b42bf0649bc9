// Which kernels the BLAS library runs on this processor, and a remedy when
// OpenBLAS picked generic ones.
//
// OpenBLAS built for many processors (Debian's DYNAMIC_ARCH build) chooses
// its kernels when it is loaded, from the processor's model number. A model
// newer than the library falls back to its oldest kernels: Debian 12's
// OpenBLAS 0.3.21 on a Xeon of model 207 (Emerald Rapids) runs "Prescott"
// (SSE3) kernels, and a 2000^3 dgemm takes 16 instead of 77 GFLOP/s. The
// environment variable OPENBLAS_CORETYPE, read when the library is loaded,
// names the kernels to use instead. Programs that set it must do so before
// they start: start_in_fitting_environment() starts the program again.
#pragma once

#include <functional>
#include <string>

#include "parallel/process_start.hpp"

namespace cyclocc::tensor {

// The name of the kernels OpenBLAS uses (openblas_get_corename; the build
// links OpenBLAS, CMakeLists.txt's BLA_VENDOR).
std::string openblas_core();

// This processor's instruction sets, as better_openblas_core takes them.
bool cpu_has_avx2_fma();
bool cpu_has_avx512();  // F, CD, BW, DQ and VL

// The OPENBLAS_CORETYPE that suits a processor better than `core`, or "":
// "SkylakeX" with AVX-512 (F, CD, BW, DQ and VL), "Haswell" with AVX2 and
// FMA, when `core` is none of the kernels that use AVX2.
std::string better_openblas_core(const std::string& core, bool avx2_fma, bool avx512);

// The OPENBLAS_CORETYPE that suits this processor better than the kernels
// OpenBLAS chose, or "" (also when OPENBLAS_CORETYPE is set: a user's own
// choice, or the program started again).
std::string fitting_openblas_core();

// The settings with which the program, started again, runs OpenBLAS's
// core_type kernels, and its log says so (openblas_kernels_note).
par::EnvSettings openblas_settings(const std::string& core_type);

// Call first in main(), before MPI is initialised: starts the program again
// (par::start_again_with) when OpenBLAS uses kernels older than the
// processor (fitting_openblas_core) or malloc could use huge pages
// (par::huge_page_settings), with both set; it then returns in the new
// process. before_restart runs just before that (main() holds the stop
// signals there, so that one arriving during the restart waits for the
// handlers instead of ending the process).
void start_in_fitting_environment(char** argv, const std::function<void()>& before_restart = {});

// One line for the log's header: the kernels OpenBLAS runs, whether the
// program started again for them, and better ones it could not take.
std::string openblas_kernels_note();

}  // namespace cyclocc::tensor
