#!/usr/bin/env bash
# multi_gpu.sh - tdist's overlap GEMMs, all-reduce and transfers beside PyTorch's, one PE per GPU.
#
#   bench/multi_gpu.sh BUILD_DIR [--pes "2 4 8"] [--repeats R] [--iters I] [--out FILE] [--no-torch]
#                      [--cases "ag-gemm gemm-rs allreduce put-bw pingpong"] [--timeout S] [--tests]
#
# On a host with G GPUs and a tree built with the cuda backend, for each P of --pes up to G:
# tdist-bench with one PE per GPU (ag-gemm, gemm-rs bf16 per shape below; cuda-allreduce-graph
# 8K..2M; allreduce bf16 32M..256M; cuda-put-bw; cuda-pingpong), then the PyTorch peers with P ranks
# (torch_gemm_peers.py: the same shapes and sizes; torch_symm_mem_peer.py: put-bw, pingpong). All
# into one file (BUILD_DIR/bench/multi-gpu-<time>.txt) after nvidia-smi -L and topo -m, then a
# summary per case, shape and P. On one GPU P = 2 still runs, the PEs sharing it under MPS
# (tdist-run starts its own daemon, torch gets this script's): a check, not a multi-GPU figure.
# --tests first runs the cuda test suites (ctest -L cuda) at each P, one PE per GPU, into the file.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD="" OUT="" PES="2 4 8" REPEATS=5 ITERS=5 BLAS_THREADS=8 TORCH=1 TESTS=0 FAILED_LAUNCHES=0
CASES="ag-gemm gemm-rs allreduce put-bw pingpong"
JOB_TIMEOUT=600   # seconds per launch: a hung launch ends that launch, not the whole run
# The shapes of the comparison (M rows in total, N, K in total), every combination of the lists.
AG_M=(4096 8192) AG_N=(8192 14336) AG_K=(8192)
RS_M=(4096 8192) RS_N=(8192) RS_K=(8192 14336)

usage() {
  cat <<USAGE
usage: bench/multi_gpu.sh BUILD_DIR [flags]
  --pes "LIST"     PE counts, those up to the GPUs ("$PES"; on one GPU: 2, sharing it)
  --repeats R      timed repeats of every case ($REPEATS)
  --iters I        calls per repeat of the GEMM cases ($ITERS)
  --blas-threads T OpenBLAS threads per PE for tdist's host references ($BLAS_THREADS)
  --cases "LIST"   of ag-gemm gemm-rs allreduce put-bw pingpong (all)
  --no-torch       tdist's cases only
  --tests          first the cuda test suites at each P, one PE per GPU (at the counts of the
                   build's TDIST_TEST_PES: 1 2 3 4 8 unless configured otherwise)
  --out FILE       where everything goes (BUILD_DIR/bench/multi-gpu-<time>.txt)
  --timeout S      per-launch limit in seconds ($JOB_TIMEOUT)
Exit status 1 when a launch failed or timed out (the others still ran), 2 for usage errors.
USAGE
}
die() { echo "multi_gpu.sh: $*" >&2; exit 2; }

while (($#)); do
  case $1 in
    --pes|--repeats|--iters|--blas-threads|--cases|--out|--timeout)
      (($# >= 2)) || die "$1 needs a value"
      case $1 in
        --pes) PES=$2 ;; --repeats) REPEATS=$2 ;; --iters) ITERS=$2 ;; --blas-threads) BLAS_THREADS=$2 ;;
        --cases) CASES=$2 ;; --out) OUT=$2 ;; --timeout) JOB_TIMEOUT=$2 ;;
      esac
      shift 2 ;;
    --no-torch) TORCH=0; shift ;;
    --tests) TESTS=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "multi_gpu.sh: unknown flag $1" >&2; usage >&2; exit 2 ;;
    *) [[ -z $BUILD ]] || die "one build directory only"; BUILD=$1; shift ;;
  esac
