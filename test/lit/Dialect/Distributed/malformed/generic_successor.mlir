// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A generic notify with a successor block.
// CHECK: error: successors in non-terminator

func.func @f(%sig: memref<16xi32>, %v: i64, %peer: i32) {
  "distributed.notify"(%sig, %v, %peer)[^bb1] : (memref<16xi32>, i64, i32) -> ()
^bb1:
  return
}
