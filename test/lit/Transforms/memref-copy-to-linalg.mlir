// tdist-memref-copy-to-linalg: a copy the GPU could only make through the host runner library's
// memrefCopy becomes a linalg.copy, and then loops in the kernel (tdist-cuda-pipeline.mlir checks
// that no memrefCopy is left).
// RUN: tdist-opt %s --tdist-memref-copy-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @strided_copy(
// CHECK-SAME: %[[SRC:.*]]: memref<4x8xf32, strided<[?, 1], offset: ?>>, %[[DST:.*]]: memref<4x8xf32, strided<[16, 1]>>
// CHECK: linalg.copy ins(%[[SRC]] : memref<4x8xf32, strided<[?, 1], offset: ?>>) outs(%[[DST]] : memref<4x8xf32, strided<[16, 1]>>)
// CHECK-NOT: memref.copy
func.func @strided_copy(%src: memref<4x8xf32, strided<[?, 1], offset: ?>>,
                        %dst: memref<4x8xf32, strided<[16, 1]>>) {
  memref.copy %src, %dst : memref<4x8xf32, strided<[?, 1], offset: ?>> to memref<4x8xf32, strided<[16, 1]>>
  return
}

// An unranked copy has no loops to become: it stays.
// CHECK-LABEL: func.func @unranked_copy(
// CHECK: memref.copy
func.func @unranked_copy(%src: memref<*xf32>, %dst: memref<*xf32>) {
  memref.copy %src, %dst : memref<*xf32> to memref<*xf32>
  return
}
