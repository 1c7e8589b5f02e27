//===- MapProgramsToBlocks.cpp - a program of the grid is a thread block --===//
//
// For the cuda backend: the template library's program queries, which the
// cpu backend answers from its runner's grid, become the block's coordinates.
//
//===----------------------------------------------------------------------===//
#include "tdist/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tdist {
#define GEN_PASS_DEF_MAPPROGRAMSTOBLOCKSPASS
#include "tdist/Transforms/Passes.h.inc"
} // namespace mlir::tdist

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kProgramId = "_mlir_ciface_tdist_program_id";
constexpr llvm::StringLiteral kNumPrograms = "_mlir_ciface_tdist_num_programs";

/// The block's coordinate (program id) or the grid's size (number of
/// programs) along `dimension`.
Value coordinate(OpBuilder &builder, Location loc, bool programId, gpu::Dimension dimension) {
  if (programId)
    return gpu::BlockIdOp::create(builder, loc, dimension);
  return gpu::GridDimOp::create(builder, loc, dimension);
}

/// The query's answer as an index: one dimension for a constant axis, a
/// choice among the three (behind an assertion that the axis is one of them)
/// for an axis known at run time.
FailureOr<Value> answer(OpBuilder &builder, func::CallOp call, bool programId) {
  Location loc = call.getLoc();
  Value axis = call.getOperand(0);
  const gpu::Dimension dimensions[] = {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
  APInt constant;
  if (matchPattern(axis, m_ConstantInt(&constant))) {
    int64_t value = constant.getSExtValue();
    if (value < 0 || value > 2)
      return call.emitOpError("asks for axis ")
             << value << " of the grid; a GPU grid has the axes 0, 1 and 2";
    return coordinate(builder, loc, programId, dimensions[value]);
  }
  auto is = [&](int64_t value) {
    Value constant = arith::ConstantOp::create(builder, loc, builder.getIntegerAttr(axis.getType(), value));
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, axis, constant).getResult();
  };
  Value isY = is(1), isZ = is(2);
  Value inRange = arith::OrIOp::create(builder, loc, is(0), arith::OrIOp::create(builder, loc, isY, isZ));
  cf::AssertOp::create(builder, loc, inRange,
                       (call.getCallee() + ": the axis is not 0, 1 or 2").str());
  Value z = coordinate(builder, loc, programId, gpu::Dimension::z);
  Value y = coordinate(builder, loc, programId, gpu::Dimension::y);
  Value x = coordinate(builder, loc, programId, gpu::Dimension::x);
  Value zOrX = arith::SelectOp::create(builder, loc, isZ, z, x);
  return arith::SelectOp::create(builder, loc, isY, y, zOrX).getResult();
}

struct MapProgramsToBlocksPass
    : mlir::tdist::impl::MapProgramsToBlocksPassBase<MapProgramsToBlocksPass> {
  void runOnOperation() override {
    SmallVector<func::CallOp> queries;
    bool malformed = false;
    getOperation()->walk([&](func::CallOp call) {
      StringRef callee = call.getCallee();
      if (callee != kProgramId && callee != kNumPrograms)
        return;
      if (call.getNumOperands() != 1 || call.getNumResults() != 1 ||
          !call.getOperand(0).getType().isInteger() || !call.getResult(0).getType().isInteger()) {
        call.emitOpError("calls ") << callee << " with type " << call.getCalleeType()
                                   << "; it takes an integer axis and returns an integer";
        malformed = true;
        return;
      }
      queries.push_back(call);
    });
    if (malformed)
      return signalPassFailure();

    OpBuilder builder(&getContext());
    for (func::CallOp call : queries) {
      builder.setInsertionPoint(call);
      FailureOr<Value> index = answer(builder, call, call.getCallee() == kProgramId);
      if (failed(index))
        return signalPassFailure();
      Value result =
          arith::IndexCastOp::create(builder, call.getLoc(), call.getResult(0).getType(), *index);
      call.getResult(0).replaceAllUsesWith(result);
      call.erase();
    }

    // The declarations that nothing calls any more.
    getOperation()->walk([](func::FuncOp function) {
      if (function.isExternal() && (function.getName() == kProgramId || function.getName() == kNumPrograms) &&
          SymbolTable::symbolKnownUseEmpty(function, function->getParentOp()))
        function.erase();
    });
  }
};

} // namespace
