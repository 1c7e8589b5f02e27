// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// Tokens after a complete operation.
// CHECK: error: expected operation name in quotes

func.func @f() -> i32 {
  %r = distributed.get_rank : i32 i32
  return %r : i32
}
