//===- TritonDistributedToHIVM.h - distributed ops to hivm.hir.custom -----===//
#ifndef TDIST_CONVERSION_TRITONDISTRIBUTEDTOHIVM_TRITONDISTRIBUTEDTOHIVM_H
#define TDIST_CONVERSION_TRITONDISTRIBUTEDTOHIVM_TRITONDISTRIBUTEDTOHIVM_H

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace mlir {
class RewritePatternSet;

namespace triton {

#define GEN_PASS_DECL
#include "tdist/Conversion/TritonDistributedToHIVM/Passes.h.inc"

/// True when `root` holds a matrix product: `tt.dot`, `tt.dot_scaled`, or a
/// linalg contraction with M, N and K dimensions. Such a kernel uses the cube
/// unit, so its communication runs on both core types (seed 001 §3.2).
bool containsMatrixProduct(Operation *root);

/// The aclshmem symbol that `op`, a distributed op, lowers to, e.g.
/// `aclshmem_wait_int32`. Fails when `op` cannot be lowered, and tells
/// `diagnose` why (an opaque pointer where the symbol names the element type,
/// an element type with no aclshmem instance, a tensor result without a
/// static shape for its init).
FailureOr<std::string> getAclshmemSymbol(Operation *op,
                                         llvm::function_ref<void(const Twine &)> diagnose);

/// Patterns that lower each of the seven distributed ops to a
/// `hivm.hir.custom` calling its aclshmem symbol. `existDot` is the
/// module-wide fact that decides the core type of calls the prefix table does
/// not place (see `containsMatrixProduct`).
void populateTritonDistributedToHIVMPatterns(RewritePatternSet &patterns, bool existDot);

#define GEN_PASS_REGISTRATION
#include "tdist/Conversion/TritonDistributedToHIVM/Passes.h.inc"

} // namespace triton
} // namespace mlir

#endif // TDIST_CONVERSION_TRITONDISTRIBUTEDTOHIVM_TRITONDISTRIBUTEDTOHIVM_H
