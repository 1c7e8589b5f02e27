//===- Pipelines.cpp - named pass pipelines -------------------------------===//
#include "tdist/Pipelines/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

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

// The stages the executable pipelines share: the Ascend pipeline's, then the
// custom ops as calls of the template library's link names.
static void buildLibraryCalls(OpPassManager &pm, bool injectBarrierAll) {
  AscendPipelineOptions adapter;
  adapter.injectBarrierAll = injectBarrierAll;
  buildTTIRStage(pm);
  buildTTAdapterStage(pm, adapter);
  pm.addPass(hivm::createConvertHIVMDistributedToCall());
  pm.addPass(createCanonicalizerPass());
}

void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options) {
  buildLibraryCalls(pm, options.injectBarrierAll.getValue());
  // After the Ascend stages, which carry the marks as they are: the HIVM form
  // is the same with spans or without.
  TraceSpansPassOptions spans;
  spans.record = options.traceSpans.getValue();
  pm.addPass(createTraceSpansPass(spans));
  buildLowerToLLVM(pm);
}

// The device library is built with clang's -fcuda-short-ptr, the data layout
// of Triton's modules (32-bit shared, constant and local pointers), which
// NVPTX gives a target machine only through this option; the NVVM target's
// machine would otherwise have 64-bit ones, and LLVM's linker warns about two
// data layouts and keeps one.
static void useShortDevicePointers() {
  auto &&registered = llvm::cl::getRegisteredOptions();
  auto option = registered.find("nvptx-short-ptr");
  if (option != registered.end())
    static_cast<llvm::cl::opt<bool> *>(option->second)->setValue(true);
}

// lib/libtdist_device.bc beside the program's bin/: in the build tree and in
// an installation alike.
static std::string defaultDeviceLibrary() {
  std::string program = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&defaultDeviceLibrary));
  SmallString<256> path(llvm::sys::path::parent_path(llvm::sys::path::parent_path(program)));
  llvm::sys::path::append(path, "lib", "libtdist_device.bc");
  return std::string(path);
}

LogicalResult buildCudaPipeline(OpPassManager &pm, const CudaPipelineOptions &options,
                                function_ref<LogicalResult(const Twine &)> errorHandler) {
  StringRef format = options.format.getValue();
  if (!llvm::is_contained({"bin", "fatbin", "isa", "nvvm"}, format))
    return errorHandler("tdist-cuda-pipeline: format=" + format +
                        " is none of bin, fatbin, isa and nvvm");
  std::string library = options.deviceLibrary.getValue();
  if (library.empty())
    library = defaultDeviceLibrary();
  if (!llvm::sys::fs::is_regular_file(library))
    return errorHandler("tdist-cuda-pipeline: no device library at " + library +
                        " (build the target tdist_device_bitcode, which needs clang++-22, or "
                        "name the file with device-library=PATH)");
  useShortDevicePointers();

  buildLibraryCalls(pm, options.injectBarrierAll.getValue());
  dropTraceSpanMarks(pm);
  pm.addPass(createMapProgramsToBlocksPass());
  // A kernel's own code: loops of scalar loads and stores, run by the
  // program's one thread.
  pm.addPass(createMemRefCopyToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createPlaceInGPUModulePass());

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip.getValue();
  target.optLevel = 3;
  target.linkLibs = {library};
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addPass(createReconcileUnrealizedCastsPass());
  CheckDeviceLibraryPassOptions check;
  check.library = library;
  pm.addNestedPass<gpu::GPUModuleOp>(createCheckDeviceLibraryPass(check));
  if (format == "nvvm")
    return success();
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit.getValue();
  binary.compilationTarget = format.str();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  return success();
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
  registerPassPipeline(
      "tdist-cuda-pipeline",
      "Compiles a kernel for the cuda backend: the cpu pipeline's stages up to "
      "convert-hivm-distributed-to-call, each program of the grid as a thread block "
      "(tdist-map-programs-to-blocks), upstream's lowering of linalg, memref and scf, "
      "the functions in a gpu.module with the public ones as kernels "
      "(tdist-place-in-gpu-module), the NVVM target with the device library's bitcode, "
      "convert-gpu-to-nvvm, the calls checked against the library "
      "(tdist-check-device-library) and gpu-module-to-binary",
      [](OpPassManager &pm, StringRef text, function_ref<LogicalResult(const Twine &)> errorHandler) {
        CudaPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        return buildCudaPipeline(pm, options, errorHandler);
      },
      [](function_ref<void(const detail::PassOptions &)> describe) {
        describe(CudaPipelineOptions());
      });
}

} // namespace mlir::tdist
