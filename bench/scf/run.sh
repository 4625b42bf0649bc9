#!/bin/sh
# SCF wall time of (H2O)2/cc-pVTZ at 1 and 2 ranks, and the ratio.
#   bench/scf/run.sh [BUILD_DIR]      (default: build)
# Needs the cyclocc_scf_bench target (bench/scf/CMakeLists.txt).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
exe="$build/bench/scf/cyclocc_scf_bench"
[ -x "$exe" ] || { echo "missing $exe: build the cyclocc_scf_bench target" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
for np in 1 2; do
  mpirun --oversubscribe -np "$np" "$exe" "$here/h2o2_ccpvtz.yaml" | grep '^bench:'
done | awk '
  { for (i = 1; i <= NF; ++i) v[$i] = $(i + 1); r = v["ranks"]; scf[r] = v["scf_seconds"];
    fock[r] = v["fock_seconds"]; cpu[r] = v["fock_cpu_seconds"]; e[r] = v["energy"]; print }
  END { printf "speed-up at 2 ranks: SCF %.2fx, Fock build %.2fx (wall), %.2fx (CPU); |E(2) - E(1)| = %.1e\n",
        scf[1] / scf[2], fock[1] / fock[2], cpu[1] / cpu[2], (e[1] > e[2] ? e[1] - e[2] : e[2] - e[1]) }'
