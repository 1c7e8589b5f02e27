//===- TritonDistributedToHIVMPass.cpp - convert-triton-distributed-to-hivm ===//
//
// The driver of seed 001 §3.2: scan for a matrix product, then rewrite the
// distributed ops greedily and leave everything else as it is.
//
//===----------------------------------------------------------------------===//
#include "tdist/Conversion/TritonDistributedToHIVM/TritonDistributedToHIVM.h"

#include "tdist/Dialect/Distributed/IR/Distributed.h"
#include "tdist/Dialect/HIVM/IR/HIVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::triton {
#define GEN_PASS_DEF_CONVERTTRITONDISTRIBUTEDTOHIVM
#include "tdist/Conversion/TritonDistributedToHIVM/Passes.h.inc"
} // namespace mlir::triton

using namespace mlir;
using namespace mlir::triton;

// tt.dot and tt.dot_scaled are matched by name: tdist has no Triton dialect,
// and the ops reach us unregistered. On the linalg side any contraction with
// M, N and K dimensions counts (matmul, batch_matmul, transposed or generic
// forms), since that is what runs on the cube unit; dot and matvec do not.
static bool isMatrixProduct(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name == "tt.dot" || name == "tt.dot_scaled")
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalg::isaContractionOpInterface(linalgOp))
    return false;
  FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(linalgOp);
  return succeeded(dims) && !dims->m.empty() && !dims->n.empty() && !dims->k.empty();
}

bool triton::containsMatrixProduct(Operation *root) {
  return root->walk([](Operation *op) {
               return isMatrixProduct(op) ? WalkResult::interrupt() : WalkResult::advance();
             })
      .wasInterrupted();
}

static bool isDistributedOp(Operation *op) {
  return isa_and_present<distributed::DistributedDialect>(op->getDialect());
}

namespace {
struct ConvertTritonDistributedToHIVMPass
    : triton::impl::ConvertTritonDistributedToHIVMBase<ConvertTritonDistributedToHIVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    RewritePatternSet patterns(&getContext());
    populateTritonDistributedToHIVMPatterns(patterns, containsMatrixProduct(module));

    // Every op is checked before anything changes, dead ones too (the driver
    // erases those unseen), so that all problems are reported and a failed
    // pass leaves the module as it was.
    SmallVector<Operation *> distributedOps;
    bool lowerable = true;
    module.walk([&](Operation *op) {
      if (!isDistributedOp(op))
        return;
      distributedOps.push_back(op);
      if (failed(getAclshmemSymbol(op, [&](const Twine &why) { op->emitError(why); })))
        lowerable = false;
    });
    if (!lowerable)
      return signalPassFailure();

    // Only the distributed ops are on the worklist and nothing is folded: the
    // rest of the module must reach the single-device stages as it came.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps)
        .enableFolding(false)
        .enableConstantCSE(false);
    (void)applyOpPatternsGreedily(distributedOps, std::move(patterns), config);

    WalkResult leftOver = module.walk([](Operation *op) {
      if (!isDistributedOp(op))
        return WalkResult::advance();
      op->emitError("was not lowered to hivm.hir.custom");
      return WalkResult::interrupt();
    });
    if (leftOver.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
