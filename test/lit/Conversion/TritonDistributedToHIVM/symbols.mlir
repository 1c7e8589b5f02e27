// RUN: tdist-opt %s -allow-unregistered-dialect --convert-triton-distributed-to-hivm \
// RUN:   | FileCheck %s

// Symbol names and type mangling (seed 001 §3.3): each op becomes a
// hivm.hir.custom named "dist." + symbol.

// CHECK-LABEL: func.func @symm_at_element_types
// CHECK-SAME: (%[[BF16:[^:]*]]: memref<8xbf16>, %[[F16:[^:]*]]: memref<8xf16>, %[[F32:[^:]*]]: memref<8xf32>, %[[F64:[^:]*]]: memref<8xf64>
// CHECK-SAME: %[[I8:[^:]*]]: memref<8xi8>, %[[I16:[^:]*]]: memref<8xi16>, %[[I32:[^:]*]]: memref<8xi32>, %[[I64:[^:]*]]: memref<8xi64>
// CHECK-SAME: %[[U8:[^:]*]]: memref<8xui8>, %[[U16:[^:]*]]: memref<8xui16>, %[[U32:[^:]*]]: memref<8xui32>, %[[U64:[^:]*]]: memref<8xui64>
// CHECK-SAME: %[[PEER:[^:]*]]: i32)
func.func @symm_at_element_types(
    %bf16: memref<8xbf16>, %f16: memref<8xf16>, %f32: memref<8xf32>, %f64: memref<8xf64>,
    %i8: memref<8xi8>, %i16: memref<8xi16>, %i32: memref<8xi32>, %i64: memref<8xi64>,
    %u8: memref<8xui8>, %u16: memref<8xui16>, %u32: memref<8xui32>, %u64: memref<8xui64>,
    %peer: i32) {
  // CHECK: "dist.aclshmem_ptr_bfloat16" ins(%[[BF16]], %[[PEER]] : memref<8xbf16>, i32) -> memref<8xbf16>
  %p_bf16 = distributed.symm_at %bf16, %peer : memref<8xbf16>
  // CHECK: "dist.aclshmem_ptr_half" ins(%[[F16]], %[[PEER]] : memref<8xf16>, i32) -> memref<8xf16>
  %p_f16 = distributed.symm_at %f16, %peer : memref<8xf16>
  // CHECK: "dist.aclshmem_ptr_float" ins(%[[F32]], %[[PEER]] : memref<8xf32>, i32) -> memref<8xf32>
  %p_f32 = distributed.symm_at %f32, %peer : memref<8xf32>
  // CHECK: "dist.aclshmem_ptr_double" ins(%[[F64]], %[[PEER]] : memref<8xf64>, i32) -> memref<8xf64>
  %p_f64 = distributed.symm_at %f64, %peer : memref<8xf64>
  // CHECK: "dist.aclshmem_ptr_int8" ins(%[[I8]], %[[PEER]] : memref<8xi8>, i32) -> memref<8xi8>
  %p_i8 = distributed.symm_at %i8, %peer : memref<8xi8>
  // CHECK: "dist.aclshmem_ptr_int16" ins(%[[I16]], %[[PEER]] : memref<8xi16>, i32) -> memref<8xi16>
  %p_i16 = distributed.symm_at %i16, %peer : memref<8xi16>
  // CHECK: "dist.aclshmem_ptr_int32" ins(%[[I32]], %[[PEER]] : memref<8xi32>, i32) -> memref<8xi32>
  %p_i32 = distributed.symm_at %i32, %peer : memref<8xi32>
  // CHECK: "dist.aclshmem_ptr_int64" ins(%[[I64]], %[[PEER]] : memref<8xi64>, i32) -> memref<8xi64>
  %p_i64 = distributed.symm_at %i64, %peer : memref<8xi64>
  // CHECK: "dist.aclshmem_ptr_uint8" ins(%[[U8]], %[[PEER]] : memref<8xui8>, i32) -> memref<8xui8>
  %p_u8 = distributed.symm_at %u8, %peer : memref<8xui8>
  // CHECK: "dist.aclshmem_ptr_uint16" ins(%[[U16]], %[[PEER]] : memref<8xui16>, i32) -> memref<8xui16>
  %p_u16 = distributed.symm_at %u16, %peer : memref<8xui16>
  // CHECK: "dist.aclshmem_ptr_uint32" ins(%[[U32]], %[[PEER]] : memref<8xui32>, i32) -> memref<8xui32>
  %p_u32 = distributed.symm_at %u32, %peer : memref<8xui32>
  // CHECK: "dist.aclshmem_ptr_uint64" ins(%[[U64]], %[[PEER]] : memref<8xui64>, i32) -> memref<8xui64>
  %p_u64 = distributed.symm_at %u64, %peer : memref<8xui64>
  // Results are used so that the driver does not erase the (read-only) ops.
  "test.use"(%p_bf16, %p_f16, %p_f32, %p_f64, %p_i8, %p_i16, %p_i32, %p_i64, %p_u8, %p_u16, %p_u32, %p_u64)
      : (memref<8xbf16>, memref<8xf16>, memref<8xf32>, memref<8xf64>, memref<8xi8>, memref<8xi16>,
         memref<8xi32>, memref<8xi64>, memref<8xui8>, memref<8xui16>, memref<8xui32>, memref<8xui64>) -> ()
  return
}

