// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A notify without its rank.
// CHECK: error: expected ','

func.func @f(%sig: memref<16xi32>, %v: i64) {
  distributed.notify %sig, %v sig_op = set scope = gpu : memref<16xi32>
  return
}
