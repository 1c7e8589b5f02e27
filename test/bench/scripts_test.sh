#!/usr/bin/env bash
# The GPU comparison scripts stay runnable where no GPU is: their usage, their errors for bad
# arguments and for a build or machine that cannot run them, and the torch peers' arguments
# without torch installed.
#
#   scripts_test.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
SRC=$1 BUILD=$2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect STATUS PATTERN command...: the command exits with STATUS and its output matches PATTERN.
expect() {
  local status=$1 pattern=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  [[ $rc == "$status" ]] || fail "$* exited $rc, expected $status: $out"
  [[ $out =~ $pattern ]] || fail "$*: output does not match '$pattern': $out"
}
MG=$SRC/bench/multi_gpu.sh
bash -n "$MG" || fail "bash -n $MG"
expect 0 "usage: bench/multi_gpu.sh BUILD_DIR" "$MG" --help
expect 2 "no build directory '.*nowhere'" "$MG" "$BUILD/nowhere"
expect 2 "--repeats must be a positive integer, got 'x'" "$MG" "$BUILD" --repeats x
expect 2 "unknown case fft" "$MG" "$BUILD" --cases fft
expect 2 "unknown flag --fast" "$MG" "$BUILD" --fast
# This build: without the cuda backend, or without a GPU, it says which and runs nothing.
if ! command -v nvidia-smi >/dev/null 2>&1; then
  expect 2 "has no cuda cases|no GPU" "$MG" "$BUILD" --no-torch --pes 2 --cases pingpong --out "${TMPDIR:-/tmp}/mg-$$.txt"
  expect 2 "has no cuda cases|no GPU" "$MG" "$BUILD" --tests --no-torch --pes 2 --out "${TMPDIR:-/tmp}/mg-$$.txt"
fi
PEERS=$SRC/bench/torch_gemm_peers.py
expect 0 "usage: torch_gemm_peers.py" python3 "$PEERS" --help
expect 2 "invalid choice: 'fft'" python3 "$PEERS" --case fft
expect 2 "expected 2..64" python3 "$PEERS" --case all --pes 1
expect 0 "torch_peer_common: all checks passed" python3 "$SRC/test/bench/peer_common_test.py" "$SRC"
expect 0 "usage: bench/cuda_benchmarks.sh BUILD_DIR" "$SRC/bench/cuda_benchmarks.sh" --help
((failures == 0)) && echo "bench scripts: all checks passed"
exit $((failures != 0))
