// The overlap examples that run on CPU PEs are the same IR the Ascend path takes: every
// distributed op becomes a distributed hivm.hir.custom, and the GEMMs (linalg.matmul) stay for
// single-device compilation.
// RUN: tdist-opt %examples/ir/tile_allgather.mlir --tdist-ascend-pipeline | FileCheck %s --check-prefix=AG
// RUN: tdist-opt %examples/ir/ag_gemm.mlir --tdist-ascend-pipeline | FileCheck %s --check-prefix=AGGEMM
// RUN: tdist-opt %examples/ir/gemm_reduce_scatter.mlir --tdist-ascend-pipeline | FileCheck %s --check-prefix=GEMMRS

// AG-LABEL: func.func @tile_allgather
// AG-NOT: distributed.
// AG: "dist.aclshmem_ptr_float"
// AG: memref.copy
// AG: "dist.aclshmemx_signal_op"
// AG: "dist.aclshmem_wait_int32"
// AG: "dist.aclshmem_consume_token_float_ptr_2d"
// AG: memref.copy

// The producer's put is an extern call. The seed's core-type table names only the putmem and
// getmem prefixes, so in a kernel with a matmul the typed put is on both core types. The consumer
// starts on its own rows without a wait (scf.if), and waits per tile on the others.
// AGGEMM-LABEL: func.func @ag_gemm
// AGGEMM-NOT: distributed.
// AGGEMM: hivm.hir.custom {{{.*}}hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}symbol = "aclshmem_float_put_signal_nbi"} "dist.aclshmem_float_put_signal_nbi"
// AGGEMM: scf.if
// AGGEMM: } else {
// AGGEMM: "dist.aclshmem_wait_int32"
// AGGEMM: "dist.aclshmem_consume_token_float_ptr_2d"
// AGGEMM: linalg.matmul

// A kernel with a matmul: its custom ops are on both core types.
// GEMMRS-LABEL: func.func @gemm_reduce_scatter
// GEMMRS-NOT: distributed.
// GEMMRS: "dist.aclshmem_ptr_float"
// GEMMRS: linalg.matmul
// GEMMRS: hivm.hir.custom {{{.*}}hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}symbol = "aclshmemx_signal_op"} "dist.aclshmemx_signal_op"
// GEMMRS: "dist.aclshmem_wait_int32"
// GEMMRS: linalg.add
