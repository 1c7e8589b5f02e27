// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A wait with two operand types for three operands.
// CHECK: error: expected ','

func.func @f(%sig: memref<16xi32>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi32>, i32 -> i32
  return %t : i32
}
