#!/usr/bin/env bash
# Builds tdist with AddressSanitizer and UndefinedBehaviorSanitizer (Debug, without the compiler)
# in ./build-sanitize (override with TDIST_SANITIZE_BUILD_DIR) and runs the unit, launcher and
# multi-PE tests (1-4 PEs, every engine) through ctest; extra arguments go to ctest.
#
# Not run: the install test, which builds a consumer project without the sanitizer runtime, and
# the Python package (a module built with the sanitizers cannot be loaded by a plain python3).
# With TDIST_WERROR=1 (as CI sets) warnings are errors here too (-DTDIST_WERROR=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TDIST_SANITIZE_BUILD_DIR:-build-sanitize}"
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
werror=()
case "${TDIST_WERROR:-}" in
  "") ;;
  1|ON|on) werror=(-DTDIST_WERROR=ON) ;;
  *) werror=(-DTDIST_WERROR=OFF) ;;
esac
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DTDIST_BUILD_COMPILER=OFF -DTDIST_BUILD_CUDA=OFF -DTDIST_BUILD_BENCH=OFF \
    -DTDIST_BUILD_PYTHON=OFF \
    -DTDIST_TEST_PES="1;2;3;4" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    "${werror[@]}"
else
  # A build made before the Python package existed: it stays out here too.
  cmake -S . -B "$build" -DTDIST_BUILD_PYTHON=OFF "${werror[@]}" >/dev/null
fi
cmake --build "$build"

# A report ends the process with a non-zero status, and the launcher ends the job with it.
# handle_segv=0: a PE that crashes dies of its signal, which the launcher reports (and the
# crash scenarios check); ASan's reports of bad accesses come from its checks, not that handler.
export ASAN_OPTIONS="${ASAN_OPTIONS:-handle_segv=0:strict_string_checks=1:check_initialization_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir "$build" --output-on-failure -LE "install|bench" "$@"
