// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A symm_at without its rank.
// CHECK: error: expected ','

func.func @f(%buf: memref<16xf32>) -> memref<16xf32> {
  %r = distributed.symm_at %buf : memref<16xf32>
  return %r : memref<16xf32>
}
