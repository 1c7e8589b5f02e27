// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A notify whose rank was never defined.
// CHECK: error: use of undeclared SSA value name

func.func @f(%sig: memref<16xi32>, %v: i64) {
  distributed.notify %sig, %v, %nope sig_op = set scope = gpu : memref<16xi32>
  return
}
