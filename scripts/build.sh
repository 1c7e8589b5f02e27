#!/usr/bin/env bash
# Configures (once) and builds tdist in ./build (override with TDIST_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TDIST_BUILD_DIR:-build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build"
