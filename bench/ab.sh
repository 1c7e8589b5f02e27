#!/usr/bin/env bash
# ab.sh - one tdist-bench case from two builds, launched alternately, so that both see the same
# machine load; prints each build's median (over rounds) of its launches' medians and the ratio.
#
#   bench/ab.sh --base /path/to/old/build --pes 2 --rounds 9 -- barrier
#   (build the commit to compare with, e.g. git worktree add ../base REV && cmake ... -B ../base/build)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NEW=$ROOT/build
BASE=""
PES=2
ROUNDS=9
while [ $# -gt 0 ]; do
  case $1 in
    --base) BASE=$2; shift 2 ;;
    --build) NEW=$2; shift 2 ;;
    --pes) PES=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: bench/ab.sh --base BUILD [--build BUILD] [--pes N] [--rounds R] -- CASE [ARGS]" >&2; exit 2 ;;
  esac
done
[ -n "$BASE" ] && [ $# -gt 0 ] || { echo "usage: bench/ab.sh --base BUILD [--build BUILD] [--pes N] [--rounds R] -- CASE [ARGS]" >&2; exit 2; }

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
run() { local build=$1; shift; "$build/bin/tdist-run" -n "$PES" -- "$build/bin/tdist-bench" "$@" 2>&1 | sed -n 's/.*median_us=\([0-9.e+-]*\).*/\1/p' | head -n 1; }

base_values=() new_values=()
for ((round = 1; round <= ROUNDS; ++round)); do
  # Alternate which build goes first, so that neither always follows the other.
  if ((round % 2)); then
    base_values+=("$(run "$BASE" "$@")"); new_values+=("$(run "$NEW" "$@")")
  else
    new_values+=("$(run "$NEW" "$@")"); base_values+=("$(run "$BASE" "$@")")
  fi
done
b=$(printf '%s\n' "${base_values[@]}" | median)
n=$(printf '%s\n' "${new_values[@]}" | median)
echo "case: $* on $PES PEs, $ROUNDS rounds"
echo "base: median ${b} us (runs: ${base_values[*]})"
echo "this: median ${n} us (runs: ${new_values[*]})"
awk -v b="$b" -v n="$n" 'BEGIN {printf "ratio this/base: %.2f\n", n / b}'
