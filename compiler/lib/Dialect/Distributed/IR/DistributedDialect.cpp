//===- DistributedDialect.cpp - dialect registration and helpers ----------===//
#include "tdist/Dialect/Distributed/IR/Distributed.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace mlir::triton::distributed;

#include "tdist/Dialect/Distributed/IR/DistributedDialect.cpp.inc"
#include "tdist/Dialect/Distributed/IR/DistributedEnums.cpp.inc"

namespace {

/// Distributed ops mean the same wherever they are: a kernel's helpers inline
/// into it (the ttir stage starts with the inliner).
struct DistributedInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final { return true; }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final { return true; }
};

} // namespace

void DistributedDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tdist/Dialect/Distributed/IR/DistributedOps.cpp.inc"
      >();
  addInterfaces<DistributedInlinerInterface>();
}

LogicalResult DistributedDialect::verifyOperationAttribute(Operation *op,
                                                           NamedAttribute attribute) {
  if (attribute.getName() != getTargetAttrName())
    return op->emitError() << "unknown distributed attribute '" << attribute.getName().getValue()
                           << "'";
  auto target = dyn_cast<StringAttr>(attribute.getValue());
  if (!isa<ModuleOp>(op) || !target ||
      !llvm::is_contained({"ascend", "cuda", "cpu"}, target.getValue()))
    return op->emitError() << "'" << getTargetAttrName()
                           << "' must be a string \"ascend\", \"cuda\" or \"cpu\" on a module";
  return success();
}

Target mlir::triton::distributed::getTarget(Operation *op) {
  for (auto module = op->getParentOfType<ModuleOp>(); module;
       module = module->getParentOfType<ModuleOp>()) {
    auto name = module->getAttrOfType<StringAttr>(DistributedDialect::getTargetAttrName());
    if (!name)
      continue;
    if (name.getValue() == "cuda")
      return Target::Cuda;
    if (name.getValue() == "cpu")
      return Target::Cpu;
    return Target::Ascend;
  }
  return Target::Ascend;
}

Type mlir::triton::distributed::getPointeeType(Type pointerLike) {
  if (auto memref = dyn_cast<BaseMemRefType>(pointerLike))
    return memref.getElementType();
  return {};
}

bool mlir::triton::distributed::isScalarPointer(Type type) {
  return isa<BaseMemRefType, LLVM::LLVMPointerType>(type);
}
