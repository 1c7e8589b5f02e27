// RUN: tdist-opt %s --tdist-cpu-pipeline | FileCheck %s

// A wait's number of barriers may be a kernel argument. Whatever its width, it reaches the
// library's aclshmem_wait_int32_m1 as an i32, so waits with constant, i32 and i64 counts share
// one declaration; the i64 one is saturated to the i32 range first.
// CHECK: llvm.func @_mlir_ciface_aclshmem_wait_int32_m1(!llvm.ptr, i32, i32) -> i32
// CHECK-NOT: llvm.func @_mlir_ciface_aclshmem_wait_int32_m1(
// CHECK-LABEL: llvm.func @dynamic_count(
// CHECK-SAME: %[[COUNT:[^:]*]]: i32, %[[WIDE:[^:]*]]: i64, %[[EPOCH:[^:]*]]: i32)
// CHECK-DAG: %[[MAX:.*]] = llvm.mlir.constant(2147483647 : i64) : i64
// CHECK-DAG: %[[MIN:.*]] = llvm.mlir.constant(-2147483648 : i64) : i64
// CHECK-DAG: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: %[[T0:.*]] = llvm.call @aclshmem_wait_int32_m1({{.*}}, %[[COUNT]], %[[EPOCH]]) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32) -> i32
// CHECK: %[[LOW:.*]] = llvm.intr.smax(%[[WIDE]], %[[MIN]]) : (i64, i64) -> i64
// CHECK: %[[HIGH:.*]] = llvm.intr.smin(%[[LOW]], %[[MAX]]) : (i64, i64) -> i64
// CHECK: %[[NARROW:.*]] = llvm.trunc %[[HIGH]] : i64 to i32
// CHECK: %[[T1:.*]] = llvm.call @aclshmem_wait_int32_m1({{.*}}, %[[NARROW]], %[[EPOCH]])
// CHECK: %[[T2:.*]] = llvm.call @aclshmem_wait_int32_m1({{.*}}, %[[FOUR]], %[[EPOCH]])
// CHECK: llvm.call @aclshmem_consume_token_float_ptr_1d_m1_m1({{.*}}, %[[T0]])
// CHECK: llvm.call @aclshmem_consume_token_float_ptr_1d_m1_m1({{.*}}, %[[T1]])
// CHECK: llvm.call @aclshmem_consume_token_float_ptr_1d_m1_m1({{.*}}, %[[T2]])
module attributes {distributed.target = "cpu"} {
  func.func @dynamic_count(%signals: memref<?xi32>, %data: memref<?xf32>, %count: i32, %wide: i64,
                           %epoch: i32) {
    %c0 = arith.constant 0 : index
    %four = arith.constant 4 : i32
    %t0 = distributed.wait %signals, %count, %epoch scope = sys semantic = acquire
        : memref<?xi32>, i32, i32 -> i32
    %t1 = distributed.wait %signals, %wide, %epoch scope = sys semantic = acquire
        : memref<?xi32>, i64, i32 -> i32
    %t2 = distributed.wait %signals, %four, %epoch scope = sys semantic = acquire
        : memref<?xi32>, i32, i32 -> i32
    %r0 = distributed.consume_token %data, %t0 : memref<?xf32>, i32
    %r1 = distributed.consume_token %r0, %t1 : memref<?xf32>, i32
    %r2 = distributed.consume_token %r1, %t2 : memref<?xf32>, i32
    %v = memref.load %r2[%c0] : memref<?xf32>
    memref.store %v, %data[%c0] : memref<?xf32>
    return
  }
}
