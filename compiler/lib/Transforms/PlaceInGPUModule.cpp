//===- PlaceInGPUModule.cpp - a module's functions as a GPU module --------===//
//
// For the cuda backend: the kernels of a module, lowered to upstream dialects,
// become the kernels of one gpu.module that the NVVM target compiles.
//
//===----------------------------------------------------------------------===//
#include "tdist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tdist {
#define GEN_PASS_DEF_PLACEINGPUMODULEPASS
#include "tdist/Transforms/Passes.h.inc"
} // namespace mlir::tdist

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kCInterfacePrefix = "_mlir_ciface_";

/// A program of the grid is one block of one thread.
constexpr int32_t kProgramBlock[] = {1, 1, 1};

LogicalResult checkKernel(func::FuncOp function, ModuleOp module) {
  if (function.getNumResults() != 0)
    return function.emitOpError("is a kernel (a public function) and returns ")
           << function.getResultTypes() << "; a kernel returns nothing (write results to a memref)";
  if (std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(function, module)) {
    for (const SymbolTable::SymbolUse &use : *uses) {
      InFlightDiagnostic error = use.getUser()->emitOpError("uses the kernel @")
                                 << function.getName()
                                 << ", which runs only as a launch on the GPU; make it private "
                                    "to call it as a function";
      error.attachNote(function.getLoc()) << "the kernel";
      return error;
    }
  }
  return success();
}

/// `function` as a gpu.func kernel with the same name, signature and body.
void makeKernel(OpBuilder &builder, func::FuncOp function) {
  builder.setInsertionPoint(function);
  auto kernel = gpu::GPUFuncOp::create(builder, function.getLoc(), function.getName(),
                                       function.getFunctionType());
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(kProgramBlock));
  if (ArrayAttr arguments = function.getAllArgAttrs())
    kernel.setAllArgAttrs(arguments);
  // The gpu.func comes with an entry block of its own; the function's body
  // replaces it.
  kernel.getBody().getBlocks().clear();
  kernel.getBody().takeBody(function.getBody());
  kernel.walk([&](func::ReturnOp ret) {
    builder.setInsertionPoint(ret);
    gpu::ReturnOp::create(builder, ret.getLoc(), ret.getOperands());
    ret.erase();
  });
  function.erase();
}

struct PlaceInGPUModulePass : mlir::tdist::impl::PlaceInGPUModulePassBase<PlaceInGPUModulePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module.getOps<gpu::GPUModuleOp>().empty()) {
      module.emitOpError("already holds a gpu.module; tdist-place-in-gpu-module makes the only one");
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> kernels;
    for (auto function : module.getOps<func::FuncOp>())
      if (function.isPublic() && !function.isExternal())
        kernels.push_back(function);
    for (func::FuncOp kernel : kernels)
      if (failed(checkKernel(kernel, module)))
        return signalPassFailure();
    if (failed(restoreLinkNames(module)))
      return signalPassFailure();

    OpBuilder builder(&getContext());
    builder.setInsertionPointToEnd(module.getBody());
    auto device = gpu::GPUModuleOp::create(builder, module.getLoc(), moduleName);
    Block &body = device.getBodyRegion().front();
    for (Operation &op : llvm::make_early_inc_range(module.getBody()->without_terminator()))
      if (&op != device.getOperation())
        op.moveBefore(&body, body.end());
    for (func::FuncOp kernel : kernels)
      makeKernel(builder, kernel);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), builder.getUnitAttr());
  }

  /// Removes the C-interface prefix from the declarations that carry it in
  /// their link names (those without memrefs), since the NVVM lowering adds
  /// it to every function of a gpu.module.
  LogicalResult restoreLinkNames(ModuleOp module) {
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> declarations;
    for (auto function : module.getOps<func::FuncOp>())
      if (function.isExternal() && function.getName().starts_with(kCInterfacePrefix) &&
          !function->hasAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName()))
        declarations.push_back(function);
    for (func::FuncOp function : declarations) {
      StringRef bare = function.getName().drop_front(kCInterfacePrefix.size());
      if (Operation *other = symbols.lookup(bare)) {
        InFlightDiagnostic error = function.emitOpError("is called as @")
                                   << bare << " in a GPU module, a name that the module already has";
        error.attachNote(other->getLoc()) << "the other @" << bare;
        return error;
      }
      if (failed(symbols.rename(function, bare)))
        return function.emitOpError("could not be renamed to @") << bare;
    }
    return success();
  }
};

} // namespace
