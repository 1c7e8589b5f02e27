//===- HIVMOps.cpp - hivm.hir.custom --------------------------------------===//
#include "tdist/Dialect/HIVM/IR/HIVM.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::hivm;

//===----------------------------------------------------------------------===//
// Placement attributes
//===----------------------------------------------------------------------===//

// The placement attributes are discardable: read and written by name, typed by their attr class.
template <class EnumAttrT>
static auto getPlacement(Operation *op, StringRef name)
    -> std::optional<decltype(std::declval<EnumAttrT>().getValue())> {
  if (auto attr = op->getAttrOfType<EnumAttrT>(name))
    return attr.getValue();
  return std::nullopt;
}

std::optional<TCoreType> CustomOp::getCoreType() {
  return getPlacement<TCoreTypeAttr>(*this, HIVMDialect::getTCoreTypeAttrName());
}
void CustomOp::setCoreType(TCoreType coreType) {
  (*this)->setAttr(HIVMDialect::getTCoreTypeAttrName(), TCoreTypeAttr::get(getContext(), coreType));
}

std::optional<PIPE> CustomOp::getPipe() {
  return getPlacement<PipeAttr>(*this, HIVMDialect::getPipeAttrName());
}
void CustomOp::setPipe(PIPE pipe) {
  (*this)->setAttr(HIVMDialect::getPipeAttrName(), PipeAttr::get(getContext(), pipe));
}

std::optional<VFMode> CustomOp::getVFMode() {
  return getPlacement<VFModeAttr>(*this, HIVMDialect::getVFModeAttrName());
}
void CustomOp::setVFMode(VFMode mode) {
  (*this)->setAttr(HIVMDialect::getVFModeAttrName(), VFModeAttr::get(getContext(), mode));
}

bool CustomOp::isDistributed() {
  return (*this)->hasAttr(HIVMDialect::getIsDistributedAttrName());
}

void CustomOp::setDistributed() {
  (*this)->setAttr(HIVMDialect::getIsDistributedAttrName(), UnitAttr::get(getContext()));
}

//===----------------------------------------------------------------------===//
// Assembly
//===----------------------------------------------------------------------===//

// `-> (a, b)` as AscendNPU-IR prints it: parenthesised when there are several
// results, absent when there are none.
static ParseResult parseOptionalArrowTypeList(OpAsmParser &parser,
                                              SmallVectorImpl<Type> &resultTypes) {
  return parser.parseOptionalArrowTypeList(resultTypes);
}

static void printOptionalArrowTypeList(OpAsmPrinter &printer, Operation *, TypeRange resultTypes) {
  printer.printOptionalArrowTypeList(resultTypes);
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

static bool isPointer(Type type) { return isa<BaseMemRefType, LLVM::LLVMPointerType>(type); }

LogicalResult CustomOp::verify() {
  if (getName().empty())
    return emitOpError("needs a non-empty name");

  // Destination-passing style: the tensor inits and the tensor results pair up
  // one to one, in order; other results are returned without an init.
  SmallVector<Type> initTypes, tensorResultTypes;
  for (Type type : getOutputs().getTypes())
    if (isa<TensorType>(type))
      initTypes.push_back(type);
  for (Type type : getResultTypes())
    if (isa<TensorType>(type))
      tensorResultTypes.push_back(type);
  if (initTypes.size() != tensorResultTypes.size())
    return emitOpError("has ") << initTypes.size() << " tensor inits in outs but "
                               << tensorResultTypes.size() << " tensor results";
  for (auto [index, types] : llvm::enumerate(llvm::zip(initTypes, tensorResultTypes))) {
    auto [init, result] = types;
    if (init != result)
      return emitOpError("tensor result #") << index << " has type " << result
                                            << " but its init has type " << init;
  }

  if (std::optional<StringRef> symbol = getSymbol(); symbol && symbol->empty())
    return emitOpError("needs a non-empty symbol");
  if (isDistributed()) {
    if (!getSymbol())
      return emitOpError("is distributed but has no symbol");
    if (getName() != ("dist." + *getSymbol()).str())
      return emitOpError("is distributed, so its name must be \"dist.")
             << *getSymbol() << "\", got \"" << getName() << "\"";
  }

  if (std::optional<ArrayRef<int32_t>> indices = getGmAddrArgsIndices()) {
    int32_t previous = -1;
    for (int32_t index : *indices) {
      if (index < 0 || index >= static_cast<int32_t>(getInputs().size()))
        return emitOpError("gm_addr_args_indices has ")
               << index << ", but there are " << getInputs().size() << " inputs";
      if (index <= previous)
        return emitOpError("gm_addr_args_indices must be increasing, got ")
               << index << " after " << previous;
      Type type = getInputs()[index].getType();
      if (!isPointer(type))
        return emitOpError("gm_addr_args_indices names input #")
               << index << " of type " << type << ", which is not a pointer";
      previous = index;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Memory effects
//===----------------------------------------------------------------------===//

// Without `no_side_effect` the library function is opaque: it may touch any
// memory, not only its operands (a wait polls a signal, a put writes a peer).
void CustomOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getNoSideEffect())
    return;
  effects.emplace_back(MemoryEffects::Read::get(), SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}

#define GET_OP_CLASSES
#include "tdist/Dialect/HIVM/IR/HIVMOps.cpp.inc"
