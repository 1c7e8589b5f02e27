// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A generic wait without its token.
// CHECK: error: 'distributed.wait' op requires one result

func.func @f(%sig: memref<16xi32>, %e: i32) {
  %c1 = arith.constant 1 : i32
  "distributed.wait"(%sig, %c1, %e) : (memref<16xi32>, i32, i32) -> ()
  return
}
