//===- HIVMToCall.cpp - distributed hivm.hir.custom to func.call ----------===//
#include "tdist/Conversion/HIVMToCall/HIVMToCall.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "tdist/Dialect/HIVM/IR/HIVM.h"

namespace mlir::hivm {
#define GEN_PASS_DEF_CONVERTHIVMDISTRIBUTEDTOCALL
#include "tdist/Conversion/HIVMToCall/Passes.h.inc"
} // namespace mlir::hivm

using namespace mlir;
using namespace mlir::hivm;

namespace {

/// The call's arguments: ins, then memref outs (tensor outs only give types).
SmallVector<Value> callArguments(CustomOp op) {
  SmallVector<Value> args(op.getInputs().begin(), op.getInputs().end());
  for (Value init : op.getOutputs())
    if (isa<BaseMemRefType>(init.getType()))
      args.push_back(init);
  return args;
}

StringRef bareSymbol(CustomOp op) {
  if (auto symbol = op.getSymbol())
    return *symbol;
  StringRef name = op.getName();
  name.consume_front("dist.");
  return name;
}

/// The one memref type a library function of this rank and element type takes:
/// dynamic sizes, strides and offset, so that every caller's layout casts to it.
Type canonicalType(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return type;
  SmallVector<int64_t> dynamic(memref.getRank(), ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, dynamic);
  return MemRefType::get(dynamic, memref.getElementType(), layout, memref.getMemorySpace());
}

bool hasMemRef(TypeRange types) {
  return llvm::any_of(types, [](Type type) { return isa<BaseMemRefType>(type); });
}

} // namespace

std::string mlir::hivm::getLinkName(CustomOp op) {
  SmallVector<Value> args = callArguments(op);
  SmallVector<Type> types = llvm::to_vector(ValueRange(args).getTypes());
  llvm::append_range(types, op.getResultTypes());
  std::string name;
  if (!hasMemRef(types))
    name = "_mlir_ciface_";
  name += bareSymbol(op).str();
  for (Type type : types)
    if (auto memref = dyn_cast<MemRefType>(type))
      name += "_m" + std::to_string(memref.getRank());
    else if (isa<UnrankedMemRefType>(type))
      name += "_mu";
  return name;
}

namespace {

struct DistributedCustomToCall : OpRewritePattern<CustomOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CustomOp op, PatternRewriter &rewriter) const override {
    if (!op.isDistributed())
      return rewriter.notifyMatchFailure(op, "not a distributed custom op");
    auto module = op->getParentOfType<ModuleOp>();
    std::string name = getLinkName(op);
    // Memrefs travel in the canonical type of their rank: cast in, and cast results back.
    SmallVector<Value> args;
    for (Value arg : callArguments(op)) {
      Type canonical = canonicalType(arg.getType());
      args.push_back(canonical == arg.getType()
                         ? arg
                         : Value(memref::CastOp::create(rewriter, op.getLoc(), canonical, arg)));
    }
    SmallVector<Type> resultTypes =
        llvm::map_to_vector(op.getResultTypes(), [](Type t) { return canonicalType(t); });
    auto type = rewriter.getFunctionType(ValueRange(args).getTypes(), resultTypes);

    auto callee = module.lookupSymbol<func::FuncOp>(name);
    if (!callee) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      callee = func::FuncOp::create(rewriter, op.getLoc(), name, type);
      callee.setPrivate();
      SmallVector<Type> all(type.getInputs());
      llvm::append_range(all, type.getResults());
      if (hasMemRef(all))
        callee->setAttr("llvm.emit_c_interface", rewriter.getUnitAttr());
    } else if (callee.getFunctionType() != type) {
      return op.emitOpError("links to '")
             << name << "', already declared with type " << callee.getFunctionType()
             << ", not " << type;
    }
    auto call = func::CallOp::create(rewriter, op.getLoc(), callee, args);
    SmallVector<Value> results;
    for (auto [result, expected] : llvm::zip(call.getResults(), op.getResultTypes()))
      results.push_back(result.getType() == expected
                            ? Value(result)
                            : Value(memref::CastOp::create(rewriter, op.getLoc(), expected, result)));
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ConvertHIVMDistributedToCallPass
    : mlir::hivm::impl::ConvertHIVMDistributedToCallBase<ConvertHIVMDistributedToCallPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateHIVMDistributedToCallPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // A type clash leaves the op in place with an error: the pass has failed.
    bool left = false;
    getOperation().walk([&](CustomOp op) { left |= op.isDistributed(); });
    if (left)
      signalPassFailure();
  }
};

} // namespace

void mlir::hivm::populateHIVMDistributedToCallPatterns(RewritePatternSet &patterns) {
  patterns.add<DistributedCustomToCall>(patterns.getContext());
}
