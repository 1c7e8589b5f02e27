// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A wait scope that is not gpu, cta or sys.
// CHECK: error: custom op 'distributed.wait' expected string or keyword containing one of the following enum values for attribute 'scope' [gpu, cta, sys]

func.func @f(%sig: memref<16xi32>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %t = distributed.wait %sig, %c1, %e scope = warp semantic = acquire : memref<16xi32>, i32, i32 -> i32
  return %t : i32
}
