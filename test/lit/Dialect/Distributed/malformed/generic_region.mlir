// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A generic rank query with a region.
// CHECK: error: 'distributed.get_rank' op requires zero regions

func.func @f() -> i32 {
  %r = "distributed.get_rank"() ({
  }) : () -> i32
  return %r : i32
}
