#!/usr/bin/env bash
# ir_kernels.sh - the IR example kernels on CPU PEs, variants side by side.
#
#   bench/ir_kernels.sh                   # 4 PEs, 5 runs of 10 repeats per variant
#   bench/ir_kernels.sh --pes 2 --runs 7
#
# Each variant is a tdist-run of an examples/ir kernel with --repeat R, which reports the median
# time of its R runs (barrier to barrier, on PE 0, every run from the initial values, the check
# passing). The variants of a kernel are launched one after the other within each round, so that
# they see the same machine load; the table gives the median over the rounds and the ratio to
# the kernel's first variant. Raw output goes to BUILD/bench/ir-kernels-<time>.log.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
PES=4
RUNS=5
REPEATS=10

usage() {
  cat <<USAGE
usage: bench/ir_kernels.sh [--build-dir DIR] [--pes N] [--runs K] [--repeats R]
  --build-dir DIR   tdist build directory ($BUILD)
  --pes N           PEs ($PES)
  --runs K          rounds; every variant is launched once per round ($RUNS)
  --repeats R       timed runs inside each launch ($REPEATS)
USAGE
}

while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) BUILD=$2; shift 2 ;;
    --pes) PES=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "ir_kernels.sh: unknown flag '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
RUN=$BUILD/bin/tdist-run
[ -x "$RUN" ] && [ -x "$BUILD/bin/tdist-jit" ] || {
  echo "ir_kernels.sh: build tdist-run and tdist-jit first (scripts/build.sh)" >&2; exit 2; }
mkdir -p "$BUILD/bench"
LOG=$BUILD/bench/ir-kernels-$(date +%Y%m%d-%H%M%S).log
EX=$ROOT/examples/ir

# AllGather + GEMM: 128 rows of A per PE in 8 tiles, K = N = 256.
AG_GEMM=(--entry ag_gemm --grid 2 "$EX/ag_gemm.mlir" --
         'f32[128,256]=random:1' 'f32[256,256]=random:2' 'f32[npes*128,256]' 'i32[npes*8*16]'
         'f32[npes*128,256]' index=16 i32=1 --check '4=matmul(gather(arg(0)),arg(1))')
# GEMM + ReduceScatter: the same shapes, K split across the PEs.
GEMM_RS=(--entry gemm_reduce_scatter --grid 2 "$EX/gemm_reduce_scatter.mlir" --
         'f32[npes*128,256]=random:1' 'f32[256,256]=random:2' 'f32[npes*128,256]' 'i32[8*npes*16]'
         'f32[128,256]' index=16 i32=1 --check '4=shard(sum(matmul(arg(0),arg(1))))')
# Ring AllReduce of 256 Ki floats per PE.
ring() {  # $1: programs per PE
  echo --entry ring_allreduce --grid "$1" "$EX/ring_allreduce.mlir" -- "f32[npes*65536]=random:1" \
       "f32[2*npes*65536]" "i32[2*npes*$1*16]" index=65536 i32=1 "--check" "0=sum(arg(0))"
}

# name | tdist-run flags and arguments, split at spaces (no spaces inside an argument); the first
# variant of a kernel is its base.
VARIANTS=(
  "ag_gemm: per-tile signals|${AG_GEMM[*]}"
  "ag_gemm: barrier around every communication (--inject-barrier-all)|${AG_GEMM[*]} --inject-barrier-all"
  "ag_gemm: puts on the copy engine (--engines mte,sdma)|--engines mte,sdma ${AG_GEMM[*]}"
  "ag_gemm: -O0|${AG_GEMM[*]} -O0"
  "gemm_reduce_scatter: per-tile signals|${GEMM_RS[*]}"
  "gemm_reduce_scatter: barrier around every communication (--inject-barrier-all)|${GEMM_RS[*]} --inject-barrier-all"
  "ring_allreduce: 1 program per PE|$(ring 1)"
  "ring_allreduce: 2 programs per PE|$(ring 2)"
  "ring_allreduce: 4 programs per PE|$(ring 4)"
)

declare -A samples
for round in $(seq "$RUNS"); do
  for variant in "${VARIANTS[@]}"; do
    name=${variant%%|*}
    read -r -a args <<< "${variant#*|}"
    output=$("$RUN" -n "$PES" --timeout 600 "${args[@]}" --repeat "$REPEATS" 2>&1) || {
      printf '%s\n' "$output" >&2; echo "ir_kernels.sh: '$name' failed" >&2; exit 1; }
    printf '# round %s: %s\n%s\n' "$round" "$name" "$output" >> "$LOG"
    median=$(printf '%s\n' "$output" | sed -n 's/.*: median \([0-9.]*\) ms.*/\1/p')
    samples[$name]+="$median "
  done
  echo "round $round of $RUNS done" >&2
done

median_of() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
echo "$PES PEs on $(nproc) cores; median over $RUNS rounds of the median of $REPEATS runs; log: $LOG"
echo
echo "| variant | ms | ratio to the kernel's first row |"
echo "|---|---|---|"
base=""
for variant in "${VARIANTS[@]}"; do
  name=${variant%%|*}
  kernel=${name%%:*}
  value=$(printf '%s' "${samples[$name]}" | median_of)
  if [ "$kernel" != "${base_kernel:-}" ]; then base=$value; base_kernel=$kernel; fi
  printf '| %s | %.3f | %.2f |\n' "$name" "$value" "$(awk -v a="$value" -v b="$base" 'BEGIN {print a / b}')"
done
