//===- DistributedOpToHIVM.cpp - distributed ops to hivm.hir.custom -------===//
//
// Seed 001 §3.3-3.5. Every distributed op becomes a call of an aclshmem
// template-library function: bishengir links `dist.<symbol>` against the
// library, which has one instance per element type, so the symbol spells the
// type out and a type without an instance is an error here, not a link
// failure later.
//
//===----------------------------------------------------------------------===//
#include "tdist/Conversion/TritonDistributedToHIVM/TritonDistributedToHIVM.h"

#include "tdist/Dialect/Distributed/IR/Distributed.h"
#include "tdist/Dialect/HIVM/IR/HIVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>

using namespace mlir;
using namespace mlir::triton;
namespace dist = mlir::triton::distributed;

using Diagnose = llvm::function_ref<void(const Twine &)>;

//===----------------------------------------------------------------------===//
// Core type and pipe
//===----------------------------------------------------------------------===//

namespace {
struct CoreTypeRule {
  llvm::StringLiteral symbolPrefix;
  hivm::TCoreType coreType;
};

struct PipeRule {
  llvm::StringLiteral symbol;
  hivm::PIPE pipe;
};
} // namespace

// Seed 001 §3.4, first match wins. barrier_all must exist in both halves of a
// kernel that is split into a cube and a vector function, which is what lets
// the halves overlap computation and communication; the data movers run on
// the vector core. The put/get prefixes are listed as the seed lists them,
// although the plain ones already cover their _nbi and _signal forms.
static constexpr CoreTypeRule kCoreTypeRules[] = {
    {"aclshmem_barrier_all", hivm::TCoreType::CUBE_AND_VECTOR},
    {"aclshmemx_barrier_all_vec", hivm::TCoreType::VECTOR},
    {"aclshmem_putmem", hivm::TCoreType::VECTOR},
    {"aclshmem_getmem", hivm::TCoreType::VECTOR},
    {"aclshmem_putmem_nbi", hivm::TCoreType::VECTOR},
    {"aclshmem_getmem_nbi", hivm::TCoreType::VECTOR},
    {"aclshmem_putmem_signal", hivm::TCoreType::VECTOR},
    {"aclshmem_putmem_signal_nbi", hivm::TCoreType::VECTOR},
};

// Reserved, and empty as in the seed: no symbol has a pipe of its own yet, so
// every call runs on the scalar pipe.
static constexpr std::array<PipeRule, 0> kPipeRules = {};

static hivm::TCoreType inferCoreType(StringRef symbol, bool existDot) {
  for (const CoreTypeRule &rule : kCoreTypeRules)
    if (symbol.starts_with(rule.symbolPrefix))
      return rule.coreType;
  return existDot ? hivm::TCoreType::CUBE_AND_VECTOR : hivm::TCoreType::VECTOR;
}

static hivm::PIPE inferPipe(StringRef symbol) {
  for (const PipeRule &rule : kPipeRules)
    if (symbol == rule.symbol)
      return rule.pipe;
  return hivm::PIPE::PIPE_S;
}

//===----------------------------------------------------------------------===//
// Symbols
//===----------------------------------------------------------------------===//

static constexpr llvm::StringLiteral kSignalOpSymbol = "aclshmemx_signal_op";

static std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

static bool isOpaquePointer(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    type = tensor.getElementType();
  return isa<LLVM::LLVMPointerType>(type);
}

/// The library's name of `type` (`float`, `int32`, `uint64`, ...), for the 12
/// element types the library has instances for.
static FailureOr<std::string> mangle(Type type, StringRef symbolPattern, Diagnose diagnose) {
  if (type.isBF16())
    return std::string("bfloat16");
  if (type.isF16())
    return std::string("half");
  if (type.isF32())
    return std::string("float");
  if (type.isF64())
    return std::string("double");
  auto integer = dyn_cast<IntegerType>(type);
  if (integer && llvm::is_contained({8u, 16u, 32u, 64u}, integer.getWidth()))
    return (integer.isUnsigned() ? "uint" : "int") + std::to_string(integer.getWidth());
  diagnose("cannot lower to " + symbolPattern + ": element type '" + typeString(type) +
           "' has no aclshmem instance (bf16, f16, f32, f64, i8-i64, ui8-ui64)");
  return failure();
}

