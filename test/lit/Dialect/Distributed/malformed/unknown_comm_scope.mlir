// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A notify scope that is not a CommScope keyword.
// CHECK: error: custom op 'distributed.notify' expected string or keyword containing one of the following enum values for attribute 'commScope' [gpu, intra_node, inter_node]

func.func @f(%sig: memref<16xi32>, %v: i64, %peer: i32) {
  distributed.notify %sig, %v, %peer sig_op = set scope = cluster : memref<16xi32>
  return
}
