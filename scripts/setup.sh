#!/usr/bin/env bash
# Installs the Debian packages cyclocc needs (only those missing; apt runs only
# if something is missing), then configures a Release build in build/ and
# builds it.
#
#   scripts/setup.sh            # as root, or a user with sudo
#
# Environment: CYCLOCC_BUILD_DIR (default build), CYCLOCC_JOBS (default: the
# number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build g++ pkg-config
  libint2-dev libeigen3-dev libopenblas-dev libscalapack-openmpi-dev
  libopenmpi-dev openmpi-bin libhdf5-openmpi-dev libyaml-cpp-dev libgtest-dev
  clang-14 libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}"
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y "${missing[@]}"
fi

build_dir=${CYCLOCC_BUILD_DIR:-build}
jobs=${CYCLOCC_JOBS:-$(nproc)}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build_dir" -j "$jobs"
echo "setup: built $build_dir/app/cyclocc"
