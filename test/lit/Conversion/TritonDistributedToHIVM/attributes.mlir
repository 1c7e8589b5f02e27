// RUN: tdist-opt %s --convert-triton-distributed-to-hivm | FileCheck %s

// The attributes of each hivm.hir.custom (seed 001 §3.4): the source op's
// own, then hivm.tcore_type, hivm.pipe = PIPE_S, hivm.vf_mode = SIMD,
// hivm.is_distributed, symbol, gm_addr_args_indices, and no_side_effect
// exactly where the source op has no memory effects. The dictionaries are
// checked whole, so an attribute too many fails the test.

// CHECK-LABEL: func.func @wait_reads
func.func @wait_reads(%signal: memref<16xi32>, %epoch: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  // CHECK: %[[TOKEN:.*]] = hivm.hir.custom {gm_addr_args_indices = array<i32: 0>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, scope = 3 : i32, semantic = 1 : i32, symbol = "aclshmem_wait_int32"} "dist.aclshmem_wait_int32"
  %token = distributed.wait %signal, %c1, %epoch scope = sys semantic = relaxed : memref<16xi32>, i32, i32 -> i32
  // CHECK: return %[[TOKEN]]
  return %token : i32
}

// CHECK-LABEL: func.func @consume_token_has_no_effect
func.func @consume_token_has_no_effect(%data: memref<64xf32>, %token: i32) -> memref<64xf32> {
  // CHECK: %[[DATA:.*]] = hivm.hir.custom {gm_addr_args_indices = array<i32: 0>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, no_side_effect, symbol = "aclshmem_consume_token_float_ptr_1d"} "dist.aclshmem_consume_token_float_ptr_1d"
  %ordered = distributed.consume_token %data, %token : memref<64xf32>, i32
  // CHECK: return %[[DATA]]
  return %ordered : memref<64xf32>
}

// CHECK-LABEL: func.func @rank_queries_are_pure
func.func @rank_queries_are_pure() -> (i32, i32) {
  // CHECK: %[[ME:.*]] = hivm.hir.custom {gm_addr_args_indices = array<i32>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, no_side_effect, symbol = "aclshmem_my_pe"} "dist.aclshmem_my_pe" -> i32
  %me = distributed.get_rank axis = 0 : i32
  // CHECK: %[[N:.*]] = hivm.hir.custom {gm_addr_args_indices = array<i32>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, no_side_effect, symbol = "aclshmem_n_pes"} "dist.aclshmem_n_pes" -> i32
  %n = distributed.get_num_ranks : i32
  // CHECK: return %[[ME]], %[[N]]
  return %me, %n : i32, i32
}

// CHECK-LABEL: func.func @symm_at_reads
func.func @symm_at_reads(%buffer: memref<64xf32>, %peer: i32) -> memref<64xf32> {
  // CHECK: %[[REMOTE:.*]] = hivm.hir.custom {gm_addr_args_indices = array<i32: 0>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, symbol = "aclshmem_ptr_float"} "dist.aclshmem_ptr_float"
  %remote = distributed.symm_at %buffer, %peer : memref<64xf32>
  // CHECK: return %[[REMOTE]]
  return %remote : memref<64xf32>
}

// CHECK-LABEL: func.func @notify_keeps_sig_op_and_scope
func.func @notify_keeps_sig_op_and_scope(%signal: memref<8xi64>, %value: i64, %peer: i32) {
  // CHECK: hivm.hir.custom {commScope = 2 : i32, gm_addr_args_indices = array<i32: 0>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, sigOp = 1 : i32, symbol = "aclshmem_int64_p"} "dist.aclshmem_int64_p"
  distributed.notify %signal, %value, %peer sig_op = set scope = intra_node : memref<8xi64>
  return
}

// CHECK-LABEL: func.func @pure_extern_call
func.func @pure_extern_call(%signal: memref<1xi32>, %peer: i32) -> i32 {
  // CHECK: %[[VALUE:.*]] = hivm.hir.custom {gm_addr_args_indices = array<i32: 0>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, libname = "libaclshmem_device", libpath = "/opt/aclshmem/lib", no_side_effect, pure = true, symbol = "aclshmem_int32_g"} "dist.aclshmem_int32_g"
  %value = distributed.extern_call "aclshmem_int32_g"(%signal, %peer)
      {libname = "libaclshmem_device", libpath = "/opt/aclshmem/lib", pure = true}
      : (memref<1xi32>, i32) -> i32
  // CHECK: return %[[VALUE]]
  return %value : i32
}

// CHECK-LABEL: func.func @impure_extern_call
func.func @impure_extern_call() {
  // CHECK: hivm.hir.custom {gm_addr_args_indices = array<i32>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, libname = "", libpath = "", pure = false, symbol = "aclshmem_barrier_all"} "dist.aclshmem_barrier_all"{{$}}
  distributed.extern_call "aclshmem_barrier_all"() : () -> ()
  return
}

// Discardable attributes of the source op travel along.
// CHECK-LABEL: func.func @discardable_attributes_are_kept
func.func @discardable_attributes_are_kept(%buffer: memref<64xf32>, %peer: i32) -> memref<64xf32> {
  // CHECK: hivm.hir.custom {gm_addr_args_indices = array<i32: 0>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, symbol = "aclshmem_ptr_float", tile.id = 7 : i64} "dist.aclshmem_ptr_float"
  %remote = distributed.symm_at %buffer, %peer {tile.id = 7 : i64} : memref<64xf32>
  return %remote : memref<64xf32>
}
