#!/usr/bin/env bash
# On a GPU host: builds tdist without the compiler (no MLIR needed) in build-cuda and runs the
# tests of the cuda backend, then the rest of the suite. Extra arguments go to ctest.
#   TDIST_OFFLINE=DIR   a bundle from scripts/offline_bundle.sh, for hosts without network; its
#                       tdist/ (the device library's IR, the IR kernels' cache) is used where there
#   TDIST_DEVICE_IR_FILE, TDIST_KERNEL_CACHE_DIR   the same, named one by one (CMake's options)
#   TDIST_BUILD_DIR     build folder (default build-cuda)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TDIST_BUILD_DIR:-build-cuda}"
args=(-G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTDIST_BUILD_COMPILER=OFF
      -DTDIST_BUILD_CUDA=ON)
if [ -n "${TDIST_OFFLINE:-}" ]; then
  offline=$(cd "$TDIST_OFFLINE" && pwd)
  args+=("-DCMAKE_PREFIX_PATH=$offline/usr" -DBoost_USE_STATIC_LIBS=ON)
  [ -f "$offline/tdist/libtdist_device.ll" ] && : "${TDIST_DEVICE_IR_FILE:=$offline/tdist/libtdist_device.ll}"
  [ -d "$offline/tdist/kernel-cache" ] && : "${TDIST_KERNEL_CACHE_DIR:=$offline/tdist/kernel-cache}"
fi
[ -n "${TDIST_DEVICE_IR_FILE:-}" ] && args+=("-DTDIST_DEVICE_IR_FILE=$TDIST_DEVICE_IR_FILE")
[ -n "${TDIST_KERNEL_CACHE_DIR:-}" ] && args+=("-DTDIST_KERNEL_CACHE_DIR=$TDIST_KERNEL_CACHE_DIR")
[ -f "$build/build.ninja" ] || cmake "${args[@]}"
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure "$@"
