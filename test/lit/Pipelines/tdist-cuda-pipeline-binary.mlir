// With ptxas (CMake's CUDAToolkit), tdist-cuda-pipeline ends in a cubin for sm_90a; fatbin adds
// the PTX beside it.
// REQUIRES: tdist-device-bitcode, ptxas
// RUN: tdist-opt %examples/ir/tile_allgather.mlir --tdist-cuda-pipeline="device-library=%tdist_device_bc toolkit=%cuda_toolkit" | FileCheck %s
// RUN: tdist-opt %examples/ir/tile_allgather.mlir --tdist-cuda-pipeline="format=fatbin device-library=%tdist_device_bc toolkit=%cuda_toolkit" | FileCheck %s --check-prefix=FATBIN

// CHECK: gpu.binary @tdist_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a"
// CHECK-SAME: bin = "\7FELF

// FATBIN: gpu.binary @tdist_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a"
// FATBIN-SAME: "P\EDU\BA
