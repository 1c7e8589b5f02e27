//===- Registration.h - everything tdist adds to an MLIR tool -------------===//
#ifndef TDIST_COMPILER_REGISTRATION_H
#define TDIST_COMPILER_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::tdist {

/// The distributed and hivm dialects.
void registerDialects(DialectRegistry &registry);

/// tdist's passes and named pipelines.
void registerPassesAndPipelines();

} // namespace mlir::tdist

#endif // TDIST_COMPILER_REGISTRATION_H
