// RUN: not tdist-opt %s 2>&1 | FileCheck %s \
// RUN:   --implicit-check-not='Stack dump' --implicit-check-not='PLEASE submit'
// An LLVM pointer with a non-numeric address space.
// CHECK: error: expected integer value

func.func @f(%p: !llvm.ptr<foo>, %peer: i32) {
  %r = distributed.symm_at %p, %peer : !llvm.ptr<foo>
  return
}
