//===- Passes.h - tdist's passes on upstream dialects ---------------------===//
#ifndef TDIST_TRANSFORMS_PASSES_H
#define TDIST_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tdist {

#define GEN_PASS_DECL
#include "tdist/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tdist/Transforms/Passes.h.inc"

} // namespace mlir::tdist

#endif // TDIST_TRANSFORMS_PASSES_H
