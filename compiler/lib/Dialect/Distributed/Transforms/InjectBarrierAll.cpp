//===- InjectBarrierAll.cpp - barrier_all around communication ------------===//
//
// The debugging switch of the seeds: with a barrier_all before and after each
// communicating operation, no fine-grained synchronization is left to get
// wrong.
//
//===----------------------------------------------------------------------===//
#include "tdist/Dialect/Distributed/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::triton::distributed {
#define GEN_PASS_DEF_DISTRIBUTEDINJECTBARRIERALLPASS
#include "tdist/Dialect/Distributed/Transforms/Passes.h.inc"
} // namespace mlir::triton::distributed

using namespace mlir;
using namespace mlir::triton::distributed;

static constexpr StringLiteral kBarrierAll = "aclshmem_barrier_all";

static bool isBarrierAll(Operation *op) {
  auto call = dyn_cast<ExternCallOp>(op);
  return call && call.getSymbol() == kBarrierAll && call.getSrcs().empty() &&
         call.getResults().empty();
}

/// Whether `op` is ordered against other PEs, which the memory effects say:
/// wait, notify, symm_at and non-pure extern_call have effects; get_rank,
/// get_num_ranks, consume_token and pure extern_call have none.
static bool needsBarriers(Operation *op) {
  return isa_and_nonnull<DistributedDialect>(op->getDialect()) && !isMemoryEffectFree(op) &&
         !isBarrierAll(op);
}

enum class Side { Before, After };

/// Whether a barrier_all is reached from `op` on `side` across effect-free
/// operations only. Such a barrier already separates `op` from every memory
/// access on that side: a second one would only cost a synchronization.
static bool hasBarrierOn(Side side, Operation *op) {
  auto step = [side](Operation *from) {
    return side == Side::Before ? from->getPrevNode() : from->getNextNode();
  };
  for (Operation *other = step(op); other; other = step(other)) {
    if (isBarrierAll(other))
      return true;
    if (!isMemoryEffectFree(other))
      return false;
  }
  return false;
}

namespace {
struct InjectBarrierAllPass
    : triton::distributed::impl::DistributedInjectBarrierAllPassBase<InjectBarrierAllPass> {
  void runOnOperation() override {
    SmallVector<Operation *> targets;
    getOperation()->walk([&](Operation *op) {
      if (needsBarriers(op))
        targets.push_back(op);
    });
    // In program order, so that the barrier after one target is found by the
    // next one.
    OpBuilder builder(&getContext());
    for (Operation *op : targets) {
      if (!hasBarrierOn(Side::Before, op)) {
        builder.setInsertionPoint(op);
        ExternCallOp::create(builder, op->getLoc(), TypeRange(), ValueRange(), kBarrierAll);
      }
      if (!hasBarrierOn(Side::After, op)) {
        builder.setInsertionPointAfter(op);
        ExternCallOp::create(builder, op->getLoc(), TypeRange(), ValueRange(), kBarrierAll);
      }
    }
  }
};
} // namespace