static void diagnoseOpaque(StringRef symbolPattern, Diagnose diagnose) {
  diagnose("cannot lower to " + symbolPattern +
           ": the element type of an opaque '!llvm.ptr' is unknown; use a memref");
}

static FailureOr<std::string> getSymmAtSymbol(dist::SymmAtOp op, Diagnose diagnose) {
  constexpr StringLiteral pattern = "aclshmem_ptr_<type>";
  Type pointee = dist::getPointeeType(op.getSymmAddr().getType());
  if (!pointee) {
    diagnoseOpaque(pattern, diagnose);
    return failure();
  }
  FailureOr<std::string> type = mangle(pointee, pattern, diagnose);
  if (failed(type))
    return failure();
  return "aclshmem_ptr_" + *type;
}

// An i32 signal goes through the signal API, which can add; a 64-bit one is a
// plain remote store (aclshmem_<type>_p), so it can only be set. An opaque
// pointer carries the i64 signal value as is.
static FailureOr<std::string> getNotifySymbol(dist::NotifyOp op, Diagnose diagnose) {
  Type signal = dist::getPointeeType(op.getSigAddr().getType());
  if (!signal)
    signal = op.getSignalVal().getType();
  auto integer = dyn_cast<IntegerType>(signal);
  if (integer && integer.getWidth() == 32 && !integer.isUnsigned())
    return kSignalOpSymbol.str();
  if (integer && integer.getWidth() == 64) {
    std::string symbol = integer.isUnsigned() ? "aclshmem_uint64_p" : "aclshmem_int64_p";
    if (op.getSigOp() == dist::SignalOp::ADD) {
      diagnose("cannot lower to " + symbol +
               ": it stores the signal, and aclshmem has no add for a 64-bit signal");
      return failure();
    }
    return symbol;
  }
  diagnose("cannot lower notify: signal type '" + typeString(signal) +
           "' is neither i32 (aclshmemx_signal_op) nor i64 or ui64 (aclshmem_<type>_p)");
  return failure();
}

// The library's instances take a pointer of some rank: a memref of rank N > 1
// is `_ptr_<N>d`, everything lower `_ptr_1d`. A ranked tensor is a tile that
// triton-ascend bufferizes into a memref of the same shape, so it is named as
// that memref.
static FailureOr<std::string> getConsumeTokenSymbol(dist::ConsumeTokenOp op, Diagnose diagnose) {
  constexpr StringLiteral pattern = "aclshmem_consume_token_<type>_ptr_<N>d";
  Type input = op.getInput().getType();
  if (isOpaquePointer(input)) {
    diagnoseOpaque(pattern, diagnose);
    return failure();
  }
  if (!isa<MemRefType, RankedTensorType>(input)) {
    diagnose("cannot lower to " + pattern + ": '" + typeString(input) +
             "' is neither a ranked memref nor a ranked tensor");
    return failure();
  }
  auto shaped = cast<ShapedType>(input);
  FailureOr<std::string> type = mangle(shaped.getElementType(), pattern, diagnose);
  if (failed(type))
    return failure();
  return llvm::formatv("aclshmem_consume_token_{0}_ptr_{1}d", *type,
                       std::max<int64_t>(shaped.getRank(), 1))
      .str();
}

// The number of barriers becomes the library's int32_t (buildWaitCount), which
// arith can only make of a signless integer.
static FailureOr<std::string> getWaitSymbol(dist::WaitOp op, Diagnose diagnose) {
  constexpr StringLiteral pattern = "aclshmem_wait_<type>";
  Type count = getElementTypeOrSelf(op.getNumBarriers().getType());
  if (!count.isSignlessInteger()) {
    diagnose("cannot lower to " + pattern + ": the number of barriers is '" + typeString(count) +
             "'; the library takes an int32_t, converted from a signless integer");
    return failure();
  }
  Type signal = dist::getPointeeType(op.getBarrierPtr().getType());
  if (!signal)
    signal = op.getWaitValue().getType();
  FailureOr<std::string> type = mangle(signal, pattern, diagnose);
  if (failed(type))
    return failure();
  return "aclshmem_wait_" + *type;
}

// Each tensor result gets a tensor.empty init, which needs a static shape.
static LogicalResult checkResultsHaveInits(Operation *op, Diagnose diagnose) {
  for (auto [index, type] : llvm::enumerate(op->getResultTypes())) {
    if (!isa<TensorType>(type))
      continue;
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked || !ranked.hasStaticShape()) {
      diagnose("cannot lower: result #" + Twine(index) + " of type '" + typeString(type) +
               "' needs a tensor.empty init, which needs a static shape");
      return failure();
    }
  }
  return success();
}

