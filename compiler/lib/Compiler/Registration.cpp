//===- Registration.cpp - everything tdist adds to an MLIR tool -----------===//
#include "tdist/Compiler/Registration.h"

#include "tdist/Dialect/Distributed/IR/Distributed.h"

namespace mlir::tdist {

void registerDialects(DialectRegistry &registry) {
  registry.insert<triton::distributed::DistributedDialect>();
}

void registerPassesAndPipelines() {}

} // namespace mlir::tdist
