// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A notify cut off before its pointer type.
// CHECK: error: expected non-function type

func.func @f(%sig: memref<16xi32>, %v: i64, %peer: i32) {
  distributed.notify %sig, %v, %peer sig_op = set scope = gpu :