FailureOr<std::string> triton::getAclshmemSymbol(Operation *op, Diagnose diagnose) {
  if (failed(checkResultsHaveInits(op, diagnose)))
    return failure();
  return TypeSwitch<Operation *, FailureOr<std::string>>(op)
      .Case([&](dist::SymmAtOp symmAt) { return getSymmAtSymbol(symmAt, diagnose); })
      .Case([&](dist::GetRankOp) { return std::string("aclshmem_my_pe"); })
      .Case([&](dist::GetNumRanksOp) { return std::string("aclshmem_n_pes"); })
      .Case([&](dist::NotifyOp notify) { return getNotifySymbol(notify, diagnose); })
      .Case([&](dist::ConsumeTokenOp consume) { return getConsumeTokenSymbol(consume, diagnose); })
      .Case([&](dist::WaitOp wait) { return getWaitSymbol(wait, diagnose); })
      .Case([&](dist::ExternCallOp call) { return call.getSymbol().str(); })
      .Default([&](Operation *other) -> FailureOr<std::string> {
        diagnose("'" + other->getName().getStringRef() + "' is not a distributed operation");
        return failure();
      });
}

//===----------------------------------------------------------------------===//
// Operands and attributes
//===----------------------------------------------------------------------===//

// aclshmemx_signal_op(sig_addr, int32_t signal, int sig_op, int pe), with the
// library's numbering of the operation (SET = 0, ADD = 1; the dialect counts
// from 1, as Triton does).
static SmallVector<Value> buildSignalOpInputs(dist::NotifyOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Value signal = arith::TruncIOp::create(rewriter, loc, rewriter.getI32Type(), op.getSignalVal());
  int64_t sigOp = op.getSigOp() == dist::SignalOp::ADD ? 1 : 0;
  Value sigOpValue = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), sigOp);
  return {op.getSigAddr(), signal, sigOpValue, op.getRank()};
}

// aclshmem_wait_<type>(sig_addr, int32_t num_barriers, <type> value). A count of
// another width becomes an i32: a constant one, which the verifier bounded, is
// rewritten as it is; a dynamic narrower one is sign-extended (as the verifier
// reads constants), a wider one saturated to the i32 range first, so that a
// count the library rejects stays out of range instead of wrapping into it.
static Value buildWaitCount(dist::WaitOp op, PatternRewriter &rewriter) {
  Value count = op.getNumBarriers();
  Type type = count.getType();
  auto width = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
  if (width == 32)
    return count;
  Location loc = op.getLoc();
  Type i32 = rewriter.getI32Type();
  auto tensor = dyn_cast<RankedTensorType>(type);
  Type i32Like = tensor ? Type(tensor.clone(i32)) : i32;

  Attribute constant;
  if (matchPattern(count, m_Constant(&constant))) {
    auto narrow = [](const APInt &value) { return value.trunc(32); };
    TypedAttr narrowed;
    if (auto integer = dyn_cast<IntegerAttr>(constant))
      narrowed = rewriter.getIntegerAttr(i32, narrow(integer.getValue()));
    else if (auto elements = dyn_cast<DenseIntElementsAttr>(constant))
      narrowed = elements.mapValues(i32, narrow);
    if (narrowed)
      return arith::ConstantOp::create(rewriter, loc, i32Like, narrowed);
  }
  if (width < 32)
    return arith::ExtSIOp::create(rewriter, loc, i32Like, count);
  auto bound = [&](const APInt &value) -> Value {
    APInt wide = value.sext(width);
    TypedAttr attr = tensor ? TypedAttr(DenseElementsAttr::get(tensor, wide))
                            : TypedAttr(rewriter.getIntegerAttr(type, wide));
    return arith::ConstantOp::create(rewriter, loc, type, attr);
  };
  Value min = bound(APInt::getSignedMinValue(32));
  Value max = bound(APInt::getSignedMaxValue(32));
  Value atLeastMin = arith::MaxSIOp::create(rewriter, loc, count, min);
  Value inRange = arith::MinSIOp::create(rewriter, loc, atLeastMin, max);
  return arith::TruncIOp::create(rewriter, loc, i32Like, inRange);
}

