//===- HIVMBase.td - the hivm dialect and its enum attributes -------------===//
//
// A minimal stand-in for AscendNPU-IR's HIVM dialect: just what the lowering
// of the distributed dialect produces, in the same textual form, so that our
// output reads exactly as bishengir's input (seed 001 §3).
//
//===----------------------------------------------------------------------===//

#ifndef TDIST_HIVM_BASE
#define TDIST_HIVM_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def HIVM_Dialect : Dialect {
  let name = "hivm";
  let cppNamespace = "::mlir::hivm";
  let summary = "Ascend HIVM operations that tdist emits";
  let description = [{
    The subset of AscendNPU-IR's HIVM dialect that the Ascend lowering of the
    distributed dialect emits: `hivm.hir.custom`, which names a function of a
    device template library, and the enum attributes that say where it runs
    (`#hivm.tcore_type`, `#hivm.pipe`, `#hivm.vf_mode`). Numbering and
    spelling follow AscendNPU-IR, so that bishengir can read our output.

    The discardable attributes `hivm.tcore_type`, `hivm.pipe`,
    `hivm.vf_mode` and `hivm.is_distributed` are verified on any operation.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral getTCoreTypeAttrName() {
      return ::llvm::StringLiteral("hivm.tcore_type");
    }
    static constexpr ::llvm::StringLiteral getPipeAttrName() {
      return ::llvm::StringLiteral("hivm.pipe");
    }
    static constexpr ::llvm::StringLiteral getVFModeAttrName() {
      return ::llvm::StringLiteral("hivm.vf_mode");
    }
    /// Marks a custom op that calls the communication library; downstream
    /// stages (memory scope inference, mix kernel splitting) look for it.
    static constexpr ::llvm::StringLiteral getIsDistributedAttrName() {
      return ::llvm::StringLiteral("hivm.is_distributed");
    }
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def HIVM_TCoreType : I32EnumAttr<"TCoreType", "the kind of AI core an op runs on", [
    I32EnumAttrCase<"CUBE", 1>,
    I32EnumAttrCase<"VECTOR", 2>,
    I32EnumAttrCase<"CUBE_OR_VECTOR", 3>,
    I32EnumAttrCase<"CUBE_AND_VECTOR", 4>
  ]> {
  let cppNamespace = "::mlir::hivm";
  let genSpecializedAttr = 0;
}

def HIVM_Pipe : I32EnumAttr<"PIPE", "the pipeline of an AI core an op runs on", [
    I32EnumAttrCase<"PIPE_S", 0>,
    I32EnumAttrCase<"PIPE_V", 1>,
    I32EnumAttrCase<"PIPE_M", 2>,
    I32EnumAttrCase<"PIPE_MTE1", 3>,
    I32EnumAttrCase<"PIPE_MTE2", 4>,
    I32EnumAttrCase<"PIPE_MTE3", 5>,
    I32EnumAttrCase<"PIPE_ALL", 6>,
    I32EnumAttrCase<"PIPE_MTE4", 7>,
    I32EnumAttrCase<"PIPE_MTE5", 8>,
    I32EnumAttrCase<"PIPE_V2", 9>,
    I32EnumAttrCase<"PIPE_FIX", 10>,
    I32EnumAttrCase<"VIRTUAL_PIPE_MTE2_L1A", 11>,
    I32EnumAttrCase<"VIRTUAL_PIPE_MTE2_L1B", 12>,
    I32EnumAttrCase<"PIPE_NUM", 13>,
    I32EnumAttrCase<"PIPE_UNASSIGNED", 99>
  ]> {
  let cppNamespace = "::mlir::hivm";
  let genSpecializedAttr = 0;
}

def HIVM_VFMode : I32EnumAttr<"VFMode", "how the vector unit runs an op", [
    I32EnumAttrCase<"SIMD", 0>,
    I32EnumAttrCase<"SIMT", 1>,
    I32EnumAttrCase<"MIX", 2>
  ]> {
  let cppNamespace = "::mlir::hivm";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Enum attributes: #hivm.tcore_type<VECTOR>, #hivm.pipe<PIPE_S>, ...
//===----------------------------------------------------------------------===//

class HIVM_EnumAttr<EnumAttrInfo enumInfo, string mnemonic>
    : EnumAttr<HIVM_Dialect, enumInfo, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def HIVM_TCoreTypeAttr : HIVM_EnumAttr<HIVM_TCoreType, "tcore_type">;
def HIVM_PipeAttr : HIVM_EnumAttr<HIVM_Pipe, "pipe"> {
  let cppClassName = "PipeAttr";
}
def HIVM_VFModeAttr : HIVM_EnumAttr<HIVM_VFMode, "vf_mode">;

#endif // TDIST_HIVM_BASE
