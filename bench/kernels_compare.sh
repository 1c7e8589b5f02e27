#!/usr/bin/env bash
# kernels_compare.sh - the kernel library (tdist-bench's kernel cases) against MPI (tdist-mpi-peer).
#
#   bench/kernels_compare.sh                         # 2 and 4 PEs, every kernel case, 3 runs
#   bench/kernels_compare.sh --pes 4 --cases "allreduce" --runs 5 -- --max-size 1M
#   bench/kernels_compare.sh --from-log build/bench/kernels-compare-A.log
#
# For every PE count and run it launches ours (build/bin/tdist-run -n N -- build/bin/tdist-bench)
# and the peer (mpirun -n N build/bin/tdist-mpi-peer) with the same arguments, one right after the
# other and in alternating order (odd runs ours first), so that both see the same machine. Every
# ratio is taken within one run: tdist/MPI of the two launches of that run, fused/ideal of one
# launch (GEMM alone and communication alone are timed in the same repeats as the fused kernel);
# the table shows the median of the runs' ratios and their range. Raw output goes to
# BUILD/bench/kernels-compare-<time>.log.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
PES_LIST="2 4"
CASES="allreduce allgather reducescatter ag-gemm gemm-rs"
RUNS=3
REPEATS=5
BUILD_OURS=0
QUIET_WAIT=0
MPIRUN=${MPIRUN:-mpirun}
EXTRA=()
FROM_LOGS=()

usage() {
  cat <<USAGE
usage: bench/kernels_compare.sh [flags] [-- tdist-bench flags for both programs]
  --build-dir DIR   tdist build directory ($BUILD)
  --build           run 'ninja -C DIR tdist-bench tdist-run tdist-mpi-peer' first
  --pes "2 4"       PE counts
  --cases "..."     among: allreduce allgather reducescatter ag-gemm gemm-rs ($CASES)
  --runs N          launches of each program per PE count ($RUNS)
  --repeats R       timed repeats inside each launch ($REPEATS)
  --quiet-wait S    before each launch wait up to S s for an idle machine ($QUIET_WAIT = do not wait)
  --from-log FILE   run nothing: print the tables of earlier logs (repeat to pool several)
  after --, flags both programs get: --min-size 64K --max-size 4M --iters K --m 256 ...
USAGE
}

print_table() {
  python3 - "$@" <<'PY'
import re, statistics, sys
from collections import defaultdict

# (impl, case, variant, pes, size, run) -> median us; shapes per (case, pes)
value = {}
shape = {}
picked = {}
run_id = None
for n, path in enumerate(sys.argv[1:]):
    for line in open(path):
        m = re.match(r"## (\w+) pes=(\d+) run=(\d+)", line)
        if m:
            run_id = (n, int(m.group(3)))
            continue
        if not line.startswith("RESULT "):
            continue
        f = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
        key = (f["impl"], f["case"], f.get("variant", ""), int(f["pes"]), int(f["size"]), run_id)
        value[key] = float(f["median_us"])
        if "m" in f:
            shape[(f["case"], int(f["pes"]))] = f"{f['m']}×{f['n']}×{f['k']}"
        if "picked" in f:
            picked[(int(f["pes"]), int(f["size"]))] = f["picked"]

runs = sorted({k[5] for k in value})
def size_label(b):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift} {unit}"
    return f"{b} B"

def med(impl, case, variant, pes, size):
    v = [value[(impl, case, variant, pes, size, r)] for r in runs if (impl, case, variant, pes, size, r) in value]
    return statistics.median(v) if v else None

def ratio(a, b):
    """Median (min–max) over runs of a/b, each run's a and b from that run; a, b: key minus run."""
    rs = [value[a + (r,)] / value[b + (r,)] for r in runs if a + (r,) in value and b + (r,) in value]
    if not rs:
        return "–"
    text = f"{statistics.median(rs):.2f}"
    return text + (f" ({min(rs):.2f}–{max(rs):.2f})" if len(rs) > 1 else "")

def ms(v):
    return "n/a" if v is None else (f"{v / 1000:.3g} ms" if v >= 1000 else f"{v:.3g} µs")

print(f"\nruns: {len(runs)}; cells: median over runs of each launch's median (slowest PE per repeat);")
print("ratios: median (min–max) over runs of the ratio within each run. Lower is better for tdist.\n")
coll = sorted({(k[1], k[2], k[3], k[4]) for k in value if k[0] == "tdist" and k[1] in ("allreduce", "allgather", "reducescatter")},
              key=lambda r: ({"allreduce": 0, "allgather": 1, "reducescatter": 2}[r[0]], r[2], r[3],
                             {"auto": 0, "one-shot": 1, "two-shot": 2, "ring": 3}.get(r[1], 9)))
if coll:
    print("| case | algorithm | PEs | size | tdist | MPI | tdist/MPI |")
    print("|---|---|---|---|---|---|---|")
    for case, variant, pes, size in coll:
        peer_variant = "MPI_Allreduce" if case == "allreduce" else ""
        name = variant or "–"
        if variant == "auto" and (pes, size) in picked:
            name = f"auto ({picked[(pes, size)]})"
        t = med("tdist", case, variant, pes, size)
        m = med("mpi", case, peer_variant, pes, size)
        r = ratio(("tdist", case, variant, pes, size), ("mpi", case, peer_variant, pes, size))
        print(f"| {case} | {name} | {pes} | {size_label(size)} | {ms(t)} | {ms(m)} | {r} |")

