// RUN: tdist-opt %s --split-input-file --tdist-interchange-reductions | FileCheck %s

// A matmul's reduction moves outside the output's contiguous loop: (i, j, k) -> (i, k, j).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[LHS:.*]]: memref<?x?xf32>, %[[RHS:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[LHS]], %[[RHS]] : memref<?x?xf32>, memref<?x?xf32>) outs(%[[OUT]] : memref<?x?xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// A batch matmul: (b, i, j, k) -> (b, i, k, j).
// CHECK-LABEL: func.func @batch_matmul
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel"]
func.func @batch_matmul(%a: memref<2x4x8xf32>, %b: memref<2x8x16xf32>, %c: memref<2x4x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xf32>, memref<2x8x16xf32>)
                      outs(%c : memref<2x4x16xf32>)
  return
}

// -----

// Without a reduction there is nothing to move.
// CHECK-LABEL: func.func @add
// CHECK: linalg.add
func.func @add(%a: memref<?x?xf32>, %b: memref<?x?xf32>) {
  linalg.add ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%a : memref<?x?xf32>)
  return
}

// -----

// A row sum reads its input along the reduction: moving it outward would walk the input down
// its columns, so it stays.
// CHECK-LABEL: func.func @row_sum
// CHECK: iterator_types = ["parallel", "reduction"]
#rows = affine_map<(d0, d1) -> (d0, d1)>
#sums = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%a: memref<?x?xf32>, %s: memref<?xf32>) {
  linalg.generic {indexing_maps = [#rows, #sums], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x?xf32>) outs(%s : memref<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %sum = arith.addf %acc, %x : f32
    linalg.yield %sum : f32
  }
  return
}

// -----

// Tensors are left to bufferization; the pass works on buffers.
// CHECK-LABEL: func.func @matmul_tensor
// CHECK: linalg.matmul
func.func @matmul_tensor(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
