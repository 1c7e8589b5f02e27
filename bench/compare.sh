#!/usr/bin/env bash
# compare.sh - tdist-bench against the same measurements on OpenSHMEM (Debian's OpenMPI).
#
#   bench/compare.sh                       # 2 and 4 PEs, all cases, 3 runs of 5 repeats each
#   bench/compare.sh --pes 2 --runs 5 --cases "pingpong barrier"
#   bench/compare.sh --collectives         # OpenSHMEM reductions, broadcast, fcollect, alltoall
#
# For every PE count and run it starts ours (build/bin/tdist-run -n N -- build/bin/tdist-bench),
# right after it the peer (oshrun -np N shmem_bench) with the same arguments, so that both see the
# same machine load, then ours again with --op signal. Each program reports the median of its
# repeats; the table shows the median of those over the runs. Raw output goes to
# BUILD/bench/compare-<time>.log; --from-log prints the table of earlier logs.
# Without oshcc/oshrun the peer is skipped with a message and the table has only our column.
# OSHRUN_EXTRA adds flags to the peer's oshrun: with TDIST_TRANSPORT=ucx UCX_TLS=tcp and
# OSHRUN_EXTRA="--mca spml ucx -x UCX_TLS", both go through UCX over TCP (the same link).
#
# --collectives builds bench/openshmem/shmem_collectives_bench.c twice, with tdist's oshcc
# (BUILD/bin) and with the peer's ($OSHCC), and runs the two one after the other (tdist's
# oshrun, then $OSHRUN) on the same arguments: the same calls on both implementations.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
PES_LIST="2 4"
CASES="put pingpong ring barrier"
RUNS=3
REPEATS=5
ITERS=""
MAX_SIZE=64M
MAX_SIZE_SET=""
SIGNAL=1
BUILD_OURS=0
QUIET_WAIT=300
OSHCC=${OSHCC:-oshcc}      # another OpenSHMEM's wrappers can stand in for Debian's OpenMPI ones
OSHRUN=${OSHRUN:-oshrun}