// The rank queries drop their axis (an operand in Triton, an attribute here):
// the library knows only the world.
static bool isDroppedAttribute(Operation *op, StringAttr name) {
  if (auto rank = dyn_cast<dist::GetRankOp>(op))
    return name == rank.getAxisAttrName();
  if (auto numRanks = dyn_cast<dist::GetNumRanksOp>(op))
    return name == numRanks.getAxisAttrName();
  return false;
}

static SmallVector<Value> buildInputs(Operation *op, StringRef symbol, PatternRewriter &rewriter) {
  if (isa<dist::GetRankOp, dist::GetNumRanksOp>(op))
    return {};
  if (auto notify = dyn_cast<dist::NotifyOp>(op); notify && symbol == kSignalOpSymbol)
    return buildSignalOpInputs(notify, rewriter);
  if (auto wait = dyn_cast<dist::WaitOp>(op))
    return {wait.getBarrierPtr(), buildWaitCount(wait, rewriter), wait.getWaitValue()};
  return llvm::to_vector(op->getOperands());
}

static bool hasNoMemoryEffect(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.hasNoEffect();
}

// Kernel arguments are plain global-memory addresses, which bishengir passes
// through as they are; pointers computed in the kernel, and tensors of
// pointers, are not.
static SmallVector<int32_t> getGmAddrArgsIndices(Operation *op, ValueRange inputs) {
  auto function = op->getParentOfType<FunctionOpInterface>();
  if (!function)
    return {};
  Block *entry = &function.getFunctionBody().front();
  SmallVector<int32_t> indices;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    auto argument = dyn_cast<BlockArgument>(input);
    if (argument && argument.getOwner() == entry &&
        isa<BaseMemRefType, LLVM::LLVMPointerType>(input.getType()))
      indices.push_back(index);
  }
  return indices;
}

//===----------------------------------------------------------------------===//
// Pattern
//===----------------------------------------------------------------------===//

namespace {
/// One pattern per distributed op, all built the same way (seed 001 §3.5).
template <typename SourceOp>
struct DistributedOpLowering : OpRewritePattern<SourceOp> {
  DistributedOpLowering(MLIRContext *context, bool existDot)
      : OpRewritePattern<SourceOp>(context), existDot(existDot) {}

  LogicalResult matchAndRewrite(SourceOp op, PatternRewriter &rewriter) const override {
    FailureOr<std::string> symbol = getAclshmemSymbol(
        op, [&](const Twine &why) { (void)rewriter.notifyMatchFailure(op, why); });
    if (failed(symbol))
      return failure();

    Location loc = op.getLoc();
    SmallVector<Value> inputs = buildInputs(op, *symbol, rewriter);
    SmallVector<Value> inits;
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type))
        inits.push_back(tensor::EmptyOp::create(rewriter, loc, tensor.getShape(),
                                                tensor.getElementType(), tensor.getEncoding()));

    auto custom = hivm::CustomOp::create(rewriter, loc, op->getResultTypes(), "dist." + *symbol,
                                         inputs, inits);
    for (NamedAttribute attribute : op->getAttrs())
      if (!isDroppedAttribute(op, attribute.getName()))
        custom->setAttr(attribute.getName(), attribute.getValue());
    custom.setCoreType(inferCoreType(*symbol, existDot));
    custom.setPipe(inferPipe(*symbol));
    custom.setVFMode(hivm::VFMode::SIMD);
    custom.setDistributed();
    custom.setSymbol(StringRef(*symbol));
    custom.setNoSideEffect(hasNoMemoryEffect(op));
    custom.setGmAddrArgsIndices(ArrayRef<int32_t>(getGmAddrArgsIndices(op, inputs)));

    if (op->getNumResults() == 0)
      rewriter.eraseOp(op);
    else
      rewriter.replaceOp(op, custom);
    return success();
  }

  bool existDot;
};
} // namespace

void triton::populateTritonDistributedToHIVMPatterns(RewritePatternSet &patterns, bool existDot) {
  patterns.add<DistributedOpLowering<dist::WaitOp>, DistributedOpLowering<dist::ConsumeTokenOp>,
               DistributedOpLowering<dist::GetRankOp>, DistributedOpLowering<dist::GetNumRanksOp>,
               DistributedOpLowering<dist::SymmAtOp>, DistributedOpLowering<dist::NotifyOp>,
               DistributedOpLowering<dist::ExternCallOp>>(patterns.getContext(), existDot);
}
