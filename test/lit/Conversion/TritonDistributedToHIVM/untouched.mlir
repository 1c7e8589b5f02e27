// RUN: tdist-opt %s -allow-unregistered-dialect --convert-triton-distributed-to-hivm \
// RUN:   | FileCheck %s

// Everything but the distributed ops reaches the single-device stages as it
// came: nothing is folded, nothing dead is erased, Triton ops stay as they are.

// CHECK-LABEL: func.func @kernel
// CHECK-SAME: (%[[DATA:[^:]*]]: memref<64xf32>, %[[SIGNAL:[^:]*]]: memref<16xi32>, %[[X:[^:]*]]: i32)
func.func @kernel(%data: memref<64xf32>, %signal: memref<16xi32>, %x: i32) -> i32 {
  // CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[UNUSED:.*]] = arith.constant 42 : i32
  // CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[C1]], %[[C2]] : i32
  // CHECK-NEXT: %[[SAME:.*]] = arith.muli %[[X]], %[[C1]] : i32
  // CHECK-NEXT: %[[DEAD:.*]] = arith.addi %[[X]], %[[X]] : i32
  // CHECK-NEXT: %[[PTR:.*]] = "tt.addptr"(%[[DATA]], %[[SUM]]) : (memref<64xf32>, i32) -> memref<64xf32>
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %unused = arith.constant 42 : i32
  %sum = arith.addi %c1, %c2 : i32
  %same = arith.muli %x, %c1 : i32
  %dead = arith.addi %x, %x : i32
  %ptr = "tt.addptr"(%data, %sum) : (memref<64xf32>, i32) -> memref<64xf32>
  // CHECK-NEXT: %[[TOKEN:.*]] = hivm.hir.custom {{.*}} "dist.aclshmem_wait_int32" ins(%[[SIGNAL]], %[[C1]], %[[SAME]] :
  %token = distributed.wait %signal, %c1, %same scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  // CHECK-NEXT: %[[ORDERED:.*]] = hivm.hir.custom {{.*}} "dist.aclshmem_consume_token_float_ptr_1d" ins(%[[PTR]], %[[TOKEN]] :
  %ordered = distributed.consume_token %ptr, %token : memref<64xf32>, i32
  // CHECK-NEXT: %[[TILE:.*]] = "tt.load"(%[[ORDERED]]) : (memref<64xf32>) -> tensor<64xf32>
  // CHECK-NEXT: "tt.store"(%[[DATA]], %[[TILE]]) : (memref<64xf32>, tensor<64xf32>) -> ()
  // CHECK-NEXT: return %[[SUM]] : i32
  %tile = "tt.load"(%ordered) : (memref<64xf32>) -> tensor<64xf32>
  "tt.store"(%data, %tile) : (memref<64xf32>, tensor<64xf32>) -> ()
  return %sum : i32
}

// A function without distributed ops is left exactly as it is.
// CHECK-LABEL: func.func @no_distributed_ops
func.func @no_distributed_ops(%x: i32) -> i32 {
  // CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[SAME:.*]] = arith.addi %{{.*}}, %[[ZERO]] : i32
  // CHECK-NEXT: return %[[SAME]] : i32
  %zero = arith.constant 0 : i32
  %same = arith.addi %x, %zero : i32
  return %same : i32
}
