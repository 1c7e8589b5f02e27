//===- HIVM.h - the minimal hivm dialect ----------------------------------===//
#ifndef TDIST_DIALECT_HIVM_IR_HIVM_H
#define TDIST_DIALECT_HIVM_IR_HIVM_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tdist/Dialect/HIVM/IR/HIVMDialect.h.inc"
#include "tdist/Dialect/HIVM/IR/HIVMEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tdist/Dialect/HIVM/IR/HIVMAttrs.h.inc"

#define GET_OP_CLASSES
#include "tdist/Dialect/HIVM/IR/HIVMOps.h.inc"

#endif // TDIST_DIALECT_HIVM_IR_HIVM_H
