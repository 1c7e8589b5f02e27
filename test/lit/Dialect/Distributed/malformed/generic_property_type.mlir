// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A generic wait whose scope property is a string.
// CHECK: error: invalid properties {scope = "gpu"} for op distributed.wait: Invalid attribute `scope` in property conversion: "gpu"

func.func @f(%sig: memref<16xi32>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %t = "distributed.wait"(%sig, %c1, %e) <{scope = "gpu"}> : (memref<16xi32>, i32, i32) -> i32
  return %t : i32
}
