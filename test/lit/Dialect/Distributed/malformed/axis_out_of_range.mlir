// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// An axis that does not fit in 32 bits.
// CHECK: error: integer constant out of range for attribute

func.func @f() -> i32 {
  %n = distributed.get_num_ranks axis = 99999999999 : i32
  return %n : i32
}
