// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// An extern_call symbol without its closing quote.
// CHECK: error: expected '"' in string literal

func.func @f() {
  distributed.extern_call "aclshmem_quiet() : () -> ()
  return
}
