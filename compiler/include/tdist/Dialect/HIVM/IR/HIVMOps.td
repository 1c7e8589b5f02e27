//===- HIVMOps.td - hivm.hir.custom ---------------------------------------===//

#ifndef TDIST_HIVM_OPS
#define TDIST_HIVM_OPS

include "tdist/Dialect/HIVM/IR/HIVMBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class HIVM_Op<string mnemonic, list<Trait> traits = []>
    : Op<HIVM_Dialect, "hir." # mnemonic, traits>;

def HIVM_CustomOp : HIVM_Op<"custom",
    [AttrSizedOperandSegments, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "call a function of a device template library";
  let description = [{
    Calls the library function `name` with `inputs`. Results follow
    destination-passing style: every tensor result has an init of the same
    type among `outputs`, in order; scalar, pointer and memref results have
    none, and memref `outputs` are written in place.

    Where the call runs is given by discardable attributes:
    `hivm.tcore_type`, `hivm.pipe` and `hivm.vf_mode`. A call into the
    communication library carries `hivm.is_distributed` and the bare library
    `symbol`, and is named `"dist." + symbol`.

    - `no_side_effect`: the call neither reads nor writes memory; otherwise it
      may read and write anything.
    - `gm_addr_args_indices`: the indices of the `inputs` that are plain
      global-memory addresses (kernel arguments), in increasing order; they
      must be pointers (memref or `!llvm.ptr`).

    ```mlir
    %token = hivm.hir.custom {hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>,
        hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>,
        symbol = "aclshmem_wait_int32"} "dist.aclshmem_wait_int32"
        ins(%signal, %c1_i32, %epoch : memref<16xi32>, i32, i32) -> i32
    %empty = tensor.empty() : tensor<4xf32>
    %tile = hivm.hir.custom "user.scale" ins(%x : tensor<4xf32>)
        outs(%empty : tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name,
                       Variadic<AnyType>:$inputs,
                       Variadic<AnyType>:$outputs,
                       OptionalAttr<UnitAttr>:$no_side_effect,
                       OptionalAttr<StrAttr>:$symbol,
                       OptionalAttr<DenseI32ArrayAttr>:$gm_addr_args_indices);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    attr-dict $name
    (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    (`outs` `(` $outputs^ `:` type($outputs) `)`)?
    `` custom<OptionalArrowTypeList>(type($results))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::llvm::StringRef":$name,
                   "::mlir::ValueRange":$inputs, "::mlir::ValueRange":$outputs), [{
      build($_builder, $_state, resultTypes, name, inputs, outputs,
            /*no_side_effect=*/nullptr, /*symbol=*/nullptr,
            /*gm_addr_args_indices=*/nullptr);
    }]>
  ];
  let extraClassDeclaration = [{
    std::optional<TCoreType> getCoreType();
    void setCoreType(TCoreType coreType);
    std::optional<PIPE> getPipe();
    void setPipe(PIPE pipe);
    std::optional<VFMode> getVFMode();
    void setVFMode(VFMode mode);
    bool isDistributed();
    void setDistributed();
  }];
  let hasVerifier = 1;
}

#endif // TDIST_HIVM_OPS
