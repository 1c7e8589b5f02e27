//===- TraceSpans.cpp - a kernel's own steps as spans of the job's trace --===//
//
// Compiled kernels record spans through the template library, as C++ kernels
// do through tdist/trace.h: a begin call before the op, an end call after it.
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

#include "tdist/Transforms/Passes.h"
#include "tdist/trace.h"

namespace mlir::tdist {
#define GEN_PASS_DEF_TRACESPANSPASS
#include "tdist/Transforms/Passes.h.inc"
} // namespace mlir::tdist

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kSpanAttr = "tdist.span";
constexpr llvm::StringLiteral kCategoryAttr = "tdist.span_category";
// The template library's link names (docs/RUNTIME.md): the name is a rank-1
// memref, so the begin call has the C interface; the end call has no memref.
constexpr llvm::StringLiteral kBeginSpan = "tdist_trace_begin_span_m1";
constexpr llvm::StringLiteral kEndSpan = "_mlir_ciface_tdist_trace_end";

struct CategoryName {
  llvm::StringLiteral name;
  int32_t value;
};
constexpr CategoryName kCategories[] = {
    {"user", TDIST_TRACE_USER}, {"call", TDIST_TRACE_CALL}, {"compute", TDIST_TRACE_COMPUTE},
    {"move", TDIST_TRACE_MOVE}, {"wait", TDIST_TRACE_WAIT},
};

/// One op to wrap: its span's name and category, and whether its tile
/// coordinates come from its output.
struct Span {
  Operation *op;
  std::string name;
  int32_t category;
  bool tile;
};

bool isBufferLinalgOp(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureBufferSemantics();
}

/// The span `op` asks for, none, or failure after an error at `op`.
FailureOr<std::optional<Span>> spanOf(Operation *op) {
  Attribute nameAttr = op->getAttr(kSpanAttr);
  Attribute categoryAttr = op->getAttr(kCategoryAttr);
  bool linalg = isBufferLinalgOp(op);
  if (!nameAttr && !categoryAttr && !linalg)
    return std::optional<Span>();

  Span span{op, "", linalg ? TDIST_TRACE_COMPUTE : TDIST_TRACE_USER, linalg};
  if (nameAttr) {
    auto name = dyn_cast<StringAttr>(nameAttr);
    if (!name || name.getValue().empty() || name.size() > TDIST_TRACE_NAME_MAX) {
      op->emitError() << "'" << kSpanAttr << "' must be the span's name, a non-empty string of at most "
                      << TDIST_TRACE_NAME_MAX << " bytes (what a trace keeps), got " << nameAttr;
      return failure();
    }
    span.name = name.str();
  } else if (linalg) {
    span.name = op->getName().stripDialect().str();
  } else {
    op->emitError() << "'" << kCategoryAttr << "' without '" << kSpanAttr
                    << "': only linalg ops get a span without naming it";
    return failure();
  }
  if (categoryAttr) {
    auto category = dyn_cast<StringAttr>(categoryAttr);
    const CategoryName *known = nullptr;
    if (category)
      for (const CategoryName &candidate : kCategories)
        if (category.getValue() == candidate.name)
          known = &candidate;
    if (!known) {
      op->emitError() << "'" << kCategoryAttr
                      << "' must be \"user\", \"call\", \"compute\", \"move\" or \"wait\", got "
                      << categoryAttr;
      return failure();
    }
    span.category = known->value;
  }

  if (op->hasTrait<OpTrait::IsTerminator>()) {
    op->emitError() << "a terminator cannot be wrapped in a span: nothing runs after it";
    return failure();
  }
  if (isa<FunctionOpInterface>(op) || !op->getParentOfType<FunctionOpInterface>()) {
    op->emitError() << "a span wraps an operation of a function's body";
    return failure();
  }
  if (op->getParentOfType<linalg::LinalgOp>()) {
    op->emitError() << "a span cannot be inside a linalg op's body, which computes one element";
    return failure();
  }
  return std::optional<Span>(span);
}

