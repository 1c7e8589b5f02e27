// RUN: tdist-opt %s --convert-hivm-distributed-to-call --split-input-file --verify-diagnostics | FileCheck %s

// No memref involved: the link name is _mlir_ciface_ + symbol, with no suffix.
// The declarations come first, at the top of the module.
// CHECK-DAG: func.func private @_mlir_ciface_aclshmem_my_pe() -> i32{{$}}
// CHECK-DAG: func.func private @_mlir_ciface_aclshmem_int64_p(!llvm.ptr, i64, i32){{$}}
// CHECK-LABEL: func.func @scalar_symbols
// CHECK: %[[PE:.*]] = call @_mlir_ciface_aclshmem_my_pe() : () -> i32
// CHECK: %[[N:.*]] = call @_mlir_ciface_aclshmem_n_pes() : () -> i32
// CHECK: call @_mlir_ciface_aclshmem_int64_p(%{{.*}}, %{{.*}}, %[[PE]]) : (!llvm.ptr, i64, i32) -> ()
// CHECK-NOT: hivm.hir.custom
func.func @scalar_symbols(%p: !llvm.ptr, %v: i64) -> i32 {
  %pe = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_my_pe"} "dist.aclshmem_my_pe" -> i32
  %n = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_n_pes"} "dist.aclshmem_n_pes" -> i32
  hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_int64_p"} "dist.aclshmem_int64_p" ins(%p, %v, %pe : !llvm.ptr, i64, i32)
  %sum = arith.addi %pe, %n : i32
  return %sum : i32
}

// -----

// Memrefs: no prefix, one _m<rank> per memref argument then result, a C interface, and every
// layout cast to the canonical type of its rank so that one declaration serves all callers.
// The declarations come first, at the top of the module.
// CHECK-DAG: func.func private @aclshmem_ptr_float_m1_m1(memref<?xf32, strided<[?], offset: ?>>, i32) -> memref<?xf32, strided<[?], offset: ?>> attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @aclshmem_wait_int32_m1(memref<?xi32, strided<[?], offset: ?>>, i32, i32) -> i32 attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @memref_symbols
// CHECK-SAME: %[[BUF:[^:]*]]: memref<16xf32>
// CHECK-SAME: %[[SLOT:[^:]*]]: memref<1xi32, strided<[1], offset: ?>>
// CHECK: %[[IN:.*]] = memref.cast %[[BUF]] : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK: %[[OUT:.*]] = call @aclshmem_ptr_float_m1_m1(%[[IN]], %{{.*}}) : (memref<?xf32, strided<[?], offset: ?>>, i32) -> memref<?xf32, strided<[?], offset: ?>>
// CHECK: %[[REMOTE:.*]] = memref.cast %[[OUT]] : memref<?xf32, strided<[?], offset: ?>> to memref<16xf32>
// CHECK: %[[SIG:.*]] = memref.cast %[[SLOT]]
// CHECK: call @aclshmem_wait_int32_m1(%[[SIG]], %{{.*}}, %{{.*}})
// CHECK: call @aclshmem_ptr_float_m1_m1(
func.func @memref_symbols(%buf: memref<16xf32>, %slot: memref<1xi32, strided<[1], offset: ?>>,
                          %other: memref<?xf32>, %pe: i32, %v: i32) -> memref<16xf32> {
  %c1 = arith.constant 1 : i32
  %remote = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_ptr_float"} "dist.aclshmem_ptr_float"
      ins(%buf, %pe : memref<16xf32>, i32) -> memref<16xf32>
  %token = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_wait_int32"} "dist.aclshmem_wait_int32"
      ins(%slot, %c1, %v : memref<1xi32, strided<[1], offset: ?>>, i32, i32) -> i32
  %again = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_ptr_float"} "dist.aclshmem_ptr_float"
      ins(%other, %pe : memref<?xf32>, i32) -> memref<?xf32>
  return %remote : memref<16xf32>
}

// -----

// A wait's number of barriers is an operand like any other: a dynamic one is passed on.
// CHECK-LABEL: func.func @dynamic_wait_count
// CHECK-SAME: %[[SIGNALS:[^:]*]]: memref<64xi32>, %[[N:[^:]*]]: i32, %[[V:[^:]*]]: i32
// CHECK: %[[SIG:.*]] = memref.cast %[[SIGNALS]] : memref<64xi32> to memref<?xi32, strided<[?], offset: ?>>
// CHECK: %[[TOKEN:.*]] = call @aclshmem_wait_int32_m1(%[[SIG]], %[[N]], %[[V]]) : (memref<?xi32, strided<[?], offset: ?>>, i32, i32) -> i32
// CHECK: return %[[TOKEN]]
func.func @dynamic_wait_count(%signals: memref<64xi32>, %n: i32, %v: i32) -> i32 {
  %token = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_wait_int32"} "dist.aclshmem_wait_int32"
      ins(%signals, %n, %v : memref<64xi32>, i32, i32) -> i32
  return %token : i32
}

// -----

// Ranks are part of the name; a memref out is an argument, a tensor out only gives the type.
// CHECK-LABEL: func.func @outs_and_ranks
// CHECK: call @aclshmem_getmem_m2_m1(%{{.*}}, %{{.*}}) : (memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?xf16, strided<[?], offset: ?>>) -> ()
// CHECK: %{{.*}} = call @_mlir_ciface_aclshmem_consume_token_half_ptr_1d(%{{.*}}, %{{.*}}) : (tensor<4x!llvm.ptr>, i32) -> tensor<4x!llvm.ptr>
func.func @outs_and_ranks(%src: memref<8x8xf16>, %dst: memref<64xf16>, %ptrs: tensor<4x!llvm.ptr>, %t: i32) -> tensor<4x!llvm.ptr> {
  hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_getmem"} "dist.aclshmem_getmem"
      ins(%src : memref<8x8xf16>) outs(%dst : memref<64xf16>)
  %empty = tensor.empty() : tensor<4x!llvm.ptr>
  %r = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_consume_token_half_ptr_1d"} "dist.aclshmem_consume_token_half_ptr_1d"
      ins(%ptrs, %t : tensor<4x!llvm.ptr>, i32) outs(%empty : tensor<4x!llvm.ptr>) -> tensor<4x!llvm.ptr>
  return %r : tensor<4x!llvm.ptr>
}

// -----

// A custom op that is not distributed is none of this pass's business.
// CHECK-LABEL: func.func @not_distributed
// CHECK: hivm.hir.custom "user.scale"
// CHECK-NOT: func.call
func.func @not_distributed(%x: memref<4xf32>) {
  hivm.hir.custom "user.scale" ins(%x : memref<4xf32>)
  return
}
