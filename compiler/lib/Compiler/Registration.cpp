//===- Registration.cpp - everything tdist adds to an MLIR tool -----------===//
#include "tdist/Compiler/Registration.h"

#include "tdist/Conversion/HIVMToCall/HIVMToCall.h"
#include "tdist/Conversion/TritonDistributedToHIVM/TritonDistributedToHIVM.h"
#include "tdist/Dialect/Distributed/IR/Distributed.h"
#include "tdist/Dialect/Distributed/Transforms/Passes.h"
#include "tdist/Dialect/HIVM/IR/HIVM.h"
#include "tdist/Pipelines/Pipelines.h"
#include "tdist/Transforms/Passes.h"

namespace mlir::tdist {

void registerDialects(DialectRegistry &registry) {
  registry.insert<triton::distributed::DistributedDialect>();
  registry.insert<hivm::HIVMDialect>();
}

void registerPassesAndPipelines() {
  triton::distributed::registerDistributedPasses();
  triton::registerTritonDistributedToHIVMPasses();
  hivm::registerHIVMToCallPasses();
  registerTdistPasses();
  registerPipelines();
}

} // namespace mlir::tdist
