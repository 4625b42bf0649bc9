#!/usr/bin/env bash
# Builds tests/input/fuzz_input.cpp with clang++-14 and libFuzzer (ASan +
# UBSan) against the input/ sources and yaml-cpp, then fuzzes parse_input_text
# from the seeds in fuzz_corpus/ for a bounded number of runs and time.
# Exits non-zero if clang is missing, the build fails, or the fuzzer finds a
# crash, an exception other than InputError, a leak, a timeout or an OOM.
#
# usage: tests/input/run_fuzz.sh [WORK_DIR]   (default: /tmp/cyclocc-fuzz)
# env:   FUZZ_RUNS (100000), FUZZ_SECONDS (45), CLANGXX (clang++-14)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-/tmp/cyclocc-fuzz}
cxx=${CLANGXX:-clang++-14}
runs=${FUZZ_RUNS:-100000}
seconds=${FUZZ_SECONDS:-45}

if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "run_fuzz.sh: FAIL: $cxx not found; install clang-14 and libclang-rt-14-dev" >&2
  exit 1
fi

rm -rf "$work/corpus" "$work/artifacts"   # every run starts from the seeds alone
mkdir -p "$work/obj" "$work/corpus" "$work/artifacts"
flags=(-std=c++20 -g -O1 -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=all -fno-omit-frame-pointer -I"$root")

# Compile every input/ source except the reference tool (it has a main), two at a time.
sources=()
for f in "$root"/input/*.cpp; do
  [[ $(basename "$f") == reference_tool.cpp ]] || sources+=("$f")
done
sources+=("$here/fuzz_input.cpp")
pids=()
for f in "${sources[@]}"; do
  "$cxx" "${flags[@]}" -c "$f" -o "$work/obj/$(basename "$f" .cpp).o" &
  pids+=($!)
  if (( ${#pids[@]} >= 2 )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
"$cxx" -fsanitize=fuzzer,address,undefined "$work"/obj/*.o -lyaml-cpp -o "$work/fuzz_input"

# Fuzz a copy of the seeds, so the source tree never changes.
cp "$here"/fuzz_corpus/* "$work/corpus/"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
"$work/fuzz_input" -runs="$runs" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
    -max_len=4096 -dict="$here/fuzz_yaml.dict" -artifact_prefix="$work/artifacts/" \
    -print_final_stats=1 "$work/corpus" || status=$?
if (( status != 0 )); then
  echo "run_fuzz.sh: FAIL: the fuzzer found a problem (exit $status); see $work/artifacts/" >&2
  exit 1
fi
echo "run_fuzz.sh: OK: no findings in $runs runs or ${seconds}s"
