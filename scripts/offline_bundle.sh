#!/usr/bin/env bash
# Packs, from this Debian machine's packages, the build dependencies that a GPU host without
# network may lack: Boost.Context (headers it includes, static library, CMake package),
# GoogleTest and OpenBLAS (with the Fortran runtime it needs: put usr/lib/<arch> of the bundle on
# LD_LIBRARY_PATH there). Layout mirrors /usr, so that the bundle is a CMake prefix:
#   scripts/offline_bundle.sh .offline
#   (on the GPU host) cmake -DCMAKE_PREFIX_PATH="$PWD/.offline/usr" -DBoost_USE_STATIC_LIBS=ON ...
# CLI11, nvcc and CMake are expected there already (scripts/gpu_build.sh checks).
# Where this machine's build (TDIST_BUILD_DIR, default build) has them, it also packs what needs
# clang or MLIR to make: the device library's portable IR (lib/libtdist_device.ll, for Triton
# kernels) and the kernel cache of the IR examples (kernel-cache, filled by ctest's
# ir_*_cuda_compile), as tdist/; scripts/cuda_test.sh hands both to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/offline_bundle.sh OUT_DIR}"
multiarch=$(gcc -print-multiarch)
lib="/usr/lib/$multiarch"
rm -rf "$out"
mkdir -p "$out/usr/include" "$out/usr/lib/$multiarch/cmake"

# Every Boost header that the fiber scheduler includes, and the configuration headers whole (they
# pick files by compiler version, which may differ on the GPU host).
copy_header() { mkdir -p "$out/$(dirname "$1")" && cp "$1" "$out/$1"; }
g++ -std=c++20 -M -I include -I . runtime/fiber_scheduler.cpp |
  tr ' \\' '\n\n' | grep '^/usr/include/boost/' | sort -u | while read -r header; do
  copy_header "$header"
done
cp -r /usr/include/boost/config /usr/include/boost/predef "$out/usr/include/boost/"
cp -a "$lib"/libboost_context.a "$out/usr/lib/$multiarch/"
cp -r "$lib"/cmake/Boost-1.74.0 "$lib"/cmake/BoostDetectToolset-1.74.0.cmake \
  "$lib"/cmake/boost_context-1.74.0 "$lib"/cmake/boost_headers-1.74.0 "$out/usr/lib/$multiarch/cmake/"

cp -r /usr/include/gtest /usr/include/gmock "$out/usr/include/"
cp -a "$lib"/libgtest.a "$lib"/libgtest_main.a "$lib"/libgmock.a "$lib"/libgmock_main.a "$out/usr/lib/$multiarch/"
cp -r "$lib"/cmake/GTest "$out/usr/lib/$multiarch/cmake/"
openblas=$(dirname "$(readlink -f "$lib/libopenblas.so.0")")
cp -L "$openblas/libopenblas.so.0" "$out/usr/lib/$multiarch/"
ln -s libopenblas.so.0 "$out/usr/lib/$multiarch/libopenblas.so"
cp -L "$lib/libgfortran.so.5" "$lib/libquadmath.so.0" "$out/usr/lib/$multiarch/"
mkdir -p "$out/usr/include/openblas"
cp /usr/include/"$multiarch"/openblas-pthread/*.h "$out/usr/include/openblas/"
build="${TDIST_BUILD_DIR:-build}"
if [ -f "$build/lib/libtdist_device.ll" ]; then
  mkdir -p "$out/tdist"
  cp "$build/lib/libtdist_device.ll" "$out/tdist/"
  if [ -d "$build/kernel-cache" ]; then
    cp -r "$build/kernel-cache" "$out/tdist/"
  fi
fi
du -sh "$out"
