#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, builds a consumer against it with
# find_package(tdist) and with pkg-config, and runs both on 2 PEs with the installed tdist-run;
# with the compiler, also an IR kernel through the installed tdist-jit.
set -euo pipefail
build_dir=$1
source_dir=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix

cmake --install "$build_dir" --prefix "$prefix" >/dev/null
for f in include/aclshmem.h include/shmem.h include/shmemx.h include/tdist/runtime.h include/tdist/dl.h \
         bin/tdist-run bin/oshrun bin/oshcc bin/oshc++; do
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
# The installed OpenSHMEM wrappers build against the prefix (no build-tree file goes with them).
[ ! -e "$prefix/bin/tdist-wrapper.env" ] || { echo "install_test: the build tree's wrapper paths were installed"; exit 1; }
"$source_dir/../openshmem/oshcc_test.sh" "$prefix/bin"
[[ $("$prefix/bin/oshcc" --showme:compile) == "-I$prefix/include" ]] || { echo "install_test: oshcc is not the prefix's"; exit 1; }

# With the compiler built, the installed tools start (they find Debian's libMLIR), and the
# installed tdist-run runs IR kernels through the installed tdist-jit.
if [ -x "$prefix/bin/tdist-opt" ]; then
  lowered=$("$prefix/bin/tdist-opt" "$source_dir/../../examples/ir/ring_allreduce.mlir" --tdist-ascend-pipeline)
  [[ $lowered == *hivm.hir.custom* ]] || { echo "install_test: the installed tdist-opt failed"; exit 1; }
fi
if [ -x "$prefix/bin/tdist-jit" ]; then
  "$prefix/bin/tdist-run" -n 2 --entry tile_allgather --grid 2 \
    "$source_dir/../../examples/ir/tile_allgather.mlir" -- \
    'f32[8,4]=random:1' 'f32[npes*8,4]' 'i32[npes*2*16]' 'f32[npes*8,4]' index=4 i32=1 \
    --check '3=gather(arg(0))'
  echo "install_test: the installed tdist-jit ran an IR kernel"
elif [ -e "$build_dir/bin/tdist-jit" ]; then
  echo "install_test: tdist-jit was built but not installed"; exit 1
fi
echo "install_test: find_package and pkg-config consumers ran"