usage() {
  cat <<USAGE
usage: bench/compare.sh [flags]
  --build-dir DIR   tdist build directory ($BUILD); the peer binary goes to DIR/bench/
  --build           run 'ninja -C DIR tdist-bench tdist-run' first
  --pes "2 4"       PE counts to compare
  --cases "..."     cases among: put pingpong ring barrier
  --runs N          launches of each program per PE count ($RUNS); the table shows medians
  --repeats R       timed repeats inside each launch ($REPEATS)
  --iters K         iterations per repeat (default: each case's own)
  --max-size S      largest put size ($MAX_SIZE)
  --no-signal       skip tdist's extra '--op signal' ping-pong/ring rows (OpenSHMEM 1.4 has no signal API)
  --quiet-wait S    before each launch wait up to S seconds for an idle machine (under 10% CPU
                    busy over a second; $QUIET_WAIT, 0 = do not wait); launches started busy are counted
  --from-log FILE   run nothing: print the table from earlier logs (repeat to pool several)
  --collectives     compare shmem reductions, broadcast, fcollect and alltoall instead (the
                    same C program built by both implementations' oshcc; --max-size caps its
                    sizes, default 256K)
USAGE
}

# ---- the table ---------------------------------------------------------------------------------
# Reads the RESULT lines of the given logs; several logs pool their launches.
print_table() {
  python3 - "$@" <<'PY'
import re, statistics, sys
from collections import defaultdict
def num(x):  # three significant digits, never an exponent (a loaded machine's 1986 µs stays 1986)
    return f"{x:.0f}" if abs(x) >= 1000 else f"{x:.3g}"

runs = defaultdict(list)          # (impl, case, variant, pes, size) -> per-run medians
ranges = defaultdict(list)        # same key -> (min, max) per run
vcsw = defaultdict(list)
ivcsw = defaultdict(list)
put_ratios = defaultdict(list)    # (impl, pes, size) -> put/memcpy of each launch
last_memcpy = {}
lines = (line for path in sys.argv[1:] for line in open(path))
for line in lines:
    if not line.startswith("RESULT "):
        continue
    fields = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
    unit = "gbps" if "median_gbps" in fields else "us"
    variant = fields.get("op", "")
    key = (fields["impl"], fields["case"], variant, int(fields["pes"]), int(fields["size"]))
    runs[key].append(float(fields["median_" + unit]))
    ranges[key].append((float(fields["min_" + unit]), float(fields["max_" + unit])))
    vcsw[key].append(float(fields.get("vcsw_per_iter", 0)))
    ivcsw[key].append(float(fields.get("ivcsw_per_iter", 0)))
    # A launch prints memcpy, then put, for each size: pair them to the launch's own ratio.
    impl, case, _, pes, size = key
    if case == "memcpy":
        last_memcpy[(impl, pes, size)] = runs[key][-1]
    elif case == "put" and (impl, pes, size) in last_memcpy:
        put_ratios[(impl, pes, size)].append(runs[key][-1] / last_memcpy.pop((impl, pes, size)))

def size_label(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"

def cell(key):
    if key not in runs:
        return "n/a", None
    values = runs[key]
    med = statistics.median(values)
    lo = min(r[0] for r in ranges[key]); hi = max(r[1] for r in ranges[key])
    return f"{num(med)} ({num(lo)}–{num(hi)})", med

rows = sorted({(c, v, p, s) for (_, c, v, p, s) in runs},
              key=lambda r: (r[2], {"pingpong": 0, "ring": 1, "barrier": 2, "put": 3, "memcpy": 4}.get(r[0], 9), r[1], r[3]))
def switches(key):
    if key not in vcsw:
        return "–"
    return f"{statistics.median(vcsw[key]):.2f}/{statistics.median(ivcsw[key]):.2f}"

print("\n| case | PEs | size | unit | tdist | OpenSHMEM | tdist/OpenSHMEM | better | switches/iter tdist · peer |")
print("|---|---|---|---|---|---|---|---|---|")
for case, variant, pes, size in rows:
    if case == "memcpy":
        continue
    latency = case != "put"
    unit = "µs" if latency else "GB/s"
    ours, ours_med = cell(("tdist", case, variant, pes, size))
    peer_key = ("openshmem", case, "p" if variant == "signal" else variant, pes, size)
    peer, peer_med = cell(peer_key)
    ratio = better = "–"
    if ours_med and peer_med:
        r = ours_med / peer_med
        ratio = f"{r:.2f}"
        wins_ours = r < 1 if latency else r > 1
        better = "≈ parity" if abs(r - 1) <= 0.05 else ("tdist" if wins_ours else "OpenSHMEM")
    name = case + (f" ({variant})" if variant else "")
    if variant == "signal":
        name += " vs peer's p"
    vtext = switches(("tdist", case, variant, pes, size)) + " · " + switches(peer_key)
    print(f"| {name} | {pes} | {size_label(size) if case == 'put' else '8 B' if case in ('pingpong', 'ring') else '–'} "
          f"| {unit} | {ours} | {peer} | {ratio} | {better} | {vtext} |")
print("\nLatency: lower is better, ratio < 1 favours tdist. Bandwidth: higher is better, ratio > 1 favours tdist.")
print("Cells: median over runs of each run's median (min–max over every repeat of every run).")
print("Switches: PE 0's voluntary/involuntary context switches per iteration (sleeps / yields and preemptions).")

put_rows = [(p, s) for (c, v, p, s) in rows if c == "put"]
if put_rows:
    print("\n| PEs | size | tdist put / memcpy | OpenSHMEM put / memcpy |")
    print("|---|---|---|---|")
    for pes, size in put_rows:
        texts = []
        for impl in ("tdist", "openshmem"):
            r = put_ratios.get((impl, pes, size))
            texts.append(f"{statistics.median(r):.2f} ({min(r):.2f}–{max(r):.2f})" if r else "n/a")
        print(f"| {pes} | {size_label(size)} | {texts[0]} | {texts[1]} |")
    print("\nmemcpy: PE 0's single-core memcpy of the same size between private buffers, its repeats")
print("alternating with the put's. Median (min–max) over launches of each launch's put/memcpy.")
PY
}

# The collectives' table: median over runs of each run's median, per implementation.
print_collectives_table() {
  python3 - "$@" <<'PY'
import re, statistics, sys
from collections import defaultdict
def num(x):  # three significant digits, never an exponent (a loaded machine's 1986 µs stays 1986)
    return f"{x:.0f}" if abs(x) >= 1000 else f"{x:.3g}"
runs = defaultdict(list)
for path in sys.argv[1:]:
    for line in open(path):
        if not line.startswith("RESULT ") or "case=" not in line:
            continue
        f = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
        if f["case"] not in ("reduce", "broadcast", "fcollect", "alltoall"):
            continue
        runs[(f["impl"], f["case"], int(f["pes"]), int(f["size"]))].append(float(f["median_us"]))
def label(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"
order = {"reduce": 0, "broadcast": 1, "fcollect": 2, "alltoall": 3}
rows = sorted({(c, p, s) for (_, c, p, s) in runs}, key=lambda r: (order[r[0]], r[1], r[2]))
print("\n| collective | PEs | bytes per PE | tdist (µs) | OpenSHMEM (µs) | tdist/OpenSHMEM | better | runs |")
print("|---|---|---|---|---|---|---|---|")
for case, pes, size in rows:
    cells, meds = [], []
    for impl in ("tdist", "openshmem"):
        v = runs.get((impl, case, pes, size))
        cells.append(f"{num(statistics.median(v))} ({num(min(v))}–{num(max(v))})" if v else "n/a")
        meds.append(statistics.median(v) if v else None)
    ratio = better = "–"
    if meds[0] and meds[1]:
        r = meds[0] / meds[1]
        ratio = f"{r:.2f}"
        better = "≈ parity" if abs(r - 1) <= 0.05 else ("tdist" if r < 1 else "OpenSHMEM")
    n = max(len(runs.get(("tdist", case, pes, size), [])), len(runs.get(("openshmem", case, pes, size), [])))
    name = {"reduce": "double sum_to_all"}.get(case, case + "64")
    print(f"| {name} | {pes} | {label(size)} | {cells[0]} | {cells[1]} | {ratio} | {better} | {n} |")
print("\nTime per call on PE 0, lower is better; ratio < 1 favours tdist. Cells: median over runs of each")
print("run's median (min–max of those run medians).")
PY
}

FROM_LOGS=()
COLLECTIVES=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) BUILD=$(realpath -m "$2"); shift 2 ;;
    --build) BUILD_OURS=1; shift ;;
    --pes) PES_LIST=$2; shift 2 ;;
    --cases) CASES=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --max-size) MAX_SIZE=$2; MAX_SIZE_SET=$2; shift 2 ;;
    --no-signal) SIGNAL=0; shift ;;
    --quiet-wait) QUIET_WAIT=$2; shift 2 ;;
    --from-log) FROM_LOGS+=("$2"); shift 2 ;;
    --collectives) COLLECTIVES=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

