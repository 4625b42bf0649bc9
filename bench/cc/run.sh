#!/usr/bin/env bash
# CC benchmark: cyclocc against NWChem (TCE) and Psi4 (ccenergy) on bench/cc/P*.yaml and
# the matching peer inputs in bench/cc/peers/. Every ratio is measured in this run.
#   bench/cc/run.sh [--ranks "2 1"] [--cases "P1 P2 ..."] [--peers nwchem,psi4|none] [BUILD_DIR]
# A case "Xn-t" runs case Xn with CCSD(T) instead of CCSD. BUILD_DIR defaults to build.
# Scratch goes to $CC_BENCH_WORK (default: a new mktemp folder); it is kept for the logs.
# See README.md for the rules (median excludes iteration 1, how peers are timed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
ranks="2 1"; cases="P1 P2 P3 P4 P5a P5a-t P5b P6"; peers=auto; peer_np=2
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) ranks=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --peers) peers=$2; shift 2 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) build=$1; shift ;;
  esac
done
build=${build:-build}
exe=$build/app/cyclocc
[ -x "$exe" ] || { echo "missing $exe: build the cyclocc target or pass BUILD_DIR" >&2; exit 1; }
exe=$(cd "$(dirname "$exe")" && pwd)/cyclocc
if [ "$peers" = auto ]; then
  peers=""; for p in nwchem psi4; do command -v $p >/dev/null && peers="$peers,$p"; done
  peers=${peers#,}
fi
want() { case ",$peers," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
work=${CC_BENCH_WORK:-$(mktemp -d /tmp/bench-cc.XXXXXX)}
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2fx", a / b }'; }
# The median of the numbers on stdin (separated by spaces or lines).
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
absdiff() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else { d = a - b; printf "%.1e", d < 0 ? -d : d } }'; }

# Run "$@" on $1 MPI ranks in the current folder; rank r's peak RSS (kB) goes to rss.r.
mpi_rss() {
  local np=$1; shift
  mpirun --oversubscribe -np "$np" sh -c 'exec /usr/bin/time -f %M -o "rss.${OMPI_COMM_WORLD_RANK:-0}" "$@"' sh "$@"
}
# Largest peak RSS over the rss.* files of folder $1, in MB (last line: time may add a status line).
peak_mb() { for f in "$1"/rss.*; do tail -n 1 "$f"; done | awk '$1 > m { m = $1 } END { printf "%.0f", m / 1024 }'; }

# Total dgemm GFLOP/s of $1 processes running at once: bench_tensor's yardstick line.
yardstick() {
  local b=$build/bench/tensor/bench_tensor
  [ -x "$b" ] || { echo -; return; }
  mpirun --oversubscribe -np "$1" "$b" --quick 2>/dev/null | awk '/yardstick/ { v = $(NF - 3) } END { print v == "" ? "-" : v }'
}

# cyclocc JSON -> "median mean iterations motransform triples energy" (median/mean of cc_iterations[1:]).
parse_cyclocc() {
  python3 - "$1" <<'EOF'
import json, statistics as st, sys
try:
    d = json.load(open(sys.argv[1])); t = d["extras"]["timings"]; it = t.get("cc_iterations", [])
except (OSError, ValueError, KeyError):
    print("- - - - - -"); sys.exit()
rest = it[1:] or it
f = lambda k: "%.2f" % t[k] if k in t else "-"
med = "%.3f %.3f" % (st.median(rest), st.mean(rest)) if rest else "- -"
e = d.get("return_energy"); print(med, len(it), f("motransform"), f("triples"), "-" if e is None else "%.12f" % e)
EOF
}
# Totals row "all N operations (X flops)" of the rank-0 table -> "GFLOP/s dgemm%".
parse_ops() { awk '/ all [0-9]+ operations / { g = $3; p = $4 } END { sub("%", "", p); print (g == "" ? "-" : g), (p == "" ? "-" : p) }' "$1"; }
# Rank-0 GFLOP of one iteration: the operations of the -v table called at least $2 (the
# iteration count) times, GFLOP/s x seconds summed, over $2. The table lists the 60 slowest,
# so this can only undercount.
parse_iteration_gflop() {
  awk -v n="$2" '/^operations on rank 0/ { on = 1; next }
    on && / all [0-9]+ operations / { on = 0 }
    on && $2 ~ /^[0-9]+$/ && $2 + 0 >= n + 0 { f += $1 * $3 }
    END { if (n + 0 > 0) printf "%.4f\n", f / n; else print "-" }' "$1"
}

# NWChem output -> "median mean iterations triples energy": Wall column of the last TCE
# iteration table from iteration 2 on; (T) = wall of the "Cpu & wall" line after CCSD(T).
parse_nwchem() {
  python3 - "$1" <<'EOF'
import re, statistics as st, sys
walls, intable, trip, after_t, energy = [], False, "-", False, "-"
for line in open(sys.argv[1], errors="replace"):
    if re.match(r"\s*Iter\s+Residuum\s+Correlation\s+Cpu\s+Wall", line):
        walls, intable = [], True; continue
    m = re.match(r"\s*(\d+)\s+\S+\s+-?\d+\.\d+\s+(\d+\.\d+)\s+(\d+\.\d+)\s*$", line)
    if intable and m: walls.append(float(m.group(3)))
    elif intable and walls and line.strip().startswith("---"): intable = False
    m = re.search(r"total energy / hartree\s*=\s*(\S+)", line)
    if m: energy = m.group(1); after_t = "CCSD(T) total" in line
    m = re.search(r"Cpu & wall time / sec\s+\S+\s+(\S+)", line)
    if m and after_t: trip, after_t = m.group(1), False
rest = walls[1:] or walls
med = "%.3f %.3f" % (st.median(rest), st.mean(rest)) if rest else "- -"
print(med, len(walls), trip, energy)
EOF
}
# Psi4 out.dat + timer.dat -> "per-iteration iterations triples energy":
# per iteration = ccenergy wall / last iteration number of the amplitude table; (T) = cctriples wall.
parse_psi4() {
  python3 - "$1" "$2" <<'EOF'
import re, sys
iters, energy, wall, intable = 0, "-", {}, False
for line in open(sys.argv[1], errors="replace"):
    if re.match(r"\s*Iter\s+Energy\s+RMS\s+T1Diag", line): intable = True
    if "Iterations converged" in line: intable = False
    m = re.match(r"\s+(\d+)\s+-?\d+\.\d+\s+\d\.\d+e[-+]\d+\s", line)
    if intable and m: iters = int(m.group(1))
    m = re.search(r"\*\s*CC\S*\s+total energy\s*=\s*(\S+)", line)
    if m: energy = m.group(1)
try:
    for line in open(sys.argv[2]):
        m = re.match(r"(ccenergy|cctriples)\s*:.*?(\d+\.\d+)w", line)
        if m and m.group(1) not in wall: wall[m.group(1)] = float(m.group(2))
except OSError: pass
per = "%.3f" % (wall["ccenergy"] / iters) if iters and "ccenergy" in wall else "-"
print(per, iters or "-", "%.2f" % wall["cctriples"] if "cctriples" in wall else "-", energy)
EOF
}

row() { printf '%-6s %-8s %4s %8s %8s %5s %7s %7s %7s %7s %5s %6s %6s %6s %17s\n' "$@"; }

# $1 case, $2 stem, $3 ranks -> result row; sets cyc_<ranks>="med wall trip E".
# The yardstick is read just before and just after the run, and their mean is the
# rate its percentages compare with: this machine's dgemm rate drifts by 10-15%
# within minutes, so a reading from the start of the sitting may not fit a case.
run_cyclocc() {
  local d=$work/$1/cyclocc-np$3 t0 rc med mean it mo tr e g p y0 y1 ym
  rm -rf "$d"; mkdir -p "$d"
  sed "$sub_yaml" "$here/$2.yaml" > "$d/$2.yaml"
  y0=$(yardstick "$3")
  t0=$(now); (cd "$d" && mpi_rss "$3" "$exe" "$2.yaml" -v) > "$d/out.txt" 2>&1; rc=$?
  local wall; wall=$(since "$t0")
  y1=$(yardstick "$3")
  ym=$(awk -v a="$y0" -v b="$y1" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.1f", (a + b) / 2 }')
  echo "$1 np $3: yardstick $y0 before, $y1 after, $ym GFLOP/s taken"
  [ $rc -eq 0 ] || { echo "$1 cyclocc np $3 FAILED (exit $rc): see $d/out.txt"; printf -v "cyc_$3" '%s' "- - - -"; return; }
  read -r med mean it mo tr e < <(parse_cyclocc "$d/$2.json")
  read -r g p < <(parse_ops "$d/out.txt")
  local y; y=$(awk -v g="$g" -v y="$ym" -v n="$3" 'BEGIN { if (g == "-" || y == "-") print "-"; else printf "%.0f", 100 * g / (y / n) }')
  local gi yi; gi=$(parse_iteration_gflop "$d/out.txt" "$it")
  yi=$(awk -v g="$gi" -v t="$med" -v y="$ym" -v n="$3" \
    'BEGIN { if (g == "-" || t == "-" || y == "-" || t + 0 <= 0) print "-"; else printf "%.0f", 100 * g / t / (y / n) }')
  row "$1" cyclocc "$3" "$med" "$mean" "$it" "$wall" "$mo" "$tr" "$g" "$p" "$y" "$yi" "$(peak_mb "$d")" "$e"
  printf -v "cyc_$3" '%s' "$med $wall $tr $e"
}

# $1 case, $2 stem; NWChem at $peer_np ranks from a folder with scr/. Sets nw="med wall trip E".
run_nwchem() {
  local d=$work/$1/nwchem t0 rc med mean it tr e
  rm -rf "$d"; mkdir -p "$d/scr"
  sed "$sub_nw" "$here/peers/$2.nw" > "$d/$2.nw"
  t0=$(now); (cd "$d" && mpi_rss "$peer_np" nwchem "$2.nw") > "$d/out.txt" 2>&1; rc=$?
  local wall; wall=$(since "$t0")
  read -r med mean it tr e < <(parse_nwchem "$d/out.txt")
  [ $rc -eq 0 ] && [ "$e" != - ] || { echo "$1 nwchem FAILED (exit $rc): see $d/out.txt"; nw="- - - -"; return; }
  # Iterations of a few tenths of a second or less, too short for the 0.1 s Wall
  # column: timed by difference (below).
  if awk -v m="$med" 'BEGIN { exit !(m + 0 < 0.35) }'; then
    read -r med mean < <(nwchem_by_difference "$1" "$2")
  fi
  row "$1" nwchem "$peer_np" "$med" "$mean" "$it" "$wall" - "$tr" - - - - "$(peak_mb "$d")" "$e"
  nw="$med $wall $tr $e"
}

# NWChem output -> the wall seconds of every stage that prints its own (SCF "Time for
# solution", the "Cpu & wall time" lines of the transform and of (T)).
nwchem_stages() {
  python3 - "$1" <<'EOF2'
import re, sys
stages = 0.0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"Time for solution\s*=\s*(\S+)s", line) or re.search(r"Cpu & wall time / sec\s+\S+\s+(\S+)", line)
    if m: stages += float(m.group(1))
print("%.2f" % stages)
EOF2
}

# Per-iteration seconds of NWChem's TCE by difference: $1 case, $2 stem. Runs the input
# three times as given and three times with the TCE threshold at 1e-3 (the same set-up,
# fewer iterations), alternating. Of each run it takes the wall time this script measures
# (1 ms resolution; NWChem's own clocks print 0.1 s) less the stages that print their own
# (above: their run-to-run noise, e.g. that of (T), drops out); then, with the median of
# each kind, (full - loose) / (iterations_full - iterations_loose).
# Prints "per-iteration diff", or "- -".
nwchem_by_difference() {
  local d=$work/$1/nwchem-diff k t0 t1 w st n walls_full="" walls_loose="" fn=0 ln=0 sed_loose='s/^ thresh 1e-9$/ thresh 1e-3/'
  for k in full loose full loose full loose; do
    rm -rf "$d"; mkdir -p "$d/scr"
    if [ $k = full ]; then sed "$sub_nw" "$here/peers/$2.nw"; else sed -e "$sub_nw" -e "$sed_loose" "$here/peers/$2.nw"; fi > "$d/$2.nw"
    t0=$(now)
    (cd "$d" && mpi_rss "$peer_np" nwchem "$2.nw") > "$d/out.txt" 2>&1 || { echo "- -"; return; }
    t1=$(now)
    st=$(nwchem_stages "$d/out.txt")
    read -r _ _ n _ < <(parse_nwchem "$d/out.txt")
    w=$(awk -v a="$t0" -v b="$t1" -v s="$st" 'BEGIN { printf "%.3f", b - a - s }')
    if [ $k = full ]; then walls_full="$walls_full $w"; fn=$n; else walls_loose="$walls_loose $w"; ln=$n; fi
  done
  local full loose
  full=$(echo "$walls_full" | median)
  loose=$(echo "$walls_loose" | median)
  awk -v f="$full" -v l="$loose" -v n="$fn" -v m="$ln" \
    'BEGIN { if (n > m && f > l) printf "%.3f diff\n", (f - l) / (n - m); else print "- -" }'
}

# $1 case, $2 stem; Psi4 with $peer_np threads. Sets ps="per-iter wall trip E".
run_psi4() {
  local d=$work/$1/psi4 t0 rc per it tr e
  rm -rf "$d"; mkdir -p "$d"
  sed "$sub_psi4" "$here/peers/$2.psi4.dat" > "$d/$2.psi4.dat"
  t0=$(now)
  (cd "$d" && OPENBLAS_NUM_THREADS=$peer_np OMP_NUM_THREADS=$peer_np PSI_SCRATCH=$d \
     /usr/bin/time -f %M -o rss.0 psi4 -n "$peer_np" "$2.psi4.dat" out.dat) > "$d/log.txt" 2>&1; rc=$?
  local wall; wall=$(since "$t0")
  read -r per it tr e < <(parse_psi4 "$d/out.dat" "$d/timer.dat")
  [ $rc -eq 0 ] && [ "$e" != - ] || { echo "$1 psi4 FAILED (exit $rc): see $d/out.dat"; ps="- - - -"; return; }
  row "$1" psi4 "${peer_np}t" "$per" - "$it" "$wall" - "$tr" - - - - "$(peak_mb "$d")" "$e"
  ps="$per $wall $tr $e"
}

# cyclocc/peer ratios for every cyclocc rank count run: $1 case, $2 peer name, $3 "med wall trip E".
compare() {
  local np v pm pw pt pe cm cw ct ce
  read -r pm pw pt pe <<< "$3"
  for np in $ranks; do
    v=cyc_$np; [ -n "${!v:-}" ] || continue
    read -r cm cw ct ce <<< "${!v}"
    echo "$1 cyclocc(np $np)/$2: per-iteration $(ratio "$cm" "$pm")  whole run $(ratio "$cw" "$pw")" \
         "$( [ "$ct" != - ] && echo " (T) $(ratio "$ct" "$pt")")  |dE| $(absdiff "$ce" "$pe")"
  done
}

echo "cyclocc: $exe; peers:${peers:-none} (at $peer_np); scratch: $work"
# Where OpenBLAS falls back to generic kernels on this processor, cyclocc and
# bench_tensor start again with OPENBLAS_CORETYPE set (tensor/blas_core.hpp);
# the peers use the same OpenBLAS, so every program gets the same kernels.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && [ -x "$build/bench/tensor/bench_tensor" ]; then
  core=$("$build/bench/tensor/bench_tensor" --quick 2>/dev/null | sed -n 's/.*running with OPENBLAS_CORETYPE=\([A-Za-z0-9]*\).*/\1/p')
  [ -z "$core" ] || { export OPENBLAS_CORETYPE=$core; echo "OpenBLAS chose generic kernels here: OPENBLAS_CORETYPE=$core for every program"; }
fi
# Likewise malloc on transparent huge pages (parallel/process_start.hpp):
# cyclocc and bench_tensor ask for them where the kernel gives them on
# request, and so do the peers here.
if grep -q '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
   [[ "${GLIBC_TUNABLES:-}" != *glibc.malloc.hugetlb* ]]; then
  export GLIBC_TUNABLES=${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1
  echo "malloc on transparent huge pages: GLIBC_TUNABLES=$GLIBC_TUNABLES for every program"
fi
for np in $ranks; do
  printf -v "yard_$np" '%s' "$(yardstick "$np")"; v=yard_$np
  echo "yardstick: $np concurrent dgemm processes, ${!v} GFLOP/s in total (bench_tensor --quick)"
done
row case program np s/it-med s/it-mean iters wall_s motr_s trip_s GFLOP/s dgemm% %yard %yd/it RSS_MB energy
for c in $cases; do
  base=${c%-t}; sub_yaml=''; sub_nw=''; sub_psi4=''
  if [ "$base" != "$c" ]; then
    sub_yaml='s/^\(  method:\) ccsd$/\1 ccsd(t)/'; sub_nw='s/^ ccsd$/ ccsd(t)/'; sub_psi4="s/energy('ccsd')/energy('ccsd(t)')/"
  fi
  yaml=$(ls "$here/${base}"_*.yaml 2>/dev/null | head -n 1)
  [ -n "$yaml" ] || { echo "$c: no $here/${base}_*.yaml" >&2; continue; }
  stem=$(basename "$yaml" .yaml)
  if [ "$base" != "$c" ] && ! grep -q '^  method: ccsd$' "$yaml"; then echo "$c: $stem is not a CCSD case" >&2; continue; fi
  unset $(compgen -v cyc_) 2>/dev/null
  for np in $ranks; do run_cyclocc "$c" "$stem" "$np"; done
  if want nwchem && [ -f "$here/peers/$stem.nw" ]; then run_nwchem "$c" "$stem"; compare "$c" nwchem "$nw"; fi
  if want psi4 && [ -f "$here/peers/$stem.psi4.dat" ]; then run_psi4 "$c" "$stem"; compare "$c" psi4 "$ps"; fi
done
