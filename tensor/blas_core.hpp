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
// they start: use_fitting_openblas_kernels() starts the program again.
#pragma once

#include <functional>
#include <string>

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

// Call first in main(), before MPI is initialised: when OpenBLAS uses
// kernels older than the processor (better_openblas_core on this machine's
// features) and OPENBLAS_CORETYPE is not set, sets it and executes the
// program's file again with the same arguments; it then returns in the new
// process. before_restart runs just before that (main() holds the stop
// signals there, so that one arriving during the restart waits for the
// handlers instead of ending the process). A user's own OPENBLAS_CORETYPE is
// left alone, and so is a program started through the dynamic loader
// (ld.so PROGRAM).
void use_fitting_openblas_kernels(char** argv, const std::function<void()>& before_restart = {});

// What use_fitting_openblas_kernels does once it has chosen: sets
// OPENBLAS_CORETYPE to core_type and executes the program's file again (by
// the path it was started by, when that names the same file, so a link's
// name stays the process's name); returns in the new process, or in this
// one with the environment unchanged when it cannot start again.
void start_again_with_openblas_core(char** argv, const std::string& core_type,
                                    const std::function<void()>& before_restart = {});

// One line for the log's header: the kernels OpenBLAS runs, whether the
// program started again for them, and better ones it could not take.
std::string openblas_kernels_note();

}  // namespace cyclocc::tensor
