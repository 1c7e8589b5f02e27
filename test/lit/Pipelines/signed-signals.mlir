// RUN: tdist-opt %s --tdist-cpu-pipeline | FileCheck %s

// A kernel with i32 and si32 signals, and i64 and si64 ones, lowers to LLVM with one declaration
// per link name: signed integers reach the library as the signless ones of their width, and the
// casts that say so vanish in the LLVM lowering.
// CHECK-DAG: llvm.func @_mlir_ciface_aclshmemx_signal_op_m1(!llvm.ptr, i32, i32, i32)
// CHECK-DAG: llvm.func @_mlir_ciface_aclshmem_int64_p_m1(!llvm.ptr, i64, i32)
// CHECK-DAG: llvm.func @_mlir_ciface_aclshmem_wait_int32_m1(!llvm.ptr, i32, i32) -> i32
// CHECK-DAG: llvm.func @_mlir_ciface_aclshmem_wait_int64_m1(!llvm.ptr, i32, i64) -> i32
// CHECK-LABEL: llvm.func @signed_signals(
// CHECK-COUNT-2: llvm.call @aclshmemx_signal_op_m1(
// CHECK-COUNT-2: llvm.call @aclshmem_int64_p_m1(
// CHECK: llvm.call @aclshmem_wait_int32_m1(
// CHECK: llvm.call @aclshmem_wait_int64_m1(
// CHECK-NOT: unrealized_conversion_cast
module attributes {distributed.target = "cpu"} {
  func.func @signed_signals(%s32: memref<16xi32>, %ss32: memref<16xsi32>, %s64: memref<16xi64>,
                            %ss64: memref<16xsi64>, %e32: si32, %e64: si64, %value: i64,
                            %peer: i32, %data: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    distributed.notify %s32, %value, %peer sig_op = add scope = intra_node : memref<16xi32>
    distributed.notify %ss32, %value, %peer sig_op = add scope = intra_node : memref<16xsi32>
    distributed.notify %s64, %value, %peer sig_op = set scope = intra_node : memref<16xi64>
    distributed.notify %ss64, %value, %peer sig_op = set scope = intra_node : memref<16xsi64>
    %t32 = distributed.wait %ss32, %one, %e32 scope = sys semantic = acquire
        : memref<16xsi32>, i32, si32 -> i32
    %t64 = distributed.wait %ss64, %one, %e64 scope = sys semantic = acquire
        : memref<16xsi64>, i32, si64 -> i32
    %r32 = distributed.consume_token %data, %t32 : memref<4xf32>, i32
    %ready = distributed.consume_token %r32, %t64 : memref<4xf32>, i32
    %v = memref.load %ready[%c0] : memref<4xf32>
    memref.store %v, %data[%c0] : memref<4xf32>
    return
  }
}