over = sorted({(k[1], k[3], k[4]) for k in value if k[1] in ("ag-gemm", "gemm-rs") and k[0] == "tdist"})
if over:
    print("\n| case | m×n×k | PEs | tdist fused | GEMM alone | comm alone | ideal max(GEMM, comm) | fused/ideal "
          "| MPI comm then GEMM | fused/MPI | tdist comm/MPI comm |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for case, pes, size in over:
        t = lambda v: med("tdist", case, v, pes, size)
        seq = med("mpi", case, "sequential", pes, size)
        print(f"| {case} | {shape.get((case, pes), '?')} | {pes} | {ms(t('fused'))} | {ms(t('gemm'))} | {ms(t('comm'))} "
              f"| {ms(t('ideal'))} | {ratio(('tdist', case, 'fused', pes, size), ('tdist', case, 'ideal', pes, size))} "
              f"| {ms(seq)} | {ratio(('tdist', case, 'fused', pes, size), ('mpi', case, 'sequential', pes, size))} "
              f"| {ratio(('tdist', case, 'comm', pes, size), ('mpi', case, 'comm', pes, size))} |")
    print("\nGEMM alone: OpenBLAS sgemm of the PE's local work on private buffers, in the fused kernel's repeats;")
    print("comm alone: the library's all_gather / reduce_scatter of the same bytes. MPI: MPI_Allgather then GEMM")
    print("(ag-gemm) or GEMM then MPI_Reduce_scatter_block (gemm-rs), one after the other.")
PY
}

while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) BUILD=$(realpath -m "$2"); shift 2 ;;
    --build) BUILD_OURS=1; shift ;;
    --pes) PES_LIST=$2; shift 2 ;;
    --cases) CASES=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --quiet-wait) QUIET_WAIT=$2; shift 2 ;;
    --from-log) FROM_LOGS+=("$2"); shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) usage; exit 0 ;;
    *) echo "kernels_compare.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

if [[ ${#FROM_LOGS[@]} -gt 0 ]]; then
  print_table "${FROM_LOGS[@]}"
  exit 0
fi

note() { echo "kernels_compare.sh: $*" >&2; }
if [[ $BUILD_OURS == 1 ]]; then
  ninja -C "$BUILD" tdist-bench tdist-run tdist-mpi-peer >&2
fi
OURS=1 PEER=1
if [[ ! -x $BUILD/bin/tdist-run || ! -x $BUILD/bin/tdist-bench ]]; then
  note "no $BUILD/bin/tdist-run or tdist-bench (--build) -- skipping tdist"; OURS=0
fi
if ! command -v "$MPIRUN" >/dev/null || [[ ! -x $BUILD/bin/tdist-mpi-peer ]]; then
  note "no $MPIRUN or $BUILD/bin/tdist-mpi-peer (Debian: apt-get install -y openmpi-bin libopenmpi-dev, then rebuild) -- skipping MPI"
  PEER=0
fi
if [[ $OURS == 0 && $PEER == 0 ]]; then note "nothing to run"; exit 1; fi

mkdir -p "$BUILD/bench"
LOG=$BUILD/bench/kernels-compare-$(date +%Y%m%d-%H%M%S).log
: >"$LOG"
ARGS=($CASES --repeats "$REPEATS" --no-table "${EXTRA[@]}")
MPIRUN_FLAGS=(--oversubscribe)
[[ $(id -u) == 0 ]] && MPIRUN_FLAGS+=(--allow-run-as-root)

cpu_times() { awk '/^cpu / {print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6}' /proc/stat; }
machine_busy() {
  local t0 i0 t1 i1
  read -r t0 i0 < <(cpu_times); sleep 1; read -r t1 i1 < <(cpu_times)
  (( (t1 - t0) - (i1 - i0) > (t1 - t0) / 10 ))
}
wait_quiet() {
  (( QUIET_WAIT > 0 )) || return 0
  local deadline=$((SECONDS + QUIET_WAIT))
  while machine_busy; do
    if (( SECONDS >= deadline )); then echo "## machine still busy after ${QUIET_WAIT}s" >>"$LOG"; return 0; fi
    sleep 2
  done
}
run_logged() {  # label, command...
  local label=$1; shift
  wait_quiet
  echo "## $label: $*" >>"$LOG"
  if ! timeout 1800 "$@" >>"$LOG" 2>&1; then note "$label failed (status $?); see $LOG"; fi
}
run_ours() { run_logged "tdist pes=$1 run=$2" "$BUILD/bin/tdist-run" -n "$1" -- "$BUILD/bin/tdist-bench" "${ARGS[@]}"; }
run_peer() { run_logged "mpi pes=$1 run=$2" "$MPIRUN" "${MPIRUN_FLAGS[@]}" -n "$1" "$BUILD/bin/tdist-mpi-peer" "${ARGS[@]}"; }

note "load before: $(cut -d' ' -f1-3 /proc/loadavg); log: $LOG"
for pes in $PES_LIST; do
  for run in $(seq 1 "$RUNS"); do
    note "pes=$pes run $run/$RUNS"
    order=(ours peer)
    (( run % 2 )) || order=(peer ours)
    for impl in "${order[@]}"; do
      if [[ $impl == ours && $OURS == 1 ]]; then run_ours "$pes" "$run"; fi
      if [[ $impl == peer && $PEER == 1 ]]; then run_peer "$pes" "$run"; fi
    done
  done
done
note "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
print_table "$LOG"