if [[ ${#FROM_LOGS[@]} -gt 0 ]]; then
  if [[ $COLLECTIVES == 1 ]]; then print_collectives_table "${FROM_LOGS[@]}"; else print_table "${FROM_LOGS[@]}"; fi
  exit 0
fi

mkdir -p "$BUILD/bench"
LOG=$BUILD/bench/compare-$(date +%Y%m%d-%H%M%S).log
: >"$LOG"
note() { echo "compare.sh: $*" >&2; }

# Open MPI flags: no memory patcher (its finalize crashes, docs/BENCHMARKS.md), more PEs than cores.
OSHRUN_FLAGS=(--mca memory ^patcher --oversubscribe ${OSHRUN_EXTRA:-})
[[ $(id -u) == 0 ]] && OSHRUN_FLAGS+=(--allow-run-as-root)

# Busy: more than 10% of the machine's CPU time went to something over the last second.
cpu_times() { awk '/^cpu / {print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6}' /proc/stat; }
machine_busy() {
  local total0 idle0 total1 idle1
  read -r total0 idle0 < <(cpu_times)
  sleep 1
  read -r total1 idle1 < <(cpu_times)
  (( (total1 - total0) - (idle1 - idle0) > (total1 - total0) / 10 ))
}

BUSY_LAUNCHES=0
TOTAL_LAUNCHES=0
wait_quiet() {
  (( QUIET_WAIT > 0 )) || return 0
  local deadline=$((SECONDS + QUIET_WAIT))
  while machine_busy; do
    if (( SECONDS >= deadline )); then
      BUSY_LAUNCHES=$((BUSY_LAUNCHES + 1))
      echo "## machine still busy after ${QUIET_WAIT}s; measuring anyway" >>"$LOG"
      return 0
    fi
    sleep 2
  done
}

run_logged() {  # label, command...
  local label=$1; shift
  wait_quiet
  TOTAL_LAUNCHES=$((TOTAL_LAUNCHES + 1))
  echo "## $label: $*" >>"$LOG"
  if ! timeout 900 "$@" >>"$LOG" 2>&1; then
    note "$label failed (status $?); see $LOG"
  fi
}


# ---- collectives: one program, two implementations ----------------------------------------------
run_collectives() {
  local source=$ROOT/bench/openshmem/shmem_collectives_bench.c
  local ours_bin=$BUILD/bench/shmem_collectives_tdist peer_bin=$BUILD/bench/shmem_collectives_peer
  local max_size=${MAX_SIZE_SET:-256K}
  local max_bytes
  max_bytes=$(numfmt --from=iec "${max_size%B}")
  if [[ ! -x $BUILD/bin/oshcc || ! -x $BUILD/bin/oshrun ]]; then
    note "no $BUILD/bin/oshcc or oshrun: build tdist first"; exit 1
  fi
  "$BUILD/bin/oshcc" -O2 -o "$ours_bin" "$source" >>"$LOG" 2>&1 || { note "tdist's oshcc failed (see $LOG)"; exit 1; }
  local peer=1 peer_oshcc
  peer_oshcc=$(command -v "$OSHCC" || true)
  if [[ -z $peer_oshcc ]] || ! command -v "$OSHRUN" >/dev/null; then
    note "$OSHCC/$OSHRUN not found (Debian: apt-get install -y openmpi-bin libopenmpi-dev) -- skipping OpenSHMEM"
    peer=0
  elif [[ $(readlink -f "$peer_oshcc") == $(readlink -f "$BUILD/bin/oshcc") ]]; then
    note "$OSHCC is tdist's own (PATH); set OSHCC and OSHRUN to the other implementation's -- skipping it"
    peer=0
  elif ! "$OSHCC" -O2 -o "$peer_bin" "$source" >>"$LOG" 2>&1; then
    note "$OSHCC failed to build the peer (see $LOG) -- skipping OpenSHMEM"
    peer=0
  fi
  local heap_mib=$(( 2 * max_bytes * 4 / 1048576 + 64 ))
  local args=(--repeats "$REPEATS" --max-size "$max_bytes")
  note "load before: $(cut -d' ' -f1-3 /proc/loadavg); log: $LOG"
  for pes in $PES_LIST; do
    for run in $(seq 1 "$RUNS"); do
      note "collectives pes=$pes run $run/$RUNS"
      run_logged "tdist pes=$pes run=$run" "$BUILD/bin/oshrun" -np "$pes" --heap "${heap_mib}M" "$ours_bin" "${args[@]}"
      if [[ $peer == 1 ]]; then
        run_logged "openshmem pes=$pes run=$run" env SHMEM_SYMMETRIC_SIZE=${heap_mib}M \
          "$OSHRUN" "${OSHRUN_FLAGS[@]}" -np "$pes" "$peer_bin" "${args[@]}"
      fi
    done
  done
  note "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  print_collectives_table "$LOG"
}
if [[ $COLLECTIVES == 1 ]]; then
  run_collectives
  exit 0
fi

# ---- ours ------------------------------------------------------------------------------------
if [[ $BUILD_OURS == 1 ]]; then
  ninja -C "$BUILD" tdist-bench tdist-run >&2
fi
OURS=1
if [[ ! -x $BUILD/bin/tdist-run || ! -x $BUILD/bin/tdist-bench ]]; then
  note "no $BUILD/bin/tdist-run or tdist-bench; build them (--build) -- skipping tdist"
  OURS=0
fi

# ---- the peer --------------------------------------------------------------------------------
PEER=1
PEER_BIN=$BUILD/bench/shmem_bench
if ! command -v "$OSHCC" >/dev/null || ! command -v "$OSHRUN" >/dev/null; then
  note "$OSHCC/$OSHRUN not found (Debian: apt-get install -y openmpi-bin libopenmpi-dev) -- skipping OpenSHMEM"
  PEER=0
elif ! "$OSHCC" -O2 -std=gnu11 -o "$PEER_BIN" "$ROOT/bench/openshmem/shmem_bench.c" >>"$LOG" 2>&1; then
  note "$OSHCC failed to build the peer (see $LOG) -- skipping OpenSHMEM"
  PEER=0
fi
if [[ $OURS == 0 && $PEER == 0 ]]; then
  note "nothing to run"
  exit 1
fi

# The peer's symmetric heap must hold the largest put buffer plus its own bookkeeping.
max_bytes=$(numfmt --from=iec "${MAX_SIZE%B}")
SYMMETRIC_MIB=$(( max_bytes / 1048576 + 64 ))

ARGS=($CASES --repeats "$REPEATS" --max-size "$MAX_SIZE" --no-table)
[[ -n $ITERS ]] && ARGS+=(--iters "$ITERS")

note "load before: $(cut -d' ' -f1-3 /proc/loadavg); log: $LOG"
SIGNAL_CASES=()
for c in pingpong ring; do
  if [[ " $CASES " == *" $c "* ]]; then SIGNAL_CASES+=("$c"); fi
done
[[ ${#SIGNAL_CASES[@]} -gt 0 ]] || SIGNAL=0

for pes in $PES_LIST; do
  for run in $(seq 1 "$RUNS"); do
    note "pes=$pes run $run/$RUNS"
    if [[ $OURS == 1 ]]; then
      run_logged "tdist pes=$pes run=$run" "$BUILD/bin/tdist-run" -n "$pes" -- \
        "$BUILD/bin/tdist-bench" "${ARGS[@]}"
    fi
    if [[ $PEER == 1 ]]; then
      run_logged "openshmem pes=$pes run=$run" env SHMEM_SYMMETRIC_SIZE=${SYMMETRIC_MIB}M \
        "$OSHRUN" "${OSHRUN_FLAGS[@]}" -np "$pes" "$PEER_BIN" "${ARGS[@]}"
    fi
    if [[ $OURS == 1 && $SIGNAL == 1 ]]; then
      run_logged "tdist-signal pes=$pes run=$run" "$BUILD/bin/tdist-run" -n "$pes" -- \
        "$BUILD/bin/tdist-bench" "${SIGNAL_CASES[@]}" --op signal --repeats "$REPEATS" --no-table \
        ${ITERS:+--iters "$ITERS"}
    fi
  done
done
note "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
if (( QUIET_WAIT > 0 )); then
  note "$BUSY_LAUNCHES of $TOTAL_LAUNCHES launches started on a busy machine"
fi

print_table "$LOG"
