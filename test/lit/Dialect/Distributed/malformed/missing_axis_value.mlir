// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A rank query whose axis has no value.
// CHECK: error: expected attribute value

func.func @f() -> i32 {
  %r = distributed.get_rank axis = : i32
  return %r : i32
}
