//===- HIVMToCall.cpp - distributed hivm.hir.custom to func.call ----------===//
#include "tdist/Conversion/HIVMToCall/HIVMToCall.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringMap.h"

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

/// A signed integer is the signless one of its width: the library's C
/// functions know no signedness (`int32_t` is i32 and si32 alike).
Type signless(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || !integer.isSigned())
    return type;
  return IntegerType::get(type.getContext(), integer.getWidth());
}

/// A memref of the same rank, element type and memory space, with dynamic
/// sizes, strides and offset, which every layout casts to.
MemRefType dynamicLayout(MemRefType memref, Type elementType) {
  SmallVector<int64_t> dynamic(memref.getRank(), ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(memref.getContext(), ShapedType::kDynamic, dynamic);
  return MemRefType::get(dynamic, elementType, layout, memref.getMemorySpace());
}

/// The one type a library function takes or returns for a value of `type`:
/// memrefs in their rank's dynamic layout, integers and memref elements
/// signless. Every caller's form of a symbol then has one declaration.
Type canonicalType(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return dynamicLayout(memref, signless(memref.getElementType()));
  return signless(type);
}

bool hasMemRef(TypeRange types) {
  return llvm::any_of(types, [](Type type) { return isa<BaseMemRefType>(type); });
}

/// `value` in its canonical type: a memref.cast to the dynamic layout, then,
/// for a signed integer or memref of them, an unrealized_conversion_cast to
/// the signless type, which the LLVM lowering erases (both are one LLVM type).
Value castToCanonical(OpBuilder &builder, Location loc, Value value) {
  Type canonical = canonicalType(value.getType());
  if (auto memref = dyn_cast<MemRefType>(value.getType())) {
    MemRefType layout = dynamicLayout(memref, memref.getElementType());
    if (layout != memref)
      value = memref::CastOp::create(builder, loc, layout, value);
  }
  if (value.getType() != canonical)
    value = UnrealizedConversionCastOp::create(builder, loc, canonical, value).getResult(0);
  return value;
}

/// The inverse of castToCanonical, for the call's results.
Value castFromCanonical(OpBuilder &builder, Location loc, Value value, Type type) {
  Type layout = type;
  if (auto memref = dyn_cast<MemRefType>(type))
    layout = dynamicLayout(memref, memref.getElementType());
  if (value.getType() != layout)
    value = UnrealizedConversionCastOp::create(builder, loc, layout, value).getResult(0);
  if (value.getType() != type)
    value = memref::CastOp::create(builder, loc, type, value);
  return value;
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

FunctionType mlir::hivm::getCallType(CustomOp op) {
  SmallVector<Type> inputs = llvm::map_to_vector(
      callArguments(op), [](Value arg) { return canonicalType(arg.getType()); });
  SmallVector<Type> results = llvm::map_to_vector(op.getResultTypes(), canonicalType);
  return FunctionType::get(op.getContext(), inputs, results);
}

namespace {

struct DistributedCustomToCall : OpRewritePattern<CustomOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CustomOp op, PatternRewriter &rewriter) const override {
    if (!op.isDistributed())
      return rewriter.notifyMatchFailure(op, "not a distributed custom op");
    auto module = op->getParentOfType<ModuleOp>();
    std::string name = getLinkName(op);
    FunctionType type = getCallType(op);
    auto callee = module.lookupSymbol<func::FuncOp>(name);
    if (callee && callee.getFunctionType() != type)
      return rewriter.notifyMatchFailure(op, "the link name is declared with another type");

    if (!callee) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      callee = func::FuncOp::create(rewriter, op.getLoc(), name, type);
      callee.setPrivate();
      SmallVector<Type> all(type.getInputs());
      llvm::append_range(all, type.getResults());
      if (hasMemRef(all))
        callee->setAttr("llvm.emit_c_interface", rewriter.getUnitAttr());
    }
    SmallVector<Value> args = llvm::map_to_vector(callArguments(op), [&](Value arg) {
      return castToCanonical(rewriter, op.getLoc(), arg);
    });
    auto call = func::CallOp::create(rewriter, op.getLoc(), callee, args);
    // A trace span's marks stay with the operation they name (tdist-trace-spans).
    for (StringRef mark : {"tdist.span", "tdist.span_category"})
      if (Attribute value = op->getAttr(mark))
        call->setAttr(mark, value);
    SmallVector<Value> results;
    for (auto [result, expected] : llvm::zip(call.getResults(), op.getResultTypes()))
      results.push_back(castFromCanonical(rewriter, op.getLoc(), result, expected));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Where a link name got its type: a function of the module, or the first
/// custom op that links to it.
struct Declaration {
  FunctionType type;
  Operation *where;
};

struct ConvertHIVMDistributedToCallPass
    : mlir::hivm::impl::ConvertHIVMDistributedToCallBase<ConvertHIVMDistributedToCallPass> {
  void runOnOperation() override {
    // Each link name has one type. It is checked for every op before anything
    // changes, so that each clash is reported once and a failed pass leaves
    // the module as it was.
    DenseMap<Operation *, llvm::StringMap<Declaration>> declarations;
    bool clash = false;
    getOperation().walk([&](CustomOp op) {
      if (!op.isDistributed())
        return;
      auto module = op->getParentOfType<ModuleOp>();
      auto [known, first] = declarations.try_emplace(module);
      if (first)
        for (auto function : module.getOps<func::FuncOp>())
          known->second[function.getName()] = {function.getFunctionType(), function};
      std::string name = getLinkName(op);
      FunctionType type = getCallType(op);
      auto [declared, inserted] = known->second.try_emplace(name, Declaration{type, op});
      if (inserted || declared->second.type == type)
        return;
      Operation *where = declared->second.where;
      InFlightDiagnostic error = op.emitOpError("links to '");
      error << name << "', already declared with type " << declared->second.type << ", not "
            << type;
      error.attachNote(where->getLoc())
          << (isa<func::FuncOp>(where) ? "declared here" : "first linked here");
      clash = true;
    });
    if (clash)
      return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    populateHIVMDistributedToCallPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult left = getOperation().walk([](CustomOp op) {
      if (!op.isDistributed())
        return WalkResult::advance();
      op.emitOpError("was not lowered to a call");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::hivm::populateHIVMDistributedToCallPatterns(RewritePatternSet &patterns) {
  patterns.add<DistributedCustomToCall>(patterns.getContext());
}
