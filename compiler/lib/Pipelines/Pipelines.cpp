//===- Pipelines.cpp - named pass pipelines -------------------------------===//
#include "tdist/Pipelines/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/BitVector.h"

#include "tdist/Conversion/HIVMToCall/HIVMToCall.h"
#include "tdist/Conversion/TritonDistributedToHIVM/TritonDistributedToHIVM.h"
#include "tdist/Dialect/Distributed/Transforms/Passes.h"
#include "tdist/Transforms/Passes.h"

namespace mlir::tdist {

void buildTTIRStage(OpPassManager &pm) {
  pm.addPass(createInlinerPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
}

void buildTTAdapterStage(OpPassManager &pm, const AscendPipelineOptions &options) {
  if (options.injectBarrierAll)
    pm.addPass(triton::distributed::createDistributedInjectBarrierAllPass());
  pm.addPass(triton::createConvertTritonDistributedToHIVM());
}

// Trace spans are the cpu backend's (tdist-trace-spans): on the Ascend path
// their marks are checked and dropped, so that a marked kernel has the HIVM
// form of the unmarked one.
static void dropTraceSpanMarks(OpPassManager &pm) {
  TraceSpansPassOptions marksOnly;
  marksOnly.record = false;
  pm.addPass(createTraceSpansPass(marksOnly));
}

void buildAscendPipeline(OpPassManager &pm, const AscendPipelineOptions &options) {
  buildTTIRStage(pm);
  buildTTAdapterStage(pm, options);
  dropTraceSpanMarks(pm);
}

// Upstream's road from func/arith/scf/memref/linalg/math to LLVM. Contractions
// first get their reductions outside the output's contiguous loop, which LLVM
// can then vectorize. Subviews are expanded to reinterpret_casts (whose affine
// index arithmetic is lowered after), and math functions without an LLVM
// intrinsic become libm calls.
static void buildLowerToLLVM(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createInterchangeReductionsPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options) {
  AscendPipelineOptions adapter;
  adapter.injectBarrierAll = options.injectBarrierAll.getValue();
  buildTTIRStage(pm);
  buildTTAdapterStage(pm, adapter);
  pm.addPass(hivm::createConvertHIVMDistributedToCall());
  pm.addPass(createCanonicalizerPass());
  // After the Ascend stages, which carry the marks as they are: the HIVM form
  // is the same with spans or without.
  TraceSpansPassOptions spans;
  spans.record = options.traceSpans.getValue();
  pm.addPass(createTraceSpansPass(spans));
  buildLowerToLLVM(pm);
}

// Each wait of a copy of the module gets its index as an attribute, which the
// HIVM lowering copies to the custom op it becomes; an index missing after the
// stages is a wait they removed. Being distinct, the attributes also keep cse
// from merging two waits, so that merged waits (nothing lost) are not taken
// for removed ones.
SmallVector<triton::distributed::WaitOp> findWaitsRemovedAsDeadCode(ModuleOp module) {
  namespace dist = triton::distributed;
  SmallVector<dist::WaitOp> waits;
  module.walk([&](dist::WaitOp wait) { waits.push_back(wait); });
  if (waits.empty())
    return {};

  MLIRContext *context = module.getContext();
  auto mark = StringAttr::get(context, "tdist.wait_index");
  OwningOpRef<ModuleOp> copy = module.clone();
  int64_t index = 0;
  copy->walk([&](dist::WaitOp wait) {
    wait->setAttr(mark, IntegerAttr::get(IntegerType::get(context, 64), index++));
  });
  PassManager pm(context, module->getName().getStringRef());
  buildTTIRStage(pm);
  buildTTAdapterStage(pm, AscendPipelineOptions());
  {
    ScopedDiagnosticHandler silence(context, [](Diagnostic &) { return success(); });
    if (failed(pm.run(*copy)))
      return {};
  }

  llvm::BitVector kept(waits.size());
  copy->walk([&](Operation *op) {
    if (auto index = op->getAttrOfType<IntegerAttr>(mark))
      kept.set(index.getInt());
  });
  SmallVector<dist::WaitOp> removed;
  for (auto [index, wait] : llvm::enumerate(waits)) {
    if (kept.test(index))
      continue;
    auto function = wait->getParentOfType<FunctionOpInterface>();
    if (function && function.isPrivate() && SymbolTable::symbolKnownUseEmpty(function, module))
      continue;
    removed.push_back(wait);
  }
  return removed;
}

void registerPipelines() {
  PassPipelineRegistration<AscendPipelineOptions>(
      "tdist-ascend-pipeline",
      "The distributed part of the Ascend compilation (seed 001 §4.1): the ttir stage "
      "(inline, canonicalize, cse, licm), then the ttadapter stage, which starts with "
      "convert-triton-distributed-to-hivm; the marks of trace spans are dropped",
      buildAscendPipeline);
  PassPipelineRegistration<CpuPipelineOptions>(
      "tdist-cpu-pipeline",
      "Lowers a kernel to the LLVM dialect for the cpu backend: the Ascend pipeline's "
      "stages, then convert-hivm-distributed-to-call (calls of the device template "
      "library), then tdist-trace-spans, then upstream's lowering of func, arith, scf, "
      "memref, linalg and math",
      buildCpuPipeline);
}

} // namespace mlir::tdist
