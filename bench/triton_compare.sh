#!/usr/bin/env bash
# triton_compare.sh - Triton kernels with tdist.language against the same kernels in CUDA C++ with
# the device library, on one GPU, 2 PEs, alternating round by round:
#
#   bench/triton_compare.sh [BUILD] [ROUNDS]
#
# pingpong: tdist-bench cuda-pingpong (path=kernel) and bench/triton_kernels.py --case pingpong,
#   the same exchanges in one thread / one program, timed by the GPU's global timer.
# ring: tdist-bench cuda-ring-allreduce and triton_kernels.py --case allreduce, the same ring, GPU
#   time per call between CUDA events after a barrier and a 100 us GPU lead-in (the launch's host
#   cost left out: a Triton launch from Python costs tens of µs of host time).
# Per round, the medians (µs) and triton / C++; then one run of triton_kernels.py's ag-gemm.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
rounds=${2:-3}
export PYTHONPATH="$build/python:$root/.deps/python${PYTHONPATH:+:$PYTHONPATH}"
run=("$build/bin/tdist-run" --backend cuda -n 2 --)
bench=("$build/bin/tdist-bench" --repeats 5 --no-table)
triton=(python3 "$root/bench/triton_kernels.py" --repeats 5)
# "<kernel> <median>" per RESULT line: the ping-pong's kernel path, the ring at each size.
pick() { sed -n -e 's/^RESULT .*case=cuda-pingpong path=kernel .*median_us=\([0-9.]*\).*/pingpong \1/p' \
                -e 's/^RESULT .*case=cuda-ring-allreduce .*size=\([0-9]*\) .*median_us=\([0-9.]*\).*/ring-\1 \2/p' \
                -e 's/^RESULT impl=triton-ring .*size=\([0-9]*\) .*median_us=\([0-9.]*\).*/ring-\1 \2/p' | sort -u -k1,1; }
printf '%-6s %-14s %10s %10s %8s\n' round kernel cxx_us triton_us ratio
for round in $(seq "$rounds"); do
  cxx=$( { "${run[@]}" "${bench[@]}" cuda-pingpong --iters 1000; "${run[@]}" "${bench[@]}" cuda-ring-allreduce; } | pick)
  tri=$( { "${run[@]}" "${triton[@]}" --case pingpong --iters 1000; "${run[@]}" "${triton[@]}" --case allreduce; } | pick)
  join <(echo "$cxx") <(echo "$tri") |
    awk -v r="$round" '{ printf "%-6s %-14s %10.4f %10.4f %8.3f\n", r, $1, $2, $3, $3 / $2 }'
done
"$build/bin/tdist-run" --backend cuda -n 2 --heap 2G -- "${triton[@]}" --case ag-gemm
