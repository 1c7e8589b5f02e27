// RUN: tdist-opt %s | tdist-opt | FileCheck %s
// RUN: tdist-opt %s --mlir-print-op-generic | tdist-opt | FileCheck %s

// CHECK-LABEL: func.func @rank_queries
func.func @rank_queries() -> (i32, i32) {
  // CHECK: %[[R:.*]] = distributed.get_rank : i32
  %r = distributed.get_rank : i32
  // CHECK: %[[N:.*]] = distributed.get_num_ranks : i32
  %n = distributed.get_num_ranks axis = 0 : i32
  // CHECK: return %[[R]], %[[N]]
  return %r, %n : i32, i32
}
