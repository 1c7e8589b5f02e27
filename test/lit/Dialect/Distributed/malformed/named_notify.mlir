// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A notify, which has no result, given a result name.
// CHECK: error: cannot name an operation with no results

func.func @f(%sig: memref<16xi32>, %v: i64, %peer: i32) {
  %x = distributed.notify %sig, %v, %peer sig_op = set scope = gpu : memref<16xi32>
  return
}
