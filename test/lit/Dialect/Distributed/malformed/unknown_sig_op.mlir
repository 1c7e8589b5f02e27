// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A notify sig_op that is not set or add.
// CHECK: error: custom op 'distributed.notify' expected string or keyword containing one of the following enum values for attribute 'sigOp' [set, add]

func.func @f(%sig: memref<16xi32>, %v: i64, %peer: i32) {
  distributed.notify %sig, %v, %peer sig_op = xor scope = gpu : memref<16xi32>
  return
}
