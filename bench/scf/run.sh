#!/bin/sh
# SCF wall time of (H2O)2/cc-pVTZ at 1 and 2 ranks, and the ratio to Psi4.
#   bench/scf/run.sh [BUILD_DIR]      (default: build)
# Needs the cyclocc_scf_bench target (bench/scf/CMakeLists.txt) and the
# cyclocc executable; Psi4 (scf_type pk) runs when `psi4` is on PATH.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
exe="$build/bench/scf/cyclocc_scf_bench"
app="$build/app/cyclocc"
[ -x "$exe" ] || { echo "missing $exe: build the cyclocc_scf_bench target" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
work=$(mktemp -d /tmp/bench-scf.XXXXXX)
for np in 1 2; do
  mpirun --oversubscribe -np "$np" "$exe" "$here/h2o2_ccpvtz.yaml" | grep '^bench:'
done | awk '
  { for (i = 1; i <= NF; ++i) v[$i] = $(i + 1); r = v["ranks"]; scf[r] = v["scf_seconds"];
    fock[r] = v["fock_seconds"]; cpu[r] = v["fock_cpu_seconds"]; e[r] = v["energy"]; print }
  END { printf "speed-up at 2 ranks: SCF %.2fx, Fock build %.2fx (wall), %.2fx (CPU); |E(2) - E(1)| = %.1e\n",
        scf[1] / scf[2], fock[1] / fock[2], cpu[1] / cpu[2], (e[1] > e[2] ? e[1] - e[2] : e[2] - e[1]) }'

# Whole runs, process start to exit: cyclocc (method none) against Psi4.
wall() {  # wall seconds of the command
  s=$(date +%s.%N); "$@" > "$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }; e=$(date +%s.%N)
  echo "$s $e" | awk '{ printf "%.2f", $2 - $1 }'
}
cp "$here/h2o2_ccpvtz.yaml" "$here/psi4_h2o2_ccpvtz.dat" "$work/"
cd "$work"
for np in 1 2; do
  c=$(wall mpirun --oversubscribe -np "$np" "$app" h2o2_ccpvtz.yaml --json "c$np.json" --checkpoint "c$np.h5")
  ec=$(sed -n 's/.*"return_energy": *\([-0-9.eE+]*\).*/\1/p' "c$np.json" | head -1)
  line="whole run np $np: cyclocc ${c} s (E $ec)"
  if command -v psi4 > /dev/null; then
    p=$(wall psi4 -n "$np" psi4_h2o2_ccpvtz.dat "p$np.out")
    ep=$(sed -n 's/.*Total Energy = *\([-0-9.]*\).*/\1/p' "p$np.out" | tail -1)
    line="$line  Psi4 ${p} s (E $ep)  cyclocc/Psi4 $(echo "$c $p" | awk '{ printf "%.2f", $1 / $2 }')"
  fi
  echo "$line"
done
echo "scratch: $work"
