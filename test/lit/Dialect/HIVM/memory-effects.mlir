// RUN: tdist-opt %s --cse --canonicalize | FileCheck %s

// A call with no_side_effect has no memory effects: CSE merges identical
// ones and dead ones are erased. Any other call may read and write memory
// and stays.

// CHECK-LABEL: func.func @pure_calls_merge_and_die
func.func @pure_calls_merge_and_die() -> (i32, i32) {
  // CHECK: %[[ME:.*]] = hivm.hir.custom {no_side_effect} "dist.aclshmem_my_pe" -> i32
  // CHECK-NOT: hivm.hir.custom
  // CHECK: return %[[ME]], %[[ME]]
  %me = hivm.hir.custom {no_side_effect} "dist.aclshmem_my_pe" -> i32
  %again = hivm.hir.custom {no_side_effect} "dist.aclshmem_my_pe" -> i32
  %unused = hivm.hir.custom {no_side_effect} "dist.aclshmem_n_pes" -> i32
  return %me, %again : i32, i32
}

// CHECK-LABEL: func.func @effectful_calls_stay
func.func @effectful_calls_stay(%signal: memref<16xi32>) -> (i32, i32) {
  // CHECK: %[[FIRST:.*]] = hivm.hir.custom "user.poll" ins
  // CHECK: %[[SECOND:.*]] = hivm.hir.custom "user.poll" ins
  // CHECK: hivm.hir.custom "user.poll" ins
  // CHECK: return %[[FIRST]], %[[SECOND]]
  %first = hivm.hir.custom "user.poll" ins(%signal : memref<16xi32>) -> i32
  %second = hivm.hir.custom "user.poll" ins(%signal : memref<16xi32>) -> i32
  %unused = hivm.hir.custom "user.poll" ins(%signal : memref<16xi32>) -> i32
  return %first, %second : i32, i32
}
