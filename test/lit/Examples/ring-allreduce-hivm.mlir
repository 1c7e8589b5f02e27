// The ring AllReduce example through the Ascend pipeline: every distributed op becomes the
// hivm.hir.custom that seed 001 specifies.
// RUN: tdist-opt %examples/ir/ring_allreduce.mlir --tdist-ascend-pipeline | FileCheck %s
// RUN: tdist-opt %examples/ir/ring_allreduce.mlir --tdist-ascend-pipeline="inject-barrier-all=true" | FileCheck %s --check-prefix=BARRIER

// The ttir stage inlined the helpers: one kernel function is left.
// CHECK-LABEL: func.func @ring_allreduce
// CHECK-SAME: (%[[DATA:[^:]*]]: memref<?xf32>, %[[STAGING:[^:]*]]: memref<?xf32>, %[[SIGNALS:[^:]*]]: memref<?xi32>
// CHECK-SAME: %[[EPOCH:[^:]*]]: i32)
// CHECK-NOT: distributed.
// CHECK: %[[RANK:.*]] = hivm.hir.custom {gm_addr_args_indices = array<i32>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, no_side_effect, symbol = "aclshmem_my_pe"} "dist.aclshmem_my_pe" -> i32
// CHECK: hivm.hir.custom {{{.*}}no_side_effect, symbol = "aclshmem_n_pes"} "dist.aclshmem_n_pes" -> i32
// CHECK: scf.for
// A kernel argument passed straight to the library is a global-memory address.
// CHECK: %[[REMOTE:.*]] = hivm.hir.custom {gm_addr_args_indices = array<i32: 0>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, symbol = "aclshmem_ptr_float"} "dist.aclshmem_ptr_float" ins(%[[STAGING]], %{{.*}} : memref<?xf32>, i32) -> memref<?xf32>
// CHECK: memref.subview %[[REMOTE]]
// CHECK: memref.copy
// An i32 notify is aclshmemx_signal_op(signal, value, SET = 0, pe); the source attributes stay.
// CHECK: %[[SLOT:.*]] = memref.subview %[[SIGNALS]]
// CHECK: hivm.hir.custom {commScope = 3 : i32, gm_addr_args_indices = array<i32>, hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, sigOp = 1 : i32, symbol = "aclshmemx_signal_op"} "dist.aclshmemx_signal_op" ins(%[[SLOT]], %{{.*}}, %{{.*}}, %{{.*}} : memref<1xi32, strided<[1], offset: ?>>, i32, i32, i32)
// CHECK: %[[TOKEN:.*]] = hivm.hir.custom {{{.*}}scope = 3 : i32, semantic = 2 : i32, symbol = "aclshmem_wait_int32"} "dist.aclshmem_wait_int32" ins(%[[SLOT]], %{{.*}}, %[[EPOCH]] : memref<1xi32, strided<[1], offset: ?>>, i32, i32) -> i32
// CHECK: hivm.hir.custom {gm_addr_args_indices = array<i32: 0>, {{.*}}no_side_effect, symbol = "aclshmem_consume_token_float_ptr_1d"} "dist.aclshmem_consume_token_float_ptr_1d" ins(%[[STAGING]], %[[TOKEN]] : memref<?xf32>, i32) -> memref<?xf32>
// CHECK: linalg.add
// CHECK: scf.for
// CHECK: "dist.aclshmem_ptr_float"
// CHECK: "dist.aclshmemx_signal_op"
// CHECK: "dist.aclshmem_wait_int32"
// CHECK: "dist.aclshmem_consume_token_float_ptr_1d"
// CHECK: memref.copy
// CHECK-NOT: hivm.hir.custom

// With the debugging switch, a barrier_all (on both core types) surrounds each communication.
// BARRIER-LABEL: func.func @ring_allreduce
// BARRIER: hivm.hir.custom {{{.*}}hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}symbol = "aclshmem_barrier_all"} "dist.aclshmem_barrier_all"
// BARRIER-NEXT: "dist.aclshmem_ptr_float"
// BARRIER-NEXT: "dist.aclshmem_barrier_all"
