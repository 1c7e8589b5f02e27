// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// An axis given as a string.
// CHECK: error: custom op 'distributed.get_num_ranks' invalid kind of attribute specified

func.func @f() -> i32 {
  %n = distributed.get_num_ranks axis = "world" : i32
  return %n : i32
}