/// The function `name` of `module` if it has one of `type`, null when it has
/// none, failure (reported at `where`) when the symbol is something else.
FailureOr<func::FuncOp> existing(ModuleOp module, StringRef name, FunctionType type, Location where) {
  Operation *symbol = module.lookupSymbol(name);
  if (!symbol)
    return func::FuncOp();
  auto function = dyn_cast<func::FuncOp>(symbol);
  if (!function) {
    emitError(where) << "a trace span calls '" << name << "', which the module defines as '"
                     << symbol->getName() << "'";
    return failure();
  }
  if (function.getFunctionType() != type) {
    InFlightDiagnostic error = emitError(where) << "a trace span calls '" << name << "' with type "
                                                << type << ", but the module declares it as "
                                                << function.getFunctionType();
    error.attachNote(function.getLoc()) << "declared here";
    return failure();
  }
  return function;
}

func::FuncOp declare(ModuleOp module, StringRef name, FunctionType type, bool cInterface) {
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  auto function = func::FuncOp::create(builder, module.getLoc(), name, type);
  function.setPrivate();
  if (cInterface)
    function->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
  return function;
}

/// The memref type every caller passes a name as: the template library's
/// canonical rank-1 layout (dynamic size, stride and offset).
MemRefType nameType(MLIRContext *context) {
  auto layout = StridedLayoutAttr::get(context, ShapedType::kDynamic, {ShapedType::kDynamic});
  return MemRefType::get({ShapedType::kDynamic}, IntegerType::get(context, 8), layout);
}

/// The first two offsets of `op`'s first output, when it is a subview.
SmallVector<OpFoldResult, 2> tileOrigin(Operation *op) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (linalgOp.getNumDpsInits() == 0)
    return {};
  Value output = linalgOp.getDpsInitOperand(0)->get();
  while (auto cast = output.getDefiningOp<memref::CastOp>())
    output = cast.getSource();
  auto subview = output.getDefiningOp<memref::SubViewOp>();
  if (!subview)
    return {};
  SmallVector<OpFoldResult> offsets = subview.getMixedOffsets();
  ArrayRef<OpFoldResult> origin = ArrayRef(offsets).take_front(2);
  return SmallVector<OpFoldResult, 2>(origin.begin(), origin.end());
}

/// An i32 coordinate: a constant offset, an index value cast, or -1 (none).
Value coordinate(OpBuilder &builder, Location loc, std::optional<OpFoldResult> offset) {
  Type i32 = builder.getI32Type();
  if (!offset)
    return arith::ConstantOp::create(builder, loc, builder.getI32IntegerAttr(-1));
  if (auto value = dyn_cast<Value>(*offset))
    return arith::IndexCastOp::create(builder, loc, i32, value);
  int64_t constant = cast<IntegerAttr>(cast<Attribute>(*offset)).getInt();
  return arith::ConstantOp::create(builder, loc, builder.getI32IntegerAttr(static_cast<int32_t>(constant)));
}

