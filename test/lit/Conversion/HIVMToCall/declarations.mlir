// RUN: tdist-opt %s --convert-hivm-distributed-to-call --split-input-file --verify-diagnostics | FileCheck %s
// A clash is reported once, not once per rewrite attempt (which -verify-diagnostics lets pass):
// RUN: not tdist-opt %s --convert-hivm-distributed-to-call --split-input-file 2>&1 | FileCheck %s --check-prefix=ONCE

// One link name, one declaration. The library's C functions know no signedness, so signed
// integers, as scalars and as memref elements, are passed as the signless ones of their width:
// an i32 and an si32 signal call one aclshmemx_signal_op_m1, an i64 and an si64 one
// aclshmem_int64_p_m1. The signed values reach the call through an unrealized_conversion_cast,
// which the LLVM lowering erases.
// CHECK-DAG: func.func private @aclshmemx_signal_op_m1(memref<?xi32, strided<[?], offset: ?>>, i32, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @aclshmem_int64_p_m1(memref<?xi64, strided<[?], offset: ?>>, i64, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @aclshmem_wait_int32_m1(memref<?xi32, strided<[?], offset: ?>>, i32, i32) -> i32 attributes {llvm.emit_c_interface}
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @signed_and_signless
// CHECK-SAME: %[[S32:[^:]*]]: memref<16xi32>, %[[SS32:[^:]*]]: memref<16xsi32>, %[[S64:[^:]*]]: memref<16xi64>, %[[SS64:[^:]*]]: memref<16xsi64>,
// CHECK-SAME: %[[V32:[^:]*]]: i32, %[[SV32:[^:]*]]: si32, %[[V64:[^:]*]]: i64, %[[PE:[^:]*]]: i32
// CHECK: %[[A:.*]] = memref.cast %[[S32]] : memref<16xi32> to memref<?xi32, strided<[?], offset: ?>>
// CHECK: call @aclshmemx_signal_op_m1(%[[A]], %[[V32]], %[[V32]], %[[PE]])
// CHECK: %[[B:.*]] = memref.cast %[[SS32]] : memref<16xsi32> to memref<?xsi32, strided<[?], offset: ?>>
// CHECK: %[[B_SIGNLESS:.*]] = builtin.unrealized_conversion_cast %[[B]] : memref<?xsi32, strided<[?], offset: ?>> to memref<?xi32, strided<[?], offset: ?>>
// CHECK: call @aclshmemx_signal_op_m1(%[[B_SIGNLESS]], %[[V32]], %[[V32]], %[[PE]])
// CHECK: %[[C:.*]] = memref.cast %[[S64]]
// CHECK: call @aclshmem_int64_p_m1(%[[C]], %[[V64]], %[[PE]])
// CHECK: %[[D:.*]] = memref.cast %[[SS64]] : memref<16xsi64> to memref<?xsi64, strided<[?], offset: ?>>
// CHECK: %[[D_SIGNLESS:.*]] = builtin.unrealized_conversion_cast %[[D]] : memref<?xsi64, strided<[?], offset: ?>> to memref<?xi64, strided<[?], offset: ?>>
// CHECK: call @aclshmem_int64_p_m1(%[[D_SIGNLESS]], %[[V64]], %[[PE]])
// CHECK: %[[E:.*]] = memref.cast %[[SS32]]
// CHECK: %[[E_SIGNLESS:.*]] = builtin.unrealized_conversion_cast %[[E]]
// CHECK: %[[VALUE:.*]] = builtin.unrealized_conversion_cast %[[SV32]] : si32 to i32
// CHECK: %[[TOKEN:.*]] = call @aclshmem_wait_int32_m1(%[[E_SIGNLESS]], %[[V32]], %[[VALUE]])
// CHECK: return %[[TOKEN]]
func.func @signed_and_signless(%s32: memref<16xi32>, %ss32: memref<16xsi32>, %s64: memref<16xi64>,
                               %ss64: memref<16xsi64>, %v32: i32, %sv32: si32, %v64: i64, %pe: i32) -> i32 {
  hivm.hir.custom {hivm.is_distributed, symbol = "aclshmemx_signal_op"} "dist.aclshmemx_signal_op"
      ins(%s32, %v32, %v32, %pe : memref<16xi32>, i32, i32, i32)
  hivm.hir.custom {hivm.is_distributed, symbol = "aclshmemx_signal_op"} "dist.aclshmemx_signal_op"
      ins(%ss32, %v32, %v32, %pe : memref<16xsi32>, i32, i32, i32)
  hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_int64_p"} "dist.aclshmem_int64_p"
      ins(%s64, %v64, %pe : memref<16xi64>, i64, i32)
  hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_int64_p"} "dist.aclshmem_int64_p"
      ins(%ss64, %v64, %pe : memref<16xsi64>, i64, i32)
  %token = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_wait_int32"} "dist.aclshmem_wait_int32"
      ins(%ss32, %v32, %sv32 : memref<16xsi32>, i32, si32) -> i32
  return %token : i32
}

