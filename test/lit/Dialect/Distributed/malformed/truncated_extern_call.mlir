// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// An extern_call cut off inside its operand list.
// CHECK: error: expected ')'

func.func @f() {
  distributed.extern_call "aclshmem_quiet"(