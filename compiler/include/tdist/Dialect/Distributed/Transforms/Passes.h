//===- Passes.h - passes on the distributed dialect -----------------------===//
#ifndef TDIST_DIALECT_DISTRIBUTED_TRANSFORMS_PASSES_H
#define TDIST_DIALECT_DISTRIBUTED_TRANSFORMS_PASSES_H

#include "tdist/Dialect/Distributed/IR/Distributed.h"

#include "mlir/Pass/Pass.h"

namespace mlir::triton::distributed {

#define GEN_PASS_DECL
#include "tdist/Dialect/Distributed/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tdist/Dialect/Distributed/Transforms/Passes.h.inc"

} // namespace mlir::triton::distributed

#endif // TDIST_DIALECT_DISTRIBUTED_TRANSFORMS_PASSES_H
