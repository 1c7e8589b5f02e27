// RUN: tdist-opt %s --convert-triton-distributed-to-hivm | FileCheck %s

// Result construction (seed 001 §3.5): every ranked tensor result gets a
// tensor.empty init in outs, in result order; other results get none. Ops
// with results are replaced, ops without are erased.

// CHECK-LABEL: func.func @wait_on_tensor_of_pointers
// CHECK-SAME: (%[[SIGNALS:[^:]*]]: tensor<4x!llvm.ptr>, %[[EPOCH:[^:]*]]: i32)
func.func @wait_on_tensor_of_pointers(%signals: tensor<4x!llvm.ptr>, %epoch: i32) -> tensor<4xi32> {
  // CHECK: %[[ONE:.*]] = arith.constant 1 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4xi32>
  // CHECK: %[[TOKENS:.*]] = hivm.hir.custom
  // CHECK-SAME: "dist.aclshmem_wait_int32" ins(%[[SIGNALS]], %[[ONE]], %[[EPOCH]] : tensor<4x!llvm.ptr>, i32, i32) outs(%[[INIT]] : tensor<4xi32>) -> tensor<4xi32>
  %tokens = distributed.wait %signals, %c1, %epoch scope = gpu semantic = acquire
      : tensor<4x!llvm.ptr>, i32, i32 -> tensor<4xi32>
  // CHECK: return %[[TOKENS]]
  return %tokens : tensor<4xi32>
}

// CHECK-LABEL: func.func @consume_token_on_tensor
// CHECK-SAME: (%[[TILE:[^:]*]]: tensor<16x32xbf16>, %[[TOKEN:[^:]*]]: i32)
func.func @consume_token_on_tensor(%tile: tensor<16x32xbf16>, %token: i32) -> tensor<16x32xbf16> {
  // CHECK: %[[INIT:.*]] = tensor.empty() : tensor<16x32xbf16>
  // CHECK: %[[ORDERED:.*]] = hivm.hir.custom
  // CHECK-SAME: "dist.aclshmem_consume_token_bfloat16_ptr_2d" ins(%[[TILE]], %[[TOKEN]] : tensor<16x32xbf16>, i32) outs(%[[INIT]] : tensor<16x32xbf16>) -> tensor<16x32xbf16>
  %ordered = distributed.consume_token %tile, %token : tensor<16x32xbf16>, i32
  // CHECK: return %[[ORDERED]]
  return %ordered : tensor<16x32xbf16>
}

// CHECK-LABEL: func.func @consume_token_on_memref_has_no_init
func.func @consume_token_on_memref_has_no_init(%buffer: memref<16x32xbf16>, %token: i32) -> memref<16x32xbf16> {
  // CHECK-NOT: tensor.empty
  // CHECK: %[[ORDERED:.*]] = hivm.hir.custom
  // CHECK-SAME: ins(%{{.*}}, %{{.*}} : memref<16x32xbf16>, i32) -> memref<16x32xbf16>
  %ordered = distributed.consume_token %buffer, %token : memref<16x32xbf16>, i32
  // CHECK: return %[[ORDERED]]
  return %ordered : memref<16x32xbf16>
}

// Scalars have no init; the tensor inits follow the tensor results in order,
// encodings included.
// CHECK-LABEL: func.func @extern_call_mixed_results
func.func @extern_call_mixed_results(%x: memref<8xf16>) -> (i32, tensor<2x3xf16>, tensor<4xi32, "enc">) {
  // CHECK: %[[FIRST:.*]] = tensor.empty() : tensor<2x3xf16>
  // CHECK: %[[SECOND:.*]] = tensor.empty() : tensor<4xi32, "enc">
  // CHECK: %[[RESULTS:.*]]:3 = hivm.hir.custom
  // CHECK-SAME: "dist.user_split" ins(%{{.*}} : memref<8xf16>) outs(%[[FIRST]], %[[SECOND]] : tensor<2x3xf16>, tensor<4xi32, "enc">) -> (i32, tensor<2x3xf16>, tensor<4xi32, "enc">)
  %results:3 = distributed.extern_call "user_split"(%x) : (memref<8xf16>) -> (i32, tensor<2x3xf16>, tensor<4xi32, "enc">)
  // CHECK: return %[[RESULTS]]#0, %[[RESULTS]]#1, %[[RESULTS]]#2
  return %results#0, %results#1, %results#2 : i32, tensor<2x3xf16>, tensor<4xi32, "enc">
}

// CHECK-LABEL: func.func @op_without_results_is_erased
func.func @op_without_results_is_erased(%signal: memref<8xi64>, %value: i64, %peer: i32) {
  // CHECK-NEXT: hivm.hir.custom
  // CHECK-SAME: "dist.aclshmem_int64_p"
  // CHECK-NEXT: return
  distributed.notify %signal, %value, %peer sig_op = set scope = gpu : memref<8xi64>
  return
}
