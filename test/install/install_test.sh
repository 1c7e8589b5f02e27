#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, builds a consumer against it with
# find_package(tdist) and with pkg-config, and runs both on 2 PEs with the installed tdist-run.
set -euo pipefail
build_dir=$1
source_dir=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix

cmake --install "$build_dir" --prefix "$prefix" >/dev/null
for f in include/aclshmem.h include/tdist/runtime.h include/tdist/dl.h bin/tdist-run; do
  [ -e "$prefix/$f" ] || { echo "install_test: $f was not installed"; exit 1; }
done
libdir=$(dirname "$(find "$prefix" -name 'libtdist_runtime.so' | head -n 1)")

cmake -G Ninja -S "$source_dir/consumer" -B "$scratch/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/cmake-build" >/dev/null
"$prefix/bin/tdist-run" -n 2 -- "$scratch/cmake-build/consumer"

flags=$(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs tdist)
# shellcheck disable=SC2086
g++ -std=c++20 "$source_dir/consumer/consumer.cpp" $flags -o "$scratch/consumer-pc"
LD_LIBRARY_PATH="$libdir" "$prefix/bin/tdist-run" -n 2 -- "$scratch/consumer-pc"
echo "install_test: find_package and pkg-config consumers ran"
