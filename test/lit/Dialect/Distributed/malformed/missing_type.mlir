// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A symm_at without its trailing type.
// CHECK: error: expected ':'

func.func @f(%buf: memref<16xf32>, %peer: i32) -> memref<16xf32> {
  %r = distributed.symm_at %buf, %peer
  return %r : memref<16xf32>
}
