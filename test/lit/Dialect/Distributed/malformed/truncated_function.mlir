// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A function cut off after a notify, without its terminator or brace.
// CHECK: error: expected operation name in quotes

func.func @f(%sig: memref<16xi32>, %v: i64, %peer: i32) {
  distributed.notify %sig, %v, %peer sig_op = set scope = gpu : memref<16xi32>
