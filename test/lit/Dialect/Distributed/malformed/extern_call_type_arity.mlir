// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// An extern_call whose function type has more inputs than operands.
// CHECK: error: custom op 'distributed.extern_call' number of operands and types do not match: got 1 operands and 2 types

func.func @f(%peer: i32) {
  distributed.extern_call "aclshmem_barrier"(%peer) : (i32, i32) -> ()
  return
}
