//===- TdistPlugin.cpp - tdist as a plugin of upstream mlir-opt -----------===//
//
// Lets an unmodified mlir-opt 22 read and transform tdist IR:
//
//   mlir-opt --load-dialect-plugin=lib/TdistPlugin.so
//            --load-pass-plugin=lib/TdistPlugin.so
//            --pass-pipeline='builtin.module(distributed-inject-barrier-all)'
//
// mlir-opt must use the same libMLIR.so as TdistCompiler (Debian's does): a
// second copy of MLIR would give the dialect TypeIDs the tool does not know.
//
//===----------------------------------------------------------------------===//
#include "tdist/Compiler/Registration.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TdistDialects", "0.1",
          [](DialectRegistry *registry) { tdist::registerDialects(*registry); }};
}

// mlir-opt loads pass plugins while it parses its options, after it made the
// per-pass flags: name the passes with --pass-pipeline.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TdistPasses", "0.1",
          []() { tdist::registerPassesAndPipelines(); }};
}
