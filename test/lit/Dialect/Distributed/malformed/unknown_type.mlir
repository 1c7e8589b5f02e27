// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A pointer type with an unknown element type.
// CHECK: error: expected non-function type

func.func @f(%sig: memref<16xq32>, %v: i64, %peer: i32) {
  distributed.notify %sig, %v, %peer sig_op = set scope = gpu : memref<16xq32>
  return
}
