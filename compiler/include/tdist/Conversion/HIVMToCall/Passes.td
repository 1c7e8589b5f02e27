//===- Passes.td - distributed hivm.hir.custom to func.call ---------------===//
#ifndef TDIST_CONVERSION_HIVMTOCALL_PASSES
#define TDIST_CONVERSION_HIVMTOCALL_PASSES

include "mlir/Pass/PassBase.td"

def ConvertHIVMDistributedToCall : Pass<"convert-hivm-distributed-to-call", "::mlir::ModuleOp"> {
  let summary = "Call the device library for every distributed hivm.hir.custom";
  let description = [{
    The bridge from the Ascend form to a device library that runs here. Each
    `hivm.hir.custom` marked `hivm.is_distributed` becomes a `func.call` of
    its link name (seed 001 §4.2 step 1), declared in the module:

    - prefix: the op's `symbol`;
    - when no memref is among the call's arguments and results, the prefix
      gets `_mlir_ciface_` in front: `aclshmem_my_pe` is called as
      `_mlir_ciface_aclshmem_my_pe`;
    - then the call-name mangle suffix: `_m<rank>` for each memref among the
      arguments, then among the results, in order. Memref descriptors of
      different ranks have different layouts, so each rank is its own
      function: `aclshmem_ptr_float` on `memref<?xf32>` is
      `aclshmem_ptr_float_m1_m1`.

    A declaration with memref arguments or results also gets
    `llvm.emit_c_interface`, so that the LLVM lowering passes descriptors by
    pointer to `_mlir_ciface_<link name>`: every symbol the device library
    exports is an `_mlir_ciface_` one.

    The call's arguments are the op's `ins` followed by its memref `outs`
    (written in place); tensor `outs` only carry result types and are
    dropped. Arguments and results travel in canonical types, so that one
    declaration serves every caller: a memref is `memref.cast` to the
    dynamic layout of its rank (dynamic sizes, strides and offset), and a
    signed integer, scalar or memref element, is the signless one of its
    width (the C function has one ABI), through an
    `unrealized_conversion_cast` that the LLVM lowering erases. Results are
    cast back. Unsigned integers keep their type. Other `hivm.hir.custom` ops
    are left alone.

    Every link name gets one type. The pass checks all distributed custom
    ops before it changes anything: an op whose call type differs from a
    function of the module of that name, or from the first op that links to
    it, gets one error (with a note at the declaration), and the pass fails.

    ```mlir
    %r = hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_my_pe", ...}
        "dist.aclshmem_my_pe" -> i32
    // becomes
    %r = func.call @_mlir_ciface_aclshmem_my_pe() : () -> i32
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect"];
}

#endif // TDIST_CONVERSION_HIVMTOCALL_PASSES
