//===- HIVMDialect.cpp - dialect registration and attribute checks --------===//
#include "tdist/Dialect/HIVM/IR/HIVM.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::hivm;

#include "tdist/Dialect/HIVM/IR/HIVMDialect.cpp.inc"
#include "tdist/Dialect/HIVM/IR/HIVMEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tdist/Dialect/HIVM/IR/HIVMAttrs.cpp.inc"

void HIVMDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tdist/Dialect/HIVM/IR/HIVMOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tdist/Dialect/HIVM/IR/HIVMAttrs.cpp.inc"
      >();
}

// Only the attributes this dialect defines are checked: IR from AscendNPU-IR
// carries other `hivm.*` attributes (e.g. `hivm.func_core_type`) that we pass
// through untouched.
LogicalResult HIVMDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError() << "'" << name << "' must be " << what << ", got " << value;
  };
  if (name == getTCoreTypeAttrName())
    return expect(isa<TCoreTypeAttr>(value), "a #hivm.tcore_type");
  if (name == getPipeAttrName())
    return expect(isa<PipeAttr>(value), "a #hivm.pipe");
  if (name == getVFModeAttrName())
    return expect(isa<VFModeAttr>(value), "a #hivm.vf_mode");
  if (name == getIsDistributedAttrName())
    return expect(isa<UnitAttr>(value), "a unit attribute");
  return success();
}
