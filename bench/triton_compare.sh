#!/usr/bin/env bash
# triton_compare.sh - Triton kernels with tdist.language against the same in CUDA C++ with the
# device library, on one GPU, alternating round by round:
#
#   bench/triton_compare.sh [BUILD] [ROUNDS]
#
# pingpong: tdist-bench cuda-pingpong (path=kernel, CUDA C++) and bench/triton_kernels.py --case
# pingpong (one Triton program), 2 PEs, the same exchanges timed by the GPU's global timer; per
# round both medians and triton / C++. Then one run of triton_kernels.py's ag-gemm and allreduce.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
rounds=${2:-3}
export PYTHONPATH="$build/python:$root/.deps/python${PYTHONPATH:+:$PYTHONPATH}"
run=("$build/bin/tdist-run" --backend cuda -n 2 --)
median() { sed -n 's/^RESULT .*variant=path=kernel .*median_us=\([0-9.]*\).*/\1/p' | head -1; }
printf '%-6s %10s %10s %8s\n' round cxx_us triton_us ratio
for round in $(seq "$rounds"); do
  cxx=$("${run[@]}" "$build/bin/tdist-bench" cuda-pingpong --iters 1000 --repeats 5 --no-table | median)
  tri=$("${run[@]}" python3 "$root/bench/triton_kernels.py" --case pingpong --iters 1000 --repeats 5 | median)
  awk -v r="$round" -v c="$cxx" -v t="$tri" 'BEGIN { printf "%-6s %10.4f %10.4f %8.3f\n", r, c, t, t / c }'
done
"${run[@]}" python3 "$root/bench/triton_kernels.py" --case ag-gemm allreduce
