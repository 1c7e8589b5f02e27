#!/usr/bin/env bash
# Configures (once) and builds tdist in ./build (override with TDIST_BUILD_DIR). With TDIST_WERROR=1
# (as CI sets) the project's own code is built with warnings as errors (-DTDIST_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TDIST_BUILD_DIR:-build}"
werror=()
case "${TDIST_WERROR:-}" in
  "") ;;
  1|ON|on) werror=(-DTDIST_WERROR=ON) ;;
  *) werror=(-DTDIST_WERROR=OFF) ;;
esac
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${werror[@]}"
elif [ ${#werror[@]} -gt 0 ]; then
  cmake -S . -B "$build" "${werror[@]}" >/dev/null
fi
cmake --build "$build"
