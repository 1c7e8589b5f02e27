#!/usr/bin/env bash
# On a GPU host: builds tdist without the compiler (no MLIR needed) in build-cuda and runs the
# tests of the cuda backend, then the rest of the suite. Extra arguments go to ctest.
#   TDIST_OFFLINE=DIR   a bundle from scripts/offline_bundle.sh, for hosts without network
#   TDIST_BUILD_DIR     build folder (default build-cuda)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TDIST_BUILD_DIR:-build-cuda}"
args=(-G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTDIST_BUILD_COMPILER=OFF
      -DTDIST_BUILD_CUDA=ON)
if [ -n "${TDIST_OFFLINE:-}" ]; then
  args+=("-DCMAKE_PREFIX_PATH=$(cd "$TDIST_OFFLINE" && pwd)/usr" -DBoost_USE_STATIC_LIBS=ON)
fi
[ -f "$build/build.ninja" ] || cmake "${args[@]}"
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure "$@"
