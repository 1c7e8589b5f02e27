#!/usr/bin/env bash
# The main job: installs what is missing, builds, runs the C++ demo on 4 CPU PEs, then compiles
# and runs the ring AllReduce written in the distributed MLIR dialect, checked on every PE.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build="${TDIST_BUILD_DIR:-build}"
"$build/bin/tdist-run" -n 4 -- "$build/bin/tdist-demo"
"$build/bin/tdist-run" -n 4 --entry ring_allreduce --grid 2 examples/ir/ring_allreduce.mlir -- \
  'f32[npes*4096]=random:1' 'f32[2*npes*4096]' 'i32[2*npes*2*16]' index=4096 i32=1 \
  --check '0=sum(arg(0))'
