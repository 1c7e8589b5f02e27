#!/usr/bin/env bash
# python_overhead.sh - the cost of calling the kernel library from Python: tdist-bench's allreduce
# (the C++ call, the auto algorithm) and bench/python_allreduce.py (tdist.kernels.all_reduce, the
# same sizes, iterations and repeats), alternating, ROUNDS rounds, on PES PEs of the build's
# backend. Prints both medians and their difference per round.
#
#   bench/python_overhead.sh [BUILD] [PES] [ROUNDS] [--torch [--side-stream]|--views]
#
# Defaults: build 2 3, tdist.Tensor arguments; TDIST_BACKEND picks the backend. --torch passes torch
# views (the torch ops, torch's current stream: its default stream unless --side-stream, which
# makes a stream of its own current), --views numpy views (cpu).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
pes=${2:-2}
rounds=${3:-3}
views="${*:4}"
case $views in ""|--torch|--views|"--torch --side-stream") ;;
  *) echo "python_overhead.sh: after ROUNDS come --torch, --torch --side-stream or --views, not '$views'" >&2; exit 2 ;;
esac
export PYTHONPATH="$build/python:$root/.deps/python${PYTHONPATH:+:$PYTHONPATH}"
printf '%-6s %-8s %12s %12s %12s\n' round bytes cxx_us python_us extra_us
for round in $(seq "$rounds"); do
  cxx=$("$build/bin/tdist-run" -n "$pes" -- "$build/bin/tdist-bench" allreduce --algo auto \
          --min-size 4K --max-size 16K --iters 1000 --repeats 5 --no-table |
        sed -n 's/^RESULT .*size=\([0-9]*\) .*median_us=\([0-9.]*\).*/\1 \2/p')
  py=$("$build/bin/tdist-run" -n "$pes" -- python3 "$root/bench/python_allreduce.py" --sizes 4096,16384 \
         --iters 1000 --repeats 5 $views | sed -n 's/^python[a-z ]* all_reduce \([0-9]*\) median_us=\([0-9.]*\).*/\1 \2/p')
  join <(echo "$cxx" | sort) <(echo "$py" | sort) |
    awk -v r="$round" '{ printf "%-6s %-8s %12.3f %12.3f %12.3f\n", r, $1, $2, $3, $3 - $2 }'
done
