#!/usr/bin/env bash
# Builds and runs every test through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir "${TDIST_BUILD_DIR:-build}" --output-on-failure "$@"
