//===- Registration.cpp - everything tdist adds to an MLIR tool -----------===//
#include "tdist/Compiler/Registration.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "tdist/Conversion/HIVMToCall/HIVMToCall.h"
#include "tdist/Conversion/TritonDistributedToHIVM/TritonDistributedToHIVM.h"
#include "tdist/Dialect/Distributed/IR/Distributed.h"
#include "tdist/Dialect/Distributed/Transforms/Passes.h"
#include "tdist/Dialect/HIVM/IR/HIVM.h"
#include "tdist/Pipelines/Pipelines.h"
#include "tdist/Transforms/Passes.h"

namespace mlir::tdist {

void registerDialects(DialectRegistry &registry) {
  registry.insert<triton::distributed::DistributedDialect>();
  registry.insert<hivm::HIVMDialect>();
}

void registerCudaTarget(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
  // convert-gpu-to-nvvm lowers the other dialects of a gpu.module through
  // their convert-to-llvm interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
}

void registerPassesAndPipelines() {
  triton::distributed::registerDistributedPasses();
  triton::registerTritonDistributedToHIVMPasses();
  hivm::registerHIVMToCallPasses();
  registerTdistPasses();
  registerPipelines();
}

} // namespace mlir::tdist
