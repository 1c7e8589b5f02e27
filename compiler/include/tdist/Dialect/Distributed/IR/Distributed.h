//===- Distributed.h - the distributed dialect ----------------------------===//
#ifndef TDIST_DIALECT_DISTRIBUTED_IR_DISTRIBUTED_H
#define TDIST_DIALECT_DISTRIBUTED_IR_DISTRIBUTED_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tdist/Dialect/Distributed/IR/DistributedDialect.h.inc"
#include "tdist/Dialect/Distributed/IR/DistributedEnums.h.inc"

#include "tdist/dl.h"

#define GET_OP_CLASSES
#include "tdist/Dialect/Distributed/IR/DistributedOps.h.inc"

namespace mlir::triton::distributed {

/// The most signal slots one `distributed.wait` waits on: the device library's
/// limit. The verifier checks a constant number of barriers against it; the
/// device library rejects a larger dynamic one when the wait runs.
inline constexpr int64_t kMaxWaitSlots = ::tdist::dl::kMaxWaitSlots;

/// The targets that decide which signal types notify accepts.
enum class Target { Ascend, Cuda, Cpu };

/// The target named by the enclosing module's `distributed.target`
/// (Ascend when there is none).
Target getTarget(Operation *op);

/// The element type a pointer-like value points to: a memref's element
/// type, or null for an opaque `!llvm.ptr` (or a tensor of them).
Type getPointeeType(Type pointerLike);

/// True for a pointer that is not a tensor of pointers.
bool isScalarPointer(Type type);

} // namespace mlir::triton::distributed

#endif // TDIST_DIALECT_DISTRIBUTED_IR_DISTRIBUTED_H
