//===- tdist-opt.cpp - the optimizer driver -------------------------------===//
//
// mlir-opt with the distributed and hivm dialects, their passes, and the
// upstream dialects and passes that kernels and pipelines use.
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include "tdist/Compiler/Registration.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  mlir::tdist::registerPassesAndPipelines();

  mlir::DialectRegistry registry;
  registry.insert<mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::LLVM::LLVMDialect, mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
  mlir::func::registerInlinerExtension(registry);
  mlir::tdist::registerDialects(registry);
  mlir::tdist::registerCudaTarget(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tdist optimizer driver\n", registry));
}
