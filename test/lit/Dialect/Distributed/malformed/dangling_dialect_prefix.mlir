// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// A dialect prefix without an operation name.
// CHECK: error: custom op 'distributed.' is unknown (tried 'func.distributed.' as well)

func.func @f() {
  distributed.
}
