#!/usr/bin/env bash
# same_results.sh BIN_DIR SOURCE PES [FLAG...] - builds SOURCE with tdist's oshcc (BIN_DIR) and with the other
# OpenSHMEM on PATH (Debian's Open MPI: oshcc, oshrun), runs both on PES PEs, and compares what
# they print, line by line in any order. FLAGs go to tdist's oshcc only (the build's own flags,
# e.g. a sanitizer's). Exit 77 (skipped) where the other implementation is not
# installed or cannot start a job here, saying why.
set -uo pipefail
bin=$1 source=$2 pes=$3
shift 3
extra=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
peer_cc=$(command -v oshcc || true)
peer_run=$(command -v oshrun || true)
if [[ -z $peer_cc || -z $peer_run ]]; then
  echo "same_results: no other OpenSHMEM on PATH (Debian: apt-get install openmpi-bin libopenmpi-dev): skipped"
  exit 77
fi
if [[ $peer_cc -ef $bin/oshcc ]] || [[ $("$peer_cc" --showme 2>/dev/null) == *tdist* ]]; then
  echo "same_results: the oshcc on PATH is tdist's own: skipped"
  exit 77
fi
"$bin/oshcc" -std=c11 -O1 "${extra[@]}" -o "$work/ours" "$source" || { echo "same_results: tdist's oshcc failed"; exit 1; }
if ! "$peer_cc" -std=c11 -O1 -o "$work/peer" "$source" > "$work/peer_cc.txt" 2>&1; then
  echo "same_results: $peer_cc cannot build the program here: skipped"; cat "$work/peer_cc.txt"; exit 77
fi
"$bin/oshrun" -np "$pes" --wait-timeout 30 --timeout 120 "$work/ours" > "$work/ours.txt" 2> "$work/ours_err.txt" ||
  { echo "same_results: tdist's run failed"; cat "$work/ours_err.txt"; exit 1; }
flags=(--mca memory ^patcher --oversubscribe)
[[ $(id -u) == 0 ]] && flags+=(--allow-run-as-root)
if ! timeout 120 "$peer_run" "${flags[@]}" -np "$pes" "$work/peer" > "$work/peer.txt" 2> "$work/peer_err.txt"; then
  echo "same_results: $peer_run could not run the program here (no usable transport?): skipped"
  tail -20 "$work/peer_err.txt"
  exit 77
fi
sort "$work/ours.txt" > "$work/ours.sorted"
sort "$work/peer.txt" > "$work/peer.sorted"
lines=$(wc -l < "$work/ours.sorted")
if [[ $lines -lt 10 ]]; then echo "same_results: tdist printed only $lines lines"; cat "$work/ours.txt"; exit 1; fi
if ! diff -u "$work/peer.sorted" "$work/ours.sorted"; then
  echo "same_results: tdist's output (+) differs from the other implementation's (-)"
  exit 1
fi
echo "same_results: $lines lines, the same on both implementations at $pes PEs"
