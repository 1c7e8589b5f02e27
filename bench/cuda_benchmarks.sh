#!/usr/bin/env bash
# cuda_benchmarks.sh - the cuda backend's cases and their torch symmetric-memory peer, one GPU.
#
#   bench/cuda_benchmarks.sh BUILD_DIR [--out FILE] [--repeats R] [--max-size S] [--no-torch]
#                            [--cases "pingpong barrier put allreduce-graph"] [--pes "2 4"]
#
# On a machine with an NVIDIA GPU and a tree built with the cuda backend (BUILD_DIR/bin/tdist-run
# and tdist-bench): tdist-bench's cuda cases at 2 PEs (cuda-barrier also at 4), then
# bench/torch_symm_mem_peer.py with 2 processes, every table into one file (default
# BUILD_DIR/bench/cuda-<time>.txt), printed again at the end. --pes gives the PE counts of the
# all_reduce graph case, tdist's and torch's alike (2). tdist-run starts a private MPS
# daemon for a job whose PEs outnumber the GPUs; the torch run gets one of this script's own,
# unless an MPS daemon is already reachable (CUDA_MPS_PIPE_DIRECTORY or the default pipe).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=""
OUT=""
REPEATS=5
MAX_SIZE=1G
TORCH=1
CASES="pingpong barrier put allreduce-graph"
GRAPH_PES="2"
JOB_TIMEOUT=240   # seconds per launch: a hung wait ends that launch, not the whole comparison

usage() {
  cat <<USAGE
usage: bench/cuda_benchmarks.sh BUILD_DIR [flags]
  --out FILE       where the tables go (BUILD_DIR/bench/cuda-<time>.txt)
  --repeats R      timed repeats of every case ($REPEATS)
  --max-size S     largest cuda-put-bw size ($MAX_SIZE); sizes 4K x 4^k up to it
  --no-torch       tdist's cases only
  --cases "LIST"   of pingpong barrier put allreduce-graph ($CASES)
  --pes "LIST"     PE counts of the allreduce-graph case, tdist's and torch's ($GRAPH_PES)
  --timeout S      per-launch limit in seconds ($JOB_TIMEOUT)
USAGE
}

while (($#)); do
  case $1 in
    --out) OUT=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --max-size) MAX_SIZE=$2; shift 2 ;;
    --no-torch) TORCH=0; shift ;;
    --cases) CASES=$2; shift 2 ;;
    --pes) GRAPH_PES=$2; shift 2 ;;
    --timeout) JOB_TIMEOUT=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "cuda_benchmarks.sh: unknown flag $1" >&2; usage >&2; exit 2 ;;
    *) if [[ -n $BUILD ]]; then echo "cuda_benchmarks.sh: one build directory only" >&2; exit 2; fi
       BUILD=$1; shift ;;
  esac
done
[[ -n $BUILD ]] || { usage >&2; exit 2; }
for c in $CASES; do
  case $c in pingpong|barrier|put|allreduce-graph) ;; *) echo "cuda_benchmarks.sh: unknown case $c" >&2; exit 2 ;; esac
done
wants() { [[ " $CASES " == *" $1 "* ]]; }
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || { echo "cuda_benchmarks.sh: --repeats must be a positive integer" >&2; exit 2; }
for p in $GRAPH_PES; do
  [[ $p =~ ^[1-9][0-9]?$ ]] || { echo "cuda_benchmarks.sh: --pes takes PE counts (1-99), not '$p'" >&2; exit 2; }
