// Starting the program again, before MPI is initialised, with a changed
// environment: for settings that a library reads only when it is loaded
// (OpenBLAS's OPENBLAS_CORETYPE, tensor/blas_core.hpp; glibc's
// GLIBC_TUNABLES, below).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cyclocc::par {

// Environment variables to set: (name, value).
using EnvSettings = std::vector<std::pair<std::string, std::string>>;

// Sets `settings` and executes the program's file again with the same
// arguments; it then returns in the new process (the same process: pid,
// parent and open files stay). The file is run by the path the kernel ran it
// by, when that still names the same file, so that a link's name stays the
// process's name (ps, pkill -x). before_restart runs just before the exec.
// Nothing happens, and it returns with the environment as it was, when
// settings is empty, when this process was started again already, when the
// program runs through the dynamic loader (ld.so PROGRAM: argv would lose the
// program's name), with raised privileges (setuid, file capabilities: glibc
// then drops GLIBC_TUNABLES), under valgrind (which the exec would leave),
// or when the exec fails.
void start_again_with(char** argv, const EnvSettings& settings, const std::function<void()>& before_restart = {});

// Huge pages for malloc. Tensors are hundreds of megabytes, and each page
// of them faults once when first written: with 4 KiB pages that is a
// quarter of a million faults per gigabyte, dear on a virtual machine. With
// transparent huge pages in Linux's default mode ("madvise": only for
// memory that asks) glibc's tunable glibc.malloc.hugetlb=1 (glibc 2.35 and
// later) makes malloc ask, and memory faults 2 MiB at a time. Measured on a
// 2-vCPU virtual machine, H2O/aug-cc-pVTZ CCSD at 1 rank: 13.4 -> 8.5 s,
// 480 000 -> 25 000 page faults, peak memory 4% higher (README).
//
// The value of glibc.malloc.hugetlb in a GLIBC_TUNABLES value (the last
// entry of that name), or none.
std::optional<std::string> hugetlb_setting(const char* tunables);
// The GLIBC_TUNABLES value that adds glibc.malloc.hugetlb=1 to `tunables`
// (the variable's value, or null when unset), given the contents of
// /sys/kernel/mm/transparent_hugepage/enabled; "" when there is nothing to
// add: huge pages are not in "madvise" mode, or glibc.malloc.hugetlb is set
// already (a user's own choice, or the program started again).
// huge_page_settings() also asks for glibc 2.35 or later, and that huge
// pages are not disabled for this process (prctl PR_SET_THP_DISABLE).
std::string huge_page_tunables(const char* tunables, const std::string& thp_enabled);
// The settings that put this process's malloc on huge pages, or none.
EnvSettings huge_page_settings();
// One line for the log's header when malloc asks for huge pages
// (glibc.malloc.hugetlb=1, glibc 2.35 or later, and huge pages on request
// or always, and not disabled for this process); "" otherwise.
std::string huge_pages_note();

}  // namespace cyclocc::par
