// tdist-cpu-pipeline lowers a kernel to the LLVM dialect: distributed ops become calls of the
// device template library's link names, through hivm.hir.custom as on Ascend.
// RUN: tdist-opt %examples/ir/ring_allreduce.mlir --tdist-cpu-pipeline | FileCheck %s --check-prefix=RING
// RUN: tdist-opt %examples/ir/ring_allreduce.mlir --tdist-cpu-pipeline="inject-barrier-all=true" | FileCheck %s --check-prefix=BARRIER
// RUN: tdist-opt %examples/ir/ag_gemm.mlir --tdist-cpu-pipeline | FileCheck %s --check-prefix=GEMM
// RUN: tdist-opt %s --tdist-cpu-pipeline | FileCheck %s

// Queries and extern calls without memrefs are called by their _mlir_ciface_ names with the
// plain C ABI; with memrefs the declaration asks for the C interface (descriptors by pointer).
// RING-DAG: llvm.func @_mlir_ciface_aclshmem_my_pe() -> i32
// RING-DAG: llvm.func @_mlir_ciface_aclshmem_n_pes() -> i32
// RING-DAG: llvm.func @_mlir_ciface_tdist_program_id(i32) -> i32
// RING-DAG: llvm.func @_mlir_ciface_tdist_num_programs(i32) -> i32
// RING-DAG: llvm.func @_mlir_ciface_aclshmem_ptr_float_m1_m1(!llvm.ptr, !llvm.ptr, i32) attributes {llvm.emit_c_interface
// RING-DAG: llvm.func @_mlir_ciface_aclshmemx_signal_op_m1(!llvm.ptr, i32, i32, i32) attributes {llvm.emit_c_interface
// RING-DAG: llvm.func @_mlir_ciface_aclshmem_wait_int32_m1(!llvm.ptr, i32, i32) -> i32 attributes {llvm.emit_c_interface
// RING-DAG: llvm.func @_mlir_ciface_aclshmem_consume_token_float_ptr_1d_m1_m1(!llvm.ptr, !llvm.ptr, i32) attributes {llvm.emit_c_interface
// RING-DAG: llvm.func @memrefCopy(i64, !llvm.ptr, !llvm.ptr)
// RING-LABEL: llvm.func @ring_allreduce(
// RING-NOT: distributed.
// RING-NOT: hivm.

// A memref declaration keeps its name for a wrapper that passes descriptors by pointer.
// BARRIER: llvm.func @_mlir_ciface_aclshmem_barrier_all()
// BARRIER-LABEL: llvm.func @ring_allreduce(
// BARRIER: llvm.call @_mlir_ciface_aclshmem_barrier_all()
// BARRIER-COUNT-5: llvm.extractvalue
// BARRIER-NEXT: llvm.call @aclshmem_ptr_float_m1_m1(
// BARRIER-NEXT: llvm.call @_mlir_ciface_aclshmem_barrier_all()

// The producer's put goes through extern_call, typed by its element, one _m1 per memref.
// GEMM-DAG: llvm.func @_mlir_ciface_aclshmem_float_put_signal_nbi_m1_m1_m1(!llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i32, i32, i32)
// GEMM-DAG: llvm.func @_mlir_ciface_aclshmem_consume_token_float_ptr_2d_m2_m2(!llvm.ptr, !llvm.ptr, i32)
// GEMM-LABEL: llvm.func @ag_gemm(

// A 64-bit notify is a remote store, aclshmem_int64_p; its wait is aclshmem_wait_int64.
// CHECK-DAG: llvm.func @_mlir_ciface_aclshmem_int64_p_m1(!llvm.ptr, i64, i32)
// CHECK-DAG: llvm.func @_mlir_ciface_aclshmem_wait_int64_m1(!llvm.ptr, i32, i64) -> i32
// CHECK-LABEL: llvm.func @notify_i64(
// CHECK: llvm.call @aclshmem_int64_p_m1(
// CHECK: %[[TOKEN:.*]] = llvm.call @aclshmem_wait_int64_m1(
// CHECK: llvm.call @aclshmem_consume_token_int64_ptr_1d_m1_m1({{.*}}, %[[TOKEN]])
module attributes {distributed.target = "cpu"} {
  func.func @notify_i64(%signals: memref<16xi64>, %value: i64, %peer: i32) {
    %c8 = arith.constant 8 : index
    %one = arith.constant 1 : i32
    distributed.notify %signals, %value, %peer sig_op = set scope = intra_node : memref<16xi64>
    %token = distributed.wait %signals, %one, %value scope = sys semantic = acquire
        : memref<16xi64>, i32, i64 -> i32
    %ready = distributed.consume_token %signals, %token : memref<16xi64>, i32
    memref.store %value, %ready[%c8] : memref<16xi64>
    return
  }
}