// The rank queries take no operands: the axis is dropped.
// CHECK-LABEL: func.func @rank_queries
func.func @rank_queries() -> (i32, i32) {
  // CHECK: %[[ME:.*]] = hivm.hir.custom
  // CHECK-SAME: symbol = "aclshmem_my_pe"} "dist.aclshmem_my_pe" -> i32
  %me = distributed.get_rank : i32
  // CHECK: %[[N:.*]] = hivm.hir.custom
  // CHECK-SAME: symbol = "aclshmem_n_pes"} "dist.aclshmem_n_pes" -> i32
  %n = distributed.get_num_ranks axis = 0 : i32
  // CHECK: return %[[ME]], %[[N]]
  return %me, %n : i32, i32
}

// wait is named after the signal type: the pointee of a memref, else (an
// opaque pointer, a tensor of them) the type of the wait value.
// CHECK-LABEL: func.func @wait_types
// CHECK-SAME: (%[[S32:[^:]*]]: memref<16xi32>, %[[S64:[^:]*]]: memref<8xui64>, %[[OPAQUE:[^:]*]]: !llvm.ptr, %[[PTRS:[^:]*]]: tensor<2x!llvm.ptr>, %[[V16:[^:]*]]: i16, %[[U1:[^:]*]]: ui64)
func.func @wait_types(%s32: memref<16xi32>, %s64: memref<8xui64>, %opaque: !llvm.ptr,
                      %ptrs: tensor<2x!llvm.ptr>, %v16: i16, %u1: ui64) -> (i32, i32, i32, tensor<2xi32>) {
  %c1 = arith.constant 1 : i32
  // CHECK: "dist.aclshmem_wait_int32" ins(%[[S32]], %{{.*}}, %{{.*}} : memref<16xi32>, i32, i32) -> i32
  %t0 = distributed.wait %s32, %c1, %c1 scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  // CHECK: "dist.aclshmem_wait_uint64" ins(%[[S64]], %{{.*}}, %[[U1]] : memref<8xui64>, i32, ui64) -> i32
  %t1 = distributed.wait %s64, %c1, %u1 scope = gpu semantic = acquire : memref<8xui64>, i32, ui64 -> i32
  // CHECK: "dist.aclshmem_wait_int16" ins(%[[OPAQUE]], %{{.*}}, %[[V16]] : !llvm.ptr, i32, i16) -> i32
  %t2 = distributed.wait %opaque, %c1, %v16 scope = gpu semantic = acquire : !llvm.ptr, i32, i16 -> i32
  // CHECK: "dist.aclshmem_wait_int16" ins(%[[PTRS]], %{{.*}}, %[[V16]] : tensor<2x!llvm.ptr>, i32, i16) outs(%{{.*}} : tensor<2xi32>) -> tensor<2xi32>
  %t3 = distributed.wait %ptrs, %c1, %v16 scope = gpu semantic = acquire : tensor<2x!llvm.ptr>, i32, i16 -> tensor<2xi32>
  return %t0, %t1, %t2, %t3 : i32, i32, i32, tensor<2xi32>
}