done
[[ -n ${GRAPH_PES// /} ]] || { echo "cuda_benchmarks.sh: --pes needs at least one PE count" >&2; exit 2; }
[[ $JOB_TIMEOUT =~ ^[1-9][0-9]*$ ]] || { echo "cuda_benchmarks.sh: --timeout must be a positive integer" >&2; exit 2; }
BUILD=$(cd "$BUILD" && pwd)
RUN=$BUILD/bin/tdist-run
BENCH=$BUILD/bin/tdist-bench
for tool in "$RUN" "$BENCH"; do
  [[ -x $tool ]] || { echo "cuda_benchmarks.sh: $tool is missing (ninja -C BUILD_DIR tdist-run tdist-bench)" >&2; exit 2; }
done
if [[ -z $OUT ]]; then
  mkdir -p "$BUILD/bench"
  OUT=$BUILD/bench/cuda-$(date +%Y%m%d-%H%M%S).txt
fi
: >"$OUT"

# NVLink multicast stays off for everything this starts.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export TDIST_BACKEND=cuda

note() { echo "$*" | tee -a "$OUT"; }

# One launch: its command line, then its output, into the file and onto the terminal. A failed
# launch is recorded and the next one runs.
launch() {
  note ""
  note "\$ $*"
  local rc=0
  timeout --kill-after=10 "$JOB_TIMEOUT" "$@" 2>&1 | tee -a "$OUT" || rc=${PIPESTATUS[0]}
  ((rc == 0)) || note "# exit status $rc"
}

note "# cuda_benchmarks $(date -u +%Y-%m-%dT%H:%M:%SZ) commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
note "# $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1 || echo 'nvidia-smi: not available')"

COMMON=(--repeats "$REPEATS")
TDIST_CASES=() TORCH_CASES=()
wants pingpong && TDIST_CASES+=(cuda-pingpong) TORCH_CASES+=(cuda-pingpong)
wants barrier && TDIST_CASES+=(cuda-barrier) TORCH_CASES+=(cuda-barrier)
((${#TDIST_CASES[@]})) && launch "$RUN" -n 2 -- "$BENCH" "${TDIST_CASES[@]}" "${COMMON[@]}"
wants barrier && launch "$RUN" -n 4 -- "$BENCH" cuda-barrier "${COMMON[@]}"
if wants put; then
  launch "$RUN" -n 2 -- "$BENCH" cuda-put-bw --min-size 4K --max-size "$MAX_SIZE" --size-factor 4 "${COMMON[@]}"
  TORCH_CASES+=(cuda-put-bw)
fi
# bf16, 8K .. 2M, 20 calls a graph: the setup of research/gpu_probe_2026-12-01.md's torch figures.
if wants allreduce-graph; then
  for p in $GRAPH_PES; do
    launch "$RUN" -n "$p" -- "$BENCH" cuda-allreduce-graph --size-factor 4 "${COMMON[@]}"
  done
fi

if ((TORCH)); then
  # An MPS daemon of this script's own for the torch run, unless one is reachable already.
  MPS_DIR=""
  default_pipe=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}
  if [[ -p $default_pipe/control ]]; then
    note "# MPS: using the daemon at $default_pipe"
  elif command -v nvidia-cuda-mps-control >/dev/null; then
    MPS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tdist-bench-mps.XXXXXX")
    export CUDA_MPS_PIPE_DIRECTORY=$MPS_DIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPS_DIR/log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    nvidia-cuda-mps-control -d
    stop_mps() {
      echo quit | nvidia-cuda-mps-control || true
      rm -rf "$MPS_DIR"
    }
    trap stop_mps EXIT
    note "# MPS: a private daemon for the torch run"
  else
    note "# MPS: nvidia-cuda-mps-control not found; the torch rows time-slice (~ms each)"
  fi
  if ((${#TORCH_CASES[@]})); then
    launch python3 "$ROOT/bench/torch_symm_mem_peer.py" --pes 2 --case "${TORCH_CASES[@]}" \
      --min-size 4K --max-size "$MAX_SIZE" --size-factor 4 "${COMMON[@]}"
  fi
  if wants allreduce-graph; then
    for p in $GRAPH_PES; do
      launch python3 "$ROOT/bench/torch_symm_mem_peer.py" --pes "$p" --case cuda-allreduce-graph \
        --size-factor 4 "${COMMON[@]}"
    done
  fi
fi

# The tables again, alone, for the reader of the end of the output.
echo
echo "==== tables ($OUT) ===="
awk '/^\$ /{print; next} /^(impl |tdist |torch |# )/' "$OUT"
