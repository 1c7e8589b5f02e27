// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// An operation the dialect does not have.
// CHECK: error: custom op 'distributed.barrier_all' is unknown

func.func @f() {
  distributed.barrier_all
  return
}
