// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A rank query bound to two results.
// CHECK: error: operation defines 1 results but was provided 2 to bind

func.func @f() -> i32 {
  %a, %b = distributed.get_rank : i32
  return %a : i32
}
