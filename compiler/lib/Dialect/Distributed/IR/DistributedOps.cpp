//===- DistributedOps.cpp - verifiers and memory effects ------------------===//
//
// Memory effects follow seed 001 §2.4: wait and symm_at read, notify reads and
// writes, consume_token has none, extern_call has none when pure and reads and
// writes otherwise.
//
//===----------------------------------------------------------------------===//
#include "tdist/Dialect/Distributed/IR/Distributed.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::triton::distributed;

using EffectList = SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>;

//===----------------------------------------------------------------------===//
// WaitOp
//===----------------------------------------------------------------------===//

// A constant number of barriers is checked here, a dynamic one by the library
// when the wait runs. A tensor of counts is checked element by element.
static LogicalResult verifyNumBarriers(WaitOp op) {
  Attribute constant;
  if (!matchPattern(op.getNumBarriers(), m_Constant(&constant)))
    return success();
  auto check = [&](const APInt &count) -> LogicalResult {
    // Read as signed: an i1 `true` is -1, not 1.
    if (count.isStrictlyPositive() && count.sle(kMaxWaitSlots))
      return success();
    return op.emitOpError("the number of barriers must be positive and at most ")
           << kMaxWaitSlots << ", got " << llvm::toString(count, 10, /*Signed=*/true);
  };
  if (auto integer = dyn_cast<IntegerAttr>(constant))
    return check(integer.getValue());
  if (auto elements = dyn_cast<DenseIntElementsAttr>(constant)) {
    if (elements.isSplat())
      return check(elements.getSplatValue<APInt>());
    for (const APInt &count : elements)
      if (failed(check(count)))
        return failure();
  }
  return success();
}

LogicalResult WaitOp::verify() {
  if (failed(verifyNumBarriers(*this)))
    return failure();
  if (Type pointee = getPointeeType(getBarrierPtr().getType())) {
    if (pointee != getWaitValue().getType())
      return emitOpError("wait value type ")
             << getWaitValue().getType() << " must match the signal element type " << pointee;
  }
  if (getSemantic() != MemSemantic::ACQUIRE && getSemantic() != MemSemantic::RELAXED)
    return emitOpError("semantic must be 'acquire' or 'relaxed', got '")
           << stringifyMemSemantic(getSemantic()) << "'";
  return success();
}

void WaitOp::getEffects(EffectList &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getBarrierPtrMutable(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// ConsumeTokenOp
//===----------------------------------------------------------------------===//

LogicalResult ConsumeTokenOp::verify() { return success(); }

void ConsumeTokenOp::getEffects(EffectList &) {}

//===----------------------------------------------------------------------===//
// GetRankOp, GetNumRanksOp
//===----------------------------------------------------------------------===//

static LogicalResult verifyAxis(Operation *op, int32_t axis) {
  if (axis != 0)
    return op->emitOpError("axis ") << axis << " does not exist: the device mesh has only axis 0";
  return success();
}

LogicalResult GetRankOp::verify() { return verifyAxis(*this, getAxis()); }
LogicalResult GetNumRanksOp::verify() { return verifyAxis(*this, getAxis()); }

//===----------------------------------------------------------------------===//
// SymmAtOp
//===----------------------------------------------------------------------===//

// The operand type (Distributed_Ptr) already excludes tensors of pointers.
LogicalResult SymmAtOp::verify() { return success(); }

void SymmAtOp::getEffects(EffectList &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getSymmAddrMutable(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// NotifyOp
//===----------------------------------------------------------------------===//

LogicalResult NotifyOp::verify() {
  // The operand type (Distributed_Ptr) already excludes tensors of pointers. An opaque pointer carries its signal as the i64 value.
  Type signal = getPointeeType(getSigAddr().getType());
  if (!signal)
    signal = getSignalVal().getType();
  bool is64 = signal.isSignlessInteger(64) || signal.isSignedInteger(64) ||
              signal.isUnsignedInteger(64);
  bool is32 = signal.isSignlessInteger(32) || signal.isSignedInteger(32);
  // Ascend and the cpu backend link the aclshmem template library: i32 signals through
  // aclshmemx_signal_op (set or add), 64-bit ones as a remote store (set only).
  Target target = getTarget(*this);
  if (target == Target::Ascend || target == Target::Cpu) {
    StringRef where = target == Target::Ascend ? "on Ascend" : "on the cpu target";
    if (is32)
      return success();
    if (!is64)
      return emitOpError("signal type ") << signal << " is not allowed " << where
                                         << " (i32, i64 or ui64)";
    if (getSigOp() != SignalOp::SET)
      return emitOpError("a 64-bit signal allows only sig_op = set ")
             << where << ", got " << stringifySignalOp(getSigOp());
    return success();
  }
  if (!is64)
    return emitOpError("signal type ") << signal << " is not allowed on this target (i64 or ui64)";
  return success();
}

void NotifyOp::getEffects(EffectList &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getSigAddrMutable(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getSigAddrMutable(),
                       SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// ExternCallOp
//===----------------------------------------------------------------------===//

LogicalResult ExternCallOp::verify() {
  if (getSymbol().empty())
    return emitOpError("needs a non-empty symbol");
  return success();
}

void ExternCallOp::getEffects(EffectList &effects) {
  if (getPure())
    return;
  effects.emplace_back(MemoryEffects::Read::get(), SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}

Speculation::Speculatability ExternCallOp::getSpeculatability() {
  return getPure() ? Speculation::Speculatable : Speculation::NotSpeculatable;
}

#define GET_OP_CLASSES
#include "tdist/Dialect/Distributed/IR/DistributedOps.cpp.inc"
