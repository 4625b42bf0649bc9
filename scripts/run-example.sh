#!/usr/bin/env bash
# Installs what is missing, builds, and runs examples/water-ccsd.yaml on two
# MPI ranks. The results land in examples/water-ccsd.json (QCSchema) and the
# checkpoint in examples/water-ccsd.h5.
#
#   scripts/run-example.sh [more cyclocc flags, e.g. --restart]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/mpi-env.sh
build_dir=${CYCLOCC_BUILD_DIR:-build}
set +e
mpirun -q -np 2 "$build_dir/app/cyclocc" examples/water-ccsd.yaml "$@"
status=$?
set -e
echo "run-example: cyclocc exited with code $status; results in examples/water-ccsd.json"
exit "$status"
