//===- DistributedBase.td - the distributed dialect and its enums ---------===//
//
// The platform-agnostic dialect of tile-centric communication (seed 001 §2):
// each backend lowers it to its own communication library.
//
//===----------------------------------------------------------------------===//

#ifndef TDIST_DISTRIBUTED_BASE
#define TDIST_DISTRIBUTED_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def Distributed_Dialect : Dialect {
  let name = "distributed";
  let cppNamespace = "::mlir::triton::distributed";
  let summary = "Tile-centric communication primitives on symmetric memory";
  let description = [{
    Seven operations on a symmetric heap: `wait` for per-tile signals,
    `consume_token` to order accesses after a wait, `get_rank` and
    `get_num_ranks`, `symm_at` to address a peer's copy of a symmetric
    object, `notify` to set or add a peer's signal, and `extern_call` to call
    a function of the communication library.

    The dialect depends on no other dialect, so that every backend can lower
    it: Ascend to `hivm.hir.custom` operations naming aclshmem template
    library symbols, the executable path to calls of the same symbols.

    Pointer-like operands are `memref`s, `!llvm.ptr`, or ranked tensors of
    `!llvm.ptr`. The target, which decides the allowed signal types of
    `notify`, is the module attribute `distributed.target` (`"ascend"`, the
    default, `"cuda"` or `"cpu"`).
  }];
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the module attribute that names the target.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("distributed.target");
    }
  }];
}

def Distributed_SignalOp : I32EnumAttr<"SignalOp", "how notify updates a signal", [
    I32EnumAttrCase<"SET", 1, "set">,
    I32EnumAttrCase<"ADD", 2, "add">
  ]> {
  let cppNamespace = "::mlir::triton::distributed";
}

def Distributed_CommScope : I32EnumAttr<"CommScope", "which peers a notify must reach", [
    I32EnumAttrCase<"GPU", 1, "gpu">,
    I32EnumAttrCase<"INTRA_NODE", 2, "intra_node">,
    I32EnumAttrCase<"INTER_NODE", 3, "inter_node">
  ]> {
  let cppNamespace = "::mlir::triton::distributed";
}

// There is no Triton here: wait's scope and semantic get enums of their own,
// numbered as Triton's MemSyncScope and MemSemantic.
def Distributed_MemScope : I32EnumAttr<"MemScope", "visibility scope of a wait", [
    I32EnumAttrCase<"GPU", 1, "gpu">,
    I32EnumAttrCase<"CTA", 2, "cta">,
    I32EnumAttrCase<"SYSTEM", 3, "sys">
  ]> {
  let cppNamespace = "::mlir::triton::distributed";
}

def Distributed_MemSemantic : I32EnumAttr<"MemSemantic", "memory ordering of a wait", [
    I32EnumAttrCase<"RELAXED", 1, "relaxed">,
    I32EnumAttrCase<"ACQUIRE", 2, "acquire">,
    I32EnumAttrCase<"RELEASE", 3, "release">,
    I32EnumAttrCase<"ACQUIRE_RELEASE", 4, "acq_rel">
  ]> {
  let cppNamespace = "::mlir::triton::distributed";
}

#endif // TDIST_DISTRIBUTED_BASE
