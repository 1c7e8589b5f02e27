// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// An extern_call naming its symbol with @ instead of a string.
// CHECK: error: custom op 'distributed.extern_call' invalid kind of attribute specified

func.func @f() {
  distributed.extern_call @aclshmem_quiet() : () -> ()
  return
}