// consume_token is named after the element type and the rank N of the
// pointer: `_ptr_1d` up to rank 1, `_ptr_<N>d` above. A ranked tensor is named
// as the memref it bufferizes to.
// CHECK-LABEL: func.func @consume_token_ranks
// CHECK-SAME: (%[[R0:[^:]*]]: memref<f32>, %[[R1:[^:]*]]: memref<?xbf16>, %[[R2:[^:]*]]: memref<128x32xf16, strided<[?, 1], offset: ?>>, %[[R3:[^:]*]]: memref<2x4x8xsi32>, %[[TILE:[^:]*]]: tensor<4x8xf32>, %[[TOKEN:[^:]*]]: i32)
func.func @consume_token_ranks(%r0: memref<f32>, %r1: memref<?xbf16>,
                               %r2: memref<128x32xf16, strided<[?, 1], offset: ?>>,
                               %r3: memref<2x4x8xsi32>, %tile: tensor<4x8xf32>, %token: i32)
    -> (memref<f32>, memref<?xbf16>, memref<128x32xf16, strided<[?, 1], offset: ?>>,
        memref<2x4x8xsi32>, tensor<4x8xf32>) {
  // CHECK: "dist.aclshmem_consume_token_float_ptr_1d" ins(%[[R0]], %[[TOKEN]] : memref<f32>, i32) -> memref<f32>
  %ordered0 = distributed.consume_token %r0, %token : memref<f32>, i32
  // CHECK: "dist.aclshmem_consume_token_bfloat16_ptr_1d" ins(%[[R1]], %[[TOKEN]] : memref<?xbf16>, i32) -> memref<?xbf16>
  %ordered1 = distributed.consume_token %r1, %token : memref<?xbf16>, i32
  // CHECK: "dist.aclshmem_consume_token_half_ptr_2d" ins(%[[R2]], %[[TOKEN]]
  %ordered2 = distributed.consume_token %r2, %token : memref<128x32xf16, strided<[?, 1], offset: ?>>, i32
  // CHECK: "dist.aclshmem_consume_token_int32_ptr_3d" ins(%[[R3]], %[[TOKEN]] : memref<2x4x8xsi32>, i32) -> memref<2x4x8xsi32>
  %ordered3 = distributed.consume_token %r3, %token : memref<2x4x8xsi32>, i32
  // CHECK: "dist.aclshmem_consume_token_float_ptr_2d" ins(%[[TILE]], %[[TOKEN]] : tensor<4x8xf32>, i32)
  %ordered4 = distributed.consume_token %tile, %token : tensor<4x8xf32>, i32
  return %ordered0, %ordered1, %ordered2, %ordered3, %ordered4
      : memref<f32>, memref<?xbf16>, memref<128x32xf16, strided<[?, 1], offset: ?>>,
        memref<2x4x8xsi32>, tensor<4x8xf32>
}

// extern_call keeps its own symbol and operands.
// CHECK-LABEL: func.func @extern_call_symbol
// CHECK-SAME: (%[[DST:[^:]*]]: memref<64xf16>, %[[SRC:[^:]*]]: memref<64xf16>, %[[PEER:[^:]*]]: i32)
func.func @extern_call_symbol(%dst: memref<64xf16>, %src: memref<64xf16>, %peer: i32) {
  // CHECK: %[[BYTES:.*]] = arith.constant 128 : i64
  %bytes = arith.constant 128 : i64
  // CHECK: hivm.hir.custom
  // CHECK-SAME: symbol = "aclshmem_putmem_nbi"} "dist.aclshmem_putmem_nbi"
  // CHECK-SAME: ins(%[[DST]], %[[SRC]], %[[BYTES]], %[[PEER]] : memref<64xf16>, memref<64xf16>, i64, i32){{$}}
  distributed.extern_call "aclshmem_putmem_nbi"(%dst, %src, %bytes, %peer)
      : (memref<64xf16>, memref<64xf16>, i64, i32) -> ()
  // CHECK-NOT: distributed.
  return
}
