// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// An out-of-range enum smuggled in through the attribute dictionary.
// CHECK: error: custom op 'distributed.wait' 'distributed.wait' op attribute 'scope' failed to satisfy constraint: visibility scope of a wait

func.func @f(%sig: memref<16xi32>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire {scope = 9 : i32} : memref<16xi32>, i32, i32 -> i32
  return %t : i32
}
