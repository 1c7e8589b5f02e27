//===- MemRefCopyToLinalg.cpp - copies a GPU kernel can run ---------------===//
//
// For the cuda backend: a memref.copy between strided memrefs would become a
// call of the host runner library's memrefCopy; as a linalg.copy it becomes
// loops in the kernel.
//
//===----------------------------------------------------------------------===//
#include "tdist/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tdist {
#define GEN_PASS_DEF_MEMREFCOPYTOLINALGPASS
#include "tdist/Transforms/Passes.h.inc"
} // namespace mlir::tdist

using namespace mlir;

namespace {

struct CopyToLinalg : OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::CopyOp copy, PatternRewriter &rewriter) const override {
    // An unranked memref has no loops to write.
    if (!isa<MemRefType>(copy.getSource().getType()) || !isa<MemRefType>(copy.getTarget().getType()))
      return rewriter.notifyMatchFailure(copy, "unranked memref");
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(), copy.getTarget());
    return success();
  }
};

struct MemRefCopyToLinalgPass
    : mlir::tdist::impl::MemRefCopyToLinalgPassBase<MemRefCopyToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CopyToLinalg>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
