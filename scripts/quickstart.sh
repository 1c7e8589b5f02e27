#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the demo on 4 CPU PEs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build="${TDIST_BUILD_DIR:-build}"
"$build/bin/tdist-run" -n 4 -- "$build/bin/tdist-demo"
