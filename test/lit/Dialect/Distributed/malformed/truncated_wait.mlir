// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A wait cut off after its second operand.
// CHECK: error: expected SSA operand

func.func @f(%sig: memref<16xi32>, %e: i32) {
  %c1 = arith.constant 1 : i32
  %t = distributed.wait %sig, %c1,