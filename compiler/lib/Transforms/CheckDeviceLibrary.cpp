//===- CheckDeviceLibrary.cpp - a GPU module's calls against its library --===//
//
// For the cuda backend: the functions a kernel calls resolve against the
// device library's bitcode when the NVVM target links it; this pass reports
// what would not resolve, or resolve with another type, at the call.
//
//===----------------------------------------------------------------------===//
#include "tdist/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Target/LLVMIR/TypeToLLVM.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tdist {
#define GEN_PASS_DEF_CHECKDEVICELIBRARYPASS
#include "tdist/Transforms/Passes.h.inc"
} // namespace mlir::tdist

using namespace mlir;

namespace {

/// Functions that the device library does not define and need not: LLVM's
/// intrinsics, libdevice's math (linked from the toolkit), and the CUDA
/// driver's own (printf and assert of kernels, device malloc).
bool providedElsewhere(StringRef name) {
  static const llvm::StringSet<> driver = {"vprintf", "__assertfail", "malloc", "free"};
  return name.starts_with("llvm.") || name.starts_with("__nv_") || driver.contains(name);
}

/// Where the diagnostic about `function` goes: its first call, else itself.
Operation *firstUse(LLVM::LLVMFuncOp function, Operation *module) {
  if (std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(function, module))
    for (const SymbolTable::SymbolUse &use : *uses)
      return use.getUser();
  return function;
}

std::string printed(llvm::Type *type) {
  std::string text;
  llvm::raw_string_ostream out(text);
  type->print(out);
  return text;
}

struct CheckDeviceLibraryPass
    : mlir::tdist::impl::CheckDeviceLibraryPassBase<CheckDeviceLibraryPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> declared;
    for (auto function : module.getOps<LLVM::LLVMFuncOp>())
      if (function.isExternal() && !providedElsewhere(function.getName()))
        declared.push_back(function);
    if (declared.empty())
      return;

    llvm::LLVMContext context;
    llvm::SMDiagnostic error;
    // Lazily: only the declarations are read, not the bodies.
    std::unique_ptr<llvm::Module> library = llvm::getLazyIRFileModule(libraryPath(), error, context);
    if (!library) {
      module.emitError("cannot read the device library ")
          << libraryPath() << ": " << error.getMessage();
      return signalPassFailure();
    }
    LLVM::TypeToLLVMIRTranslator translator(context);
    bool failed = false;
    for (LLVM::LLVMFuncOp function : declared) {
      llvm::Function *defined = library->getFunction(function.getName());
      if (!defined || defined->isDeclaration()) {
        firstUse(function, module)->emitError("calls '")
            << function.getName() << "', which the device library (" << libraryPath()
            << ") does not define";
        failed = true;
        continue;
      }
      llvm::Type *called = translator.translateType(function.getFunctionType());
      if (called != defined->getFunctionType()) {
        firstUse(function, module)->emitError("calls '")
            << function.getName() << "' as '" << printed(called)
            << "', but the device library defines it as '" << printed(defined->getFunctionType())
            << "'";
        failed = true;
      }
    }
    if (failed)
      signalPassFailure();
  }

  StringRef libraryPath() const { return library; }
};

} // namespace
