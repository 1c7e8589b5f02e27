// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A generic notify with two operands instead of three.
// CHECK: error: 'distributed.notify' op expected 3 operands, but found 2

func.func @f(%sig: memref<16xi32>, %v: i64) {
  "distributed.notify"(%sig, %v) : (memref<16xi32>, i64) -> ()
  return
}
