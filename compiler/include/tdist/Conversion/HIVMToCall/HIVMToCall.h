//===- HIVMToCall.h - distributed hivm.hir.custom to func.call ------------===//
#ifndef TDIST_CONVERSION_HIVMTOCALL_HIVMTOCALL_H
#define TDIST_CONVERSION_HIVMTOCALL_HIVMTOCALL_H

#include "mlir/Pass/Pass.h"

#include <string>

namespace mlir {
class FunctionType;
class RewritePatternSet;

namespace hivm {
class CustomOp;

#define GEN_PASS_DECL
#include "tdist/Conversion/HIVMToCall/Passes.h.inc"

/// The name a distributed `hivm.hir.custom` is linked as (see the pass's
/// description): `_mlir_ciface_` when no memref is involved, the symbol, and
/// one `_m<rank>` per memref argument and result.
std::string getLinkName(CustomOp op);

/// The type of the function a distributed `hivm.hir.custom` calls: its call
/// arguments and results in their canonical types (memrefs with dynamic sizes,
/// strides and offset; signed integers, also as memref elements, signless).
FunctionType getCallType(CustomOp op);

/// Rewrites distributed `hivm.hir.custom` ops to calls of their link names,
/// declaring those in the enclosing module.
void populateHIVMDistributedToCallPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "tdist/Conversion/HIVMToCall/Passes.h.inc"

} // namespace hivm
} // namespace mlir

#endif // TDIST_CONVERSION_HIVMTOCALL_HIVMTOCALL_H