struct TraceSpansPass : mlir::tdist::impl::TraceSpansPassBase<TraceSpansPass> {
  using TraceSpansPassBase::TraceSpansPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Span> spans;
    bool invalid = false;
    module.walk([&](Operation *op) {
      FailureOr<std::optional<Span>> span = spanOf(op);
      if (failed(span))
        invalid = true;
      else if (*span)
        spans.push_back(**span);
    });
    if (invalid)
      return signalPassFailure();
    if (record) {
      // Each module (a nested one too) declares what its own functions call.
      llvm::MapVector<ModuleOp, SmallVector<Span>> byModule;
      for (const Span &span : spans)
        byModule[span.op->getParentOfType<ModuleOp>()].push_back(span);
      bool declared = true;
      for (auto &[owner, owned] : byModule)
        declared &= succeeded(checkDeclarations(owner, owned.front().op->getLoc()));
      if (!declared)
        return signalPassFailure();
      for (auto &[owner, owned] : byModule)
        insertSpans(owner, owned);
    }
    for (const Span &span : spans) {
      span.op->removeAttr(kSpanAttr);
      span.op->removeAttr(kCategoryAttr);
    }
  }

  static FunctionType beginType(MLIRContext *context) {
    Type i32 = IntegerType::get(context, 32);
    return FunctionType::get(context, {nameType(context), i32, i32, i32}, {});
  }
  static FunctionType endType(MLIRContext *context) { return FunctionType::get(context, {}, {}); }

  /// Whether `module` may declare the two functions; checked in every module
  /// before any changes, so that a failed pass changes nothing.
  LogicalResult checkDeclarations(ModuleOp module, Location where) {
    bool beginOk = succeeded(existing(module, kBeginSpan, beginType(&getContext()), where));
    bool endOk = succeeded(existing(module, kEndSpan, endType(&getContext()), where));
    return success(beginOk && endOk);
  }

  void insertSpans(ModuleOp module, ArrayRef<Span> spans) {
    MLIRContext *context = &getContext();
    OpBuilder builder(context);
    Location where = spans.front().op->getLoc();
    func::FuncOp begin = *existing(module, kBeginSpan, beginType(context), where);
    func::FuncOp end = *existing(module, kEndSpan, endType(context), where);
    if (!begin)
      begin = declare(module, kBeginSpan, beginType(context), /*cInterface=*/true);
    if (!end)
      end = declare(module, kEndSpan, endType(context), /*cInterface=*/false);

    SymbolTable symbols(module);
    llvm::StringMap<memref::GlobalOp> names;
    for (const Span &span : spans) {
      memref::GlobalOp &global = names[span.name];
      if (!global)
        global = nameGlobal(symbols, module, span.name);
      Operation *op = span.op;
      Location loc = op->getLoc();
      builder.setInsertionPoint(op);
      Value bytes = memref::GetGlobalOp::create(builder, loc, global.getType(), global.getSymName());
      Value name = memref::CastOp::create(builder, loc, nameType(context), bytes);
      SmallVector<OpFoldResult, 2> origin;
      if (span.tile)
        origin = tileOrigin(op);
      auto at = [&](unsigned dim) {
        return dim < origin.size() ? std::optional<OpFoldResult>(origin[dim]) : std::nullopt;
      };
      Value m = coordinate(builder, loc, at(0));
      Value n = coordinate(builder, loc, at(1));
      Value category = arith::ConstantOp::create(builder, loc, builder.getI32IntegerAttr(span.category));
      func::CallOp::create(builder, loc, begin, ValueRange{name, m, n, category});
      builder.setInsertionPointAfter(op);
      func::CallOp::create(builder, loc, end, ValueRange{});
    }
  }

  /// A private constant global of the name's bytes (no NUL: the memref has
  /// its size), named after it where the module has that symbol free.
  memref::GlobalOp nameGlobal(SymbolTable &symbols, ModuleOp module, StringRef name) {
    std::string symbol = "tdist_span_";
    for (char c : name)
      symbol += llvm::isAlnum(c) ? c : '_';
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    auto type = MemRefType::get({static_cast<int64_t>(name.size())}, builder.getI8Type());
    SmallVector<int8_t> bytes(name.begin(), name.end());
    auto value = DenseElementsAttr::get(RankedTensorType::get(type.getShape(), builder.getI8Type()),
                                        ArrayRef<int8_t>(bytes));
    auto global = memref::GlobalOp::create(builder, module.getLoc(), symbol, builder.getStringAttr("private"),
                                           type, value, /*constant=*/true, /*alignment=*/IntegerAttr());
    symbols.insert(global);  // renamed when the module has the symbol already
    return global;
  }
};

} // namespace
