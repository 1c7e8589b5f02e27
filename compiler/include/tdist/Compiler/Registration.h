//===- Registration.h - everything tdist adds to an MLIR tool -------------===//
#ifndef TDIST_COMPILER_REGISTRATION_H
#define TDIST_COMPILER_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::tdist {

/// The distributed and hivm dialects.
void registerDialects(DialectRegistry &registry);

/// What tdist-cuda-pipeline needs of a tool besides its passes: the gpu and
/// nvvm dialects, the convert-to-llvm interfaces of the dialects a kernel
/// holds, the NVVM target's compilation interface, and the LLVM IR
/// translations that gpu-module-to-binary runs (builtin, llvm, nvvm, gpu).
void registerCudaTarget(DialectRegistry &registry);

/// tdist's passes and named pipelines.
void registerPassesAndPipelines();

} // namespace mlir::tdist

#endif // TDIST_COMPILER_REGISTRATION_H
