//===- InterchangeReductions.cpp - reductions outside the contiguous loop -===//
//
// For the cpu backend's loop lowering: the innermost loop of a contraction
// should run along the output's contiguous dimension, not along a reduction.
//
//===----------------------------------------------------------------------===//
#include "tdist/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tdist {
#define GEN_PASS_DEF_INTERCHANGEREDUCTIONSPASS
#include "tdist/Transforms/Passes.h.inc"
} // namespace mlir::tdist

using namespace mlir;

/// Whether every operand indexed by `loop` has it as its last index, so that a
/// loop over it walks each of them contiguously (or leaves it unchanged).
static bool contiguousInEveryOperand(linalg::LinalgOp op, unsigned loop) {
  for (AffineMap map : op.getIndexingMapsArray()) {
    if (!map.isFunctionOfDim(loop))
      continue;
    auto last = map.getNumResults() ? dyn_cast<AffineDimExpr>(map.getResults().back()) : nullptr;
    if (!last || last.getPosition() != loop)
      return false;
    for (AffineExpr result : map.getResults().drop_back())
      if (result.isFunctionOfDim(loop))
        return false;
  }
  return true;
}

/// The new order of `op`'s loops (the interchange vector), or none when the
/// op is fine as it is: its innermost iterator is not a reduction, its
/// output's last index is not a parallel iterator, or some operand is not
/// contiguous along that iterator (a row sum, say, is better left reading rows).
static std::optional<SmallVector<unsigned>> reductionsOutward(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumLoops() < 2)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators.back() != utils::IteratorType::reduction)
    return std::nullopt;
  AffineMap output = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (output.getNumResults() == 0)
    return std::nullopt;
  auto last = dyn_cast<AffineDimExpr>(output.getResults().back());
  if (!last || iterators[last.getPosition()] != utils::IteratorType::parallel)
    return std::nullopt;
  unsigned contiguous = last.getPosition();
  if (!contiguousInEveryOperand(op, contiguous))
    return std::nullopt;
  SmallVector<unsigned> order;
  for (unsigned loop = 0; loop < iterators.size(); ++loop)
    if (iterators[loop] == utils::IteratorType::parallel && loop != contiguous)
      order.push_back(loop);
  for (unsigned loop = 0; loop < iterators.size(); ++loop)
    if (iterators[loop] == utils::IteratorType::reduction)
      order.push_back(loop);
  order.push_back(contiguous);
  return order;
}

namespace {
struct InterchangeReductionsPass
    : mlir::tdist::impl::InterchangeReductionsPassBase<InterchangeReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && reductionsOutward(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      SmallVector<unsigned> order = *reductionsOutward(op);
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized = linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;  // a named op without a region builder stays as it is
        generic = *generalized;
      }
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order)))
        return signalPassFailure();
    }
  }
};
} // namespace