done
[[ -n $BUILD ]] || { usage >&2; exit 2; }
positive() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive integer, got '$2'"; }
positive --repeats "$REPEATS"; positive --iters "$ITERS"; positive --blas-threads "$BLAS_THREADS"
positive --timeout "$JOB_TIMEOUT"; ((JOB_TIMEOUT >= 60)) || die "--timeout must be at least 60 s"
for c in $CASES; do [[ $c =~ ^(ag-gemm|gemm-rs|allreduce|put-bw|pingpong)$ ]] || die "unknown case $c"; done
[[ -n ${PES// /} ]] || die "--pes is empty"
for p in $PES; do
  if ! [[ $p =~ ^[0-9]+$ ]] || ((p < 2 || p > 64)); then die "--pes: expected counts in 2..64, got '$p'"; fi
  for d in "${AG_M[@]}" "${RS_M[@]}" "${RS_K[@]}"; do
    ((d % p == 0)) || die "--pes: $p does not divide the shapes' M or K ($d)"
  done
done
wants() { [[ " $CASES " == *" $1 "* ]]; }

[[ -d $BUILD ]] || die "no build directory '$BUILD' (configure and build the cuda backend first)"
BUILD=$(cd "$BUILD" && pwd)
RUN=$BUILD/bin/tdist-run BENCH=$BUILD/bin/tdist-bench
for tool in "$RUN" "$BENCH"; do
  [[ -x $tool ]] || die "$tool is missing (ninja -C BUILD_DIR tdist-run tdist-bench)"
done
"$BENCH" cuda-pingpong --help >/dev/null 2>&1 ||
  die "$BENCH has no cuda cases: build it with the cuda backend"
command -v nvidia-smi >/dev/null || die "no GPU: nvidia-smi is not installed"
GPU_LIST=$(nvidia-smi -L 2>&1) || die "no GPU: nvidia-smi -L failed: $GPU_LIST"
GPUS=$(grep -c '^GPU ' <<<"$GPU_LIST" || true)
((GPUS > 0)) || die "no GPU: nvidia-smi -L lists none"
if [[ -n ${CUDA_VISIBLE_DEVICES:-} ]]; then
  visible=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c . || true)
  ((visible < GPUS)) && GPUS=$visible
fi
((GPUS > 0)) || die "no GPU: CUDA_VISIBLE_DEVICES hides them all"
if ((TORCH)) && ! python3 -c 'import torch' 2>/dev/null; then
  echo "multi_gpu.sh: python3 cannot import torch: tdist's cases only" >&2
  TORCH=0
fi
if [[ -z $OUT ]]; then
  mkdir -p "$BUILD/bench"
  OUT=$BUILD/bench/multi-gpu-$(date +%Y%m%d-%H%M%S).txt
fi
: >"$OUT"

# NVLink multicast stays off for everything this starts.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 TDIST_BACKEND=cuda

note() { echo "$*" | tee -a "$OUT"; }
# One launch: its command line, then its output, into the file and onto the terminal. A failed or
# hung launch is recorded and the next one runs (timeout signals the launch's whole process group).
launch() {
  note ""
  note "\$ $*"
  local rc=0
  timeout --kill-after=15 "$JOB_TIMEOUT" "$@" 2>&1 | tee -a "$OUT" || rc=${PIPESTATUS[0]}
  ((rc == 0)) && return
  FAILED_LAUNCHES=$((FAILED_LAUNCHES + 1))
  note "# exit status $rc$( ((rc == 124)) && echo " (timed out after $JOB_TIMEOUT s)")"
}

commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')
note "# multi_gpu $(date -u +%Y-%m-%dT%H:%M:%SZ) commit $commit"
note "# pes=\"$PES\" repeats=$REPEATS iters=$ITERS cases=\"$CASES\" gpus=$GPUS torch=$TORCH"
note "# NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1"
note "# \$ nvidia-smi -L"$'\n'"# ${GPU_LIST//$'\n'/$'\n'# }"
note "# \$ nvidia-smi topo -m"
{ nvidia-smi topo -m 2>&1 || true; } | sed 's/^/# /' | tee -a "$OUT"

# A private MPS daemon for the torch ranks that share a GPU, unless one is reachable already.
MPS_DIR=""
stop_mps() {
  TORCH_ENV=(env)
  [[ -n $MPS_DIR ]] || return 0
  echo quit | CUDA_MPS_PIPE_DIRECTORY=$MPS_DIR/pipe nvidia-cuda-mps-control >/dev/null 2>&1 || true
  rm -rf "$MPS_DIR"
  MPS_DIR=""
}
trap stop_mps EXIT
TORCH_ENV=(env)   # the torch launches' environment: MPS variables when ranks share a GPU
start_mps() {
  local pipe=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}
  if [[ -p $pipe/control ]]; then note "# MPS: using the daemon at $pipe"; return; fi
  if ! command -v nvidia-cuda-mps-control >/dev/null; then
    note "# MPS: nvidia-cuda-mps-control not found; the shared-GPU torch rows time-slice"
    return
  fi
  MPS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tdist-multi-gpu-mps.XXXXXX")
  mkdir -p "$MPS_DIR/pipe" "$MPS_DIR/log"
  TORCH_ENV=(env "CUDA_MPS_PIPE_DIRECTORY=$MPS_DIR/pipe" "CUDA_MPS_LOG_DIRECTORY=$MPS_DIR/log")
  if "${TORCH_ENV[@]}" nvidia-cuda-mps-control -d; then note "# MPS: a private daemon for the torch ranks"
  else note "# MPS: the daemon did not start; the shared-GPU torch rows time-slice"; stop_mps; fi
}

tdist() { launch "$RUN" --backend cuda -n "$P" -- "$BENCH" "$@" --repeats "$REPEATS"; }
torch_peer() { launch "${TORCH_ENV[@]}" python3 "$ROOT/bench/$1" --pes "$P" --repeats "$REPEATS" "${@:2}"; }
GEMM_FLAGS=(--dtype bf16 --iters "$ITERS" --blas-threads "$BLAS_THREADS")

# The cuda suites at each P (their NAME_cuda_<P>pes tests), then the cuda tests of no PE count
# (scenarios, the device trace, the system-scope run) once. A suite's tests are ctest's: the
# counts come from the build's TDIST_TEST_PES.
TEST_LINES=()
# ctest's verdict on the last launch in the file, with how many of its tests were skipped.
ctest_verdict() {
  awk '/^\$ ctest /{verdict = ""; skipped = 0} /tests passed|tests failed/{verdict = $0}
       /\*\*\*Skipped/{skipped++} END{print verdict (skipped ? ", " skipped " skipped (no GPU for them)" : "")}' "$OUT"
}
if ((TESTS)); then
  command -v ctest >/dev/null || die "--tests needs ctest (CMake)"
  note ""
  note "# ==== the cuda test suites"
  for P in $PES; do
    if ((P > GPUS)) && ! ((GPUS == 1 && P == 2)); then note "# tests at $P PEs: skipped, $GPUS GPU(s)"; continue; fi
    listed=$(ctest --test-dir "$BUILD" -N -L cuda -R "_cuda_${P}pes\$" 2>/dev/null || true)
    if ! grep -q "Total Tests: [1-9]" <<<"$listed"; then
      note "# tests at $P PEs: none in $BUILD (cmake -DTDIST_TEST_PES=\"1;2;4;8\" $BUILD, then build)"
      FAILED_LAUNCHES=$((FAILED_LAUNCHES + 1))
      continue
    fi
    launch ctest --test-dir "$BUILD" -L cuda -R "_cuda_${P}pes\$" --output-on-failure
    TEST_LINES+=("$P PEs: $(ctest_verdict)")
  done
  launch ctest --test-dir "$BUILD" -L cuda -E "_cuda_[0-9]+pes\$" --output-on-failure
  TEST_LINES+=("the rest: $(ctest_verdict)")
fi

for P in $PES; do
  note ""
  if ((P > GPUS)) && ! ((GPUS == 1 && P == 2)); then note "# ==== $P PEs: skipped, $GPUS GPU(s)"; continue; fi
  if ((P > GPUS)); then note "# ==== $P PEs sharing $GPUS GPU (MPS): a check, not a multi-GPU figure"
  else note "# ==== $P PEs, one per GPU"; fi
  if wants ag-gemm; then
    for m in "${AG_M[@]}"; do for n in "${AG_N[@]}"; do for k in "${AG_K[@]}"; do
      tdist ag-gemm --m "$m" --n "$n" --k "$k" "${GEMM_FLAGS[@]}"
    done; done; done
  fi
  if wants gemm-rs; then
    for m in "${RS_M[@]}"; do for n in "${RS_N[@]}"; do for k in "${RS_K[@]}"; do
      tdist gemm-rs --m "$m" --n "$n" --k "$k" "${GEMM_FLAGS[@]}"
    done; done; done
  fi
  if wants allreduce; then
    tdist cuda-allreduce-graph --size-factor 4
    tdist allreduce --dtype bf16 --min-size 32M --max-size 256M --size-factor 2
  fi
  wants put-bw && tdist cuda-put-bw --min-size 4K --max-size 1G --size-factor 4
  wants pingpong && tdist cuda-pingpong
  ((TORCH)) || continue
  ((P > GPUS)) && start_mps
  PEER=(torch_gemm_peers.py --timeout $((JOB_TIMEOUT - 20)))
  wants ag-gemm && torch_peer "${PEER[@]}" --case ag-gemm --m "${AG_M[@]}" --n "${AG_N[@]}" \
    --k "${AG_K[@]}" --iters "$ITERS"
  wants gemm-rs && torch_peer "${PEER[@]}" --case gemm-rs --m "${RS_M[@]}" --n "${RS_N[@]}" \
    --k "${RS_K[@]}" --iters "$ITERS"
  wants allreduce && torch_peer "${PEER[@]}" --case allreduce
  SYMM=()
  wants pingpong && SYMM+=(cuda-pingpong)
  wants put-bw && SYMM+=(cuda-put-bw)
  ((${#SYMM[@]})) &&
    torch_peer torch_symm_mem_peer.py --case "${SYMM[@]}" --min-size 4K --max-size 1G --size-factor 4
  stop_mps
done

# The summary, from the RESULT lines (medians). ideal = max(best GEMM alone, best comm alone) over
# both implementations' rows of that shape and P; (x) = the column over that ideal.
summary() {
  python3 - "$OUT" <<'PY'
import collections, sys
rows = collections.defaultdict(dict)
for line in open(sys.argv[1], errors="replace"):
    if not line.startswith("RESULT "):
        continue
    tokens = line.split()
    kv = dict(token.partition("=")[::2] for token in reversed(tokens[1:]))
    median = next((float(v) for k, v in kv.items() if k.startswith("median_")), None)
    name = tokens[3].removeprefix("variant=")  # variant=fused, path=sm, ratio=fused/ideal
    case = kv.get("case", "")
    where = tuple(int(kv[d]) for d in "mnk") if case in ("ag-gemm", "gemm-rs") else int(kv.get("size", 0))
    rows[(case, where, int(kv.get("pes", 0)))][(kv.get("impl"), name)] = median

def us(v): return "-" if v is None else f"{v:,.1f}" if v >= 100 else f"{v:.2f}"
def best(*values):
    values = [v for v in values if v is not None]
    return min(values) if values else None
def size(n): return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"

gemm_cols = (("tdist decomposed", "tdist", "fused"), ("tdist fused-tile", "tdist", "fused-tile"),
             ("torch fused", "torch", "torch-fused"), ("nccl sequence", "torch", "nccl-sequence"))
print(f"{'case':<8} {'M x N x K':<17} {'P':>2} " + "".join(f"{c[0]:>24}" for c in gemm_cols)
      + f"{'ideal':>12}")
for (case, shape, pes), r in sorted((k, v) for k, v in rows.items() if k[0] in ("ag-gemm", "gemm-rs")):
    g = best(r.get(("tdist", "gemm")), r.get(("torch", "gemm")))
    c = best(r.get(("tdist", "comm")), r.get(("torch", "comm")))
    ideal = max(g, c) if g is not None and c is not None else None
    cells = ""
    for _, impl, name in gemm_cols:
        v = r.get((impl, name))
        ratio = f" ({v / ideal:.2f}x)" if v is not None and ideal else ""
        cells += f"{us(v) + ratio:>24}"
    print(f"{case:<8} {'x'.join(map(str, shape)):<17} {pes:>2} {cells}{us(ideal):>12}")

ar_cols = (("tdist 1-shot", "tdist", "one-shot"), ("tdist 2-shot", "tdist", "two-shot"),
           ("tdist auto", "tdist", "auto"), ("tdist ring", "tdist", "ring"),
           ("torch 1-shot", "torch", "torch-one-shot"), ("torch 2-shot", "torch", "torch-two-shot"),
           ("nccl", "torch", "nccl"))
print(f"\n{'all-reduce bf16 (us)':<21} {'size':>5} {'P':>2}" + "".join(f"{c[0]:>13}" for c in ar_cols)
      + f"{'tdist/peers':>13}")
ar_cases = ("cuda-allreduce-graph", "allreduce")
for (case, n, pes), r in sorted((k, v) for k, v in rows.items() if k[0] in ar_cases):
    values = [r.get((impl, name)) for _, impl, name in ar_cols]
    mine, peers = best(*values[:4]), best(*values[4:])
    ratio = f"{mine / peers:.2f}" if mine and peers else "-"
    label = "graphed" if case == "cuda-allreduce-graph" else "eager"
    print(f"{label:<21} {size(n):>5} {pes:>2}" + "".join(f"{us(v):>13}" for v in values) + f"{ratio:>13}")

print(f"\n{'transfers (largest size)':<32} {'P':>2} {'tdist':>10} {'torch':>10}")
for (case, n, pes), r in sorted((k, v) for k, v in rows.items() if k[0] in ("cuda-pingpong", "cuda-put-bw")):
    for path in (p for p in ("path=kernel", "path=stream", "path=memcpy", "path=sm", "path=ce") if ("tdist", p) in r):
        if n == max(k[1] for k in rows if k[0] == case):
            print(f"{case + ' ' + path + (' us' if n < 1024 else f' GB/s {size(n)}'):<32} {pes:>2} "
                  f"{us(r.get(('tdist', path))):>10} {us(r.get(('torch', path))):>10}")
PY
}
{
  echo
  if ((${#TEST_LINES[@]})); then
    echo "==== the cuda test suites"
    printf '  %s\n' "${TEST_LINES[@]}"
    echo
  fi
  echo "==== summary ($OUT): medians in us (put-bw GB/s); (x) = over the ideal"
  summary || echo "# the summary failed (python3?)"
} 2>&1 | tee -a "$OUT"
((FAILED_LAUNCHES == 0)) || { echo "multi_gpu.sh: $FAILED_LAUNCHES launches failed (see $OUT)" >&2; exit 1; }
