// tdist-cuda-pipeline compiles a kernel for the cuda backend: distributed ops become calls of the
// template library's link names (through hivm.hir.custom, as on the cpu), each program of the grid
// a thread block of one thread, the functions a gpu.module for sm_90a that links the device
// library's bitcode, then PTX and a cubin.
// REQUIRES: tdist-device-bitcode
// RUN: tdist-opt %examples/ir/ring_allreduce.mlir --tdist-cuda-pipeline="format=nvvm device-library=%tdist_device_bc" | FileCheck %s --check-prefix=NVVM
// RUN: tdist-opt %examples/ir/ring_allreduce.mlir --tdist-cuda-pipeline="format=isa device-library=%tdist_device_bc" | FileCheck %s --check-prefix=PTX
// RUN: tdist-opt %s --tdist-cuda-pipeline="format=isa device-library=%tdist_device_bc" | FileCheck %s --check-prefix=WIDE

// The kernel is a gpu.func lowered to an NVVM kernel of one thread per block; the library's entry
// points keep the link names they have on the cpu (the scalar ones through the C-interface wrapper
// that convert-gpu-to-nvvm writes for every function).
// NVVM: module attributes {distributed.target = "ascend", gpu.container_module}
// NVVM: gpu.module @tdist_kernels [#nvvm.target<O = 3, chip = "sm_90a", link = ["{{.*}}libtdist_device.bc"]>]
// NVVM-DAG: llvm.func @_mlir_ciface_aclshmem_my_pe() -> i32
// NVVM-DAG: llvm.func @_mlir_ciface_aclshmem_n_pes() -> i32
// NVVM-DAG: llvm.func @_mlir_ciface_aclshmem_ptr_float_m1_m1(!llvm.ptr, !llvm.ptr, i32)
// NVVM-DAG: llvm.func @_mlir_ciface_aclshmemx_signal_op_m1(!llvm.ptr, i32, i32, i32)
// NVVM-DAG: llvm.func @_mlir_ciface_aclshmem_wait_int32_m1(!llvm.ptr, i32, i32) -> i32
// NVVM-DAG: llvm.func @_mlir_ciface_aclshmem_consume_token_float_ptr_1d_m1_m1(!llvm.ptr, !llvm.ptr, i32)
// NVVM-LABEL: llvm.func @ring_allreduce(
// NVVM-SAME: gpu.kernel, gpu.known_block_size = array<i32: 1, 1, 1>, nvvm.kernel, nvvm.maxntid = array<i32: 1, 1, 1>
// NVVM: nvvm.read.ptx.sreg.ctaid.x
// NVVM: nvvm.read.ptx.sreg.nctaid.x
// NVVM-NOT: _mlir_ciface_tdist_program_id
// NVVM-NOT: memrefCopy
// NVVM-NOT: distributed.
// NVVM-NOT: hivm.

// The PTX (one string, lines escaped as \0A) holds the device library's state, the kernel of one
// thread per block reading its block's coordinates and calling the library's entry points, and
// after it their definitions, linked from the bitcode, with the release store of a notify and the
// acquire load of a wait (ctest's cuda_pipeline_examples checks them function by function).
// PTX: gpu.binary @tdist_kernels
// PTX-SAME: assembly = "
// PTX-SAME: .target sm_90a
// PTX-SAME: .visible .const .align 8 .b8 tdist_device_state[
// PTX-SAME: .visible .entry ring_allreduce(
// PTX-SAME: .maxntid 1, 1, 1
// PTX-SAME: %nctaid.x
// PTX-SAME: %ctaid.x
// PTX-SAME: call.uni _mlir_ciface_aclshmem_ptr_float_m1_m1,
// PTX-SAME: call.uni _mlir_ciface_aclshmemx_signal_op_m1,
// PTX-SAME: call.uni (retval0), _mlir_ciface_aclshmem_wait_int32_m1,
// PTX-SAME: call.uni _mlir_ciface_aclshmem_consume_token_float_ptr_1d_m1_m1,
// PTX-DAG: .func _mlir_ciface_aclshmemx_signal_op_m1(
// PTX-DAG: .func  (.param .b32 func_retval0) _mlir_ciface_aclshmem_wait_int32_m1(
// PTX-DAG: st.release.sys.global.b32
// PTX-DAG: ld.acquire.sys.global.b32
// PTX-NOT: .extern
// PTX-NOT: prototype

// A cuda module's 64-bit signals (the seed's dtype rule for cuda): a notify SET is the point put
// aclshmem_int64_p, whose device form is a release store, and the wait is aclshmem_wait_int64.
// WIDE: .visible .entry notify_u64(
// WIDE-SAME: call.uni _mlir_ciface_aclshmem_int64_p_m1,
// WIDE-SAME: call.uni (retval0), _mlir_ciface_aclshmem_wait_int64_m1,
// WIDE-DAG: .func _mlir_ciface_aclshmem_int64_p_m1(
// WIDE-DAG: st.release.sys.global.b64
// WIDE-DAG: ld.acquire.sys.global.b64
module attributes {distributed.target = "cuda"} {
  func.func @notify_u64(%signals: memref<16xi64>, %value: i64, %peer: i32) {
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