// -----

// A signed result comes back from the signless one: cast, then the caller's layout.
// CHECK: func.func private @aclshmem_consume_token_int32_ptr_1d_m1_m1(memref<?xi32, strided<[?], offset: ?>>, i32) -> memref<?xi32, strided<[?], offset: ?>>
// CHECK-LABEL: func.func @signed_result
// CHECK-SAME: %[[DATA:[^:]*]]: memref<8xsi32>, %[[TOKEN:[^:]*]]: i32
// CHECK: %[[IN:.*]] = memref.cast %[[DATA]] : memref<8xsi32> to memref<?xsi32, strided<[?], offset: ?>>
// CHECK: %[[IN_SIGNLESS:.*]] = builtin.unrealized_conversion_cast %[[IN]] : memref<?xsi32, strided<[?], offset: ?>> to memref<?xi32, strided<[?], offset: ?>>
// CHECK: %[[OUT:.*]] = call @aclshmem_consume_token_int32_ptr_1d_m1_m1(%[[IN_SIGNLESS]], %[[TOKEN]])
// CHECK: %[[OUT_SIGNED:.*]] = builtin.unrealized_conversion_cast %[[OUT]] : memref<?xi32, strided<[?], offset: ?>> to memref<?xsi32, strided<[?], offset: ?>>
// CHECK: %[[READY:.*]] = memref.cast %[[OUT_SIGNED]] : memref<?xsi32, strided<[?], offset: ?>> to memref<8xsi32>
// CHECK: return %[[READY]]
func.func @signed_result(%data: memref<8xsi32>, %token: i32) -> memref<8xsi32> {
  %ready = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_consume_token_int32_ptr_1d"} "dist.aclshmem_consume_token_int32_ptr_1d"
      ins(%data, %token : memref<8xsi32>, i32) -> memref<8xsi32>
  return %ready : memref<8xsi32>
}

// -----

// Unsigned integers keep their type: the library names them apart (uint32, not int32).
// CHECK-DAG: func.func private @_mlir_ciface_user_store(!llvm.ptr, ui32)
// CHECK-DAG: func.func private @_mlir_ciface_user_store_signed(!llvm.ptr, i32)
// CHECK-LABEL: func.func @unsigned_kept
func.func @unsigned_kept(%p: !llvm.ptr, %u: ui32, %s: si32) {
  hivm.hir.custom {hivm.is_distributed, symbol = "user_store"} "dist.user_store" ins(%p, %u : !llvm.ptr, ui32)
  hivm.hir.custom {hivm.is_distributed, symbol = "user_store_signed"} "dist.user_store_signed" ins(%p, %s : !llvm.ptr, si32)
  return
}

// -----

// The link name is already taken by a function of another type: one error.
// ONCE: error: 'hivm.hir.custom' op links to '_mlir_ciface_aclshmem_my_pe'
// ONCE-NOT: op links to '_mlir_ciface_aclshmem_my_pe'
// expected-note @+1 {{declared here}}
func.func private @_mlir_ciface_aclshmem_my_pe() -> i64

func.func @clash_with_declaration() -> i32 {
  // expected-error @+1 {{links to '_mlir_ciface_aclshmem_my_pe', already declared with type '() -> i64', not '() -> i32'}}
  %pe = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_my_pe"} "dist.aclshmem_my_pe" -> i32
  return %pe : i32
}

// -----

// Two calls of one symbol with different widths are a genuine clash, reported once, at the
// call that disagrees with the first.
// ONCE: error: 'hivm.hir.custom' op links to '_mlir_ciface_user_store'
// ONCE-NOT: op links to '_mlir_ciface_user_store'
func.func @clash_between_calls(%p: !llvm.ptr, %narrow: i32, %wide: i64) -> i32 {
  %pe = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_my_pe"} "dist.aclshmem_my_pe" -> i32
  // expected-note @+1 {{first linked here}}
  hivm.hir.custom {hivm.is_distributed, symbol = "user_store"} "dist.user_store" ins(%p, %narrow : !llvm.ptr, i32)
  // expected-error @+1 {{links to '_mlir_ciface_user_store', already declared with type '(!llvm.ptr, i32) -> ()', not '(!llvm.ptr, i64) -> ()'}}
  hivm.hir.custom {hivm.is_distributed, symbol = "user_store"} "dist.user_store" ins(%p, %wide : !llvm.ptr, i64)
  return %pe : i32
}
