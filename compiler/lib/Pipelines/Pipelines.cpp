//===- Pipelines.cpp - named pass pipelines -------------------------------===//
#include "tdist/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "tdist/Conversion/TritonDistributedToHIVM/TritonDistributedToHIVM.h"
#include "tdist/Dialect/Distributed/Transforms/Passes.h"

namespace mlir::tdist {

void buildTTIRStage(OpPassManager &pm) {
  pm.addPass(createInlinerPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
}

void buildTTAdapterStage(OpPassManager &pm, const AscendPipelineOptions &options) {
  if (options.injectBarrierAll)
    pm.addPass(triton::distributed::createDistributedInjectBarrierAllPass());
  pm.addPass(triton::createConvertTritonDistributedToHIVM());
}

void buildAscendPipeline(OpPassManager &pm, const AscendPipelineOptions &options) {
  buildTTIRStage(pm);
  buildTTAdapterStage(pm, options);
}

void registerPipelines() {
  PassPipelineRegistration<AscendPipelineOptions>(
      "tdist-ascend-pipeline",
      "The distributed part of the Ascend compilation (seed 001 §4.1): the ttir stage "
      "(inline, canonicalize, cse, licm), then the ttadapter stage, which starts with "
      "convert-triton-distributed-to-hivm",
      buildAscendPipeline);
}

} // namespace mlir::tdist
