// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// An operand used with another type than it was defined with.
// CHECK: error: use of value '%e' expects different type than prior uses: 'i32' vs 'i64'

func.func @f(%sig: memref<16xi32>, %e: i64) -> i32 {
  %c1 = arith.constant 1 : i32
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  return %t : i32
}
