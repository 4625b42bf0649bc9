#!/usr/bin/env bash
# Installs what is missing, builds, and runs the test suite (without the tests
# labelled slow).
#
#   scripts/test.sh [more ctest arguments, e.g. -R app]
#
# The tests run one at a time: the MPI tests start up to 4 ranks and the
# machine may have only 2 cores, so running tests side by side would only
# oversubscribe the cores and stretch timeouts. Set CTEST_PARALLEL_LEVEL to
# override.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/mpi-env.sh
build_dir=${CYCLOCC_BUILD_DIR:-build}
cd "$build_dir"
ctest --output-on-failure -LE 'slow' -j "${CTEST_PARALLEL_LEVEL:-1}" "$@"
