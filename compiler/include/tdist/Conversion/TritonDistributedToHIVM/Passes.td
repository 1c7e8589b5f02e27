//===- Passes.td - convert-triton-distributed-to-hivm ---------------------===//

#ifndef TDIST_CONVERSION_TRITONDISTRIBUTEDTOHIVM_PASSES
#define TDIST_CONVERSION_TRITONDISTRIBUTEDTOHIVM_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTritonDistributedToHIVM
    : Pass<"convert-triton-distributed-to-hivm", "::mlir::ModuleOp"> {
  let summary = "Lower distributed ops to hivm.hir.custom calls of aclshmem symbols";
  let description = [{
    The Ascend lowering of seed 001 §3. Each of the seven distributed
    operations becomes a `hivm.hir.custom` named `"dist." + symbol`, where
    `symbol` is the aclshmem template-library function that implements it,
    mangled with the element type it works on (`aclshmem_ptr_float`,
    `aclshmem_wait_int32`, `aclshmem_consume_token_half_ptr_2d`, ...). The
    custom op keeps the source op's attributes and gains `hivm.tcore_type`,
    `hivm.pipe = PIPE_S`, `hivm.vf_mode = SIMD`, `hivm.is_distributed`,
    `symbol`, `gm_addr_args_indices` and, for effect-free source ops,
    `no_side_effect`. Each tensor result gets a `tensor.empty` init.

    The core type comes from a table of symbol prefixes (barriers, put/get),
    else from the module: `CUBE_AND_VECTOR` when it holds a matrix product
    (`tt.dot`, `tt.dot_scaled`, or a linalg contraction with M, N and K
    dimensions), `VECTOR` for a pure vector kernel.

    All other IR is left as it is. An op whose types name no aclshmem symbol
    (an opaque pointer where the symbol needs the element type, an element
    type outside bf16/f16/f32/f64/i8-i64/ui8-ui64) is reported and the pass
    fails.

    ```mlir
    %token = distributed.wait %signal, %c1, %epoch scope = gpu semantic = acquire
        : memref<16xi32>, i32, i32 -> i32
    // becomes
    %token = hivm.hir.custom {gm_addr_args_indices = array<i32: 0>,
        hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>,
        hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>,
        scope = 1 : i32, semantic = 2 : i32, symbol = "aclshmem_wait_int32"}
        "dist.aclshmem_wait_int32" ins(%signal, %c1, %epoch : memref<16xi32>, i32, i32) -> i32
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::hivm::HIVMDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::triton::distributed::DistributedDialect",
  ];
}

#endif // TDIST_CONVERSION_TRITONDISTRIBUTEDTOHIVM_PASSES
