//===- dead_waits_test.cpp - findWaitsRemovedAsDeadCode -------------------===//
//
// Which waits the pipeline erases as dead code, as tdist-jit warns about
// them: each kernel names its waits with a `case` attribute, and the test
// compares the names of those reported with what the pipeline keeps.
//
//===----------------------------------------------------------------------===//
#include "tdist/Compiler/Registration.h"
#include "tdist/Dialect/Distributed/IR/Distributed.h"
#include "tdist/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::triton::distributed;

namespace {

class DeadWaitsTest : public ::testing::Test {
protected:
  DeadWaitsTest()
      : context(makeRegistry()), diagnostics(&context, [this](Diagnostic &diagnostic) {
          messages.push_back(diagnostic.str());
          return success();
        }) {}

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registry.insert<arith::ArithDialect, func::FuncDialect, memref::MemRefDialect,
                    scf::SCFDialect>();
    func::registerInlinerExtension(registry);
    mlir::tdist::registerDialects(registry);
    return registry;
  }

  /// The `case` names of the waits that findWaitsRemovedAsDeadCode reports for
  /// `source`, in order; the module must parse and be left unchanged.
  std::vector<std::string> removed(StringRef source) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "does not parse:\n" << source.str();
    if (!module)
      return {};
    std::string before = print(*module);
    std::vector<std::string> names;
    for (WaitOp wait : mlir::tdist::findWaitsRemovedAsDeadCode(*module))
      names.push_back(wait->getAttrOfType<StringAttr>("case").str());
    EXPECT_EQ(print(*module), before) << "the module changed";
    return names;
  }

  static std::string print(ModuleOp module) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    module.print(stream);
    return text;
  }

  MLIRContext context;
  std::vector<std::string> messages;
  ScopedDiagnosticHandler diagnostics;
};

using Names = std::vector<std::string>;

TEST_F(DeadWaitsTest, ATokenNothingUsesIsRemoved) {
  EXPECT_EQ(removed(R"mlir(
    func.func @kernel(%signals: memref<16xi32>, %e: i32) {
      %one = arith.constant 1 : i32
      %token = distributed.wait %signals, %one, %e scope = sys semantic = acquire {case = "unused"}
          : memref<16xi32>, i32, i32 -> i32
      return
    })mlir"),
            Names{"unused"});
}

// The only use is a consume_token whose result nothing uses: canonicalization erases the
// consume_token, then the wait. Before, the wait had a use, and no warning.
TEST_F(DeadWaitsTest, ATokenOnlyADeadConsumeTokenTakesIsRemoved) {
  EXPECT_EQ(removed(R"mlir(
    func.func @kernel(%signals: memref<16xi32>, %data: memref<4xf32>, %e: i32) {
      %one = arith.constant 1 : i32
      %token = distributed.wait %signals, %one, %e scope = sys semantic = acquire {case = "dead"}
          : memref<16xi32>, i32, i32 -> i32
      %ready = distributed.consume_token %data, %token : memref<4xf32>, i32
      return
    })mlir"),
            Names{"dead"});
}

TEST_F(DeadWaitsTest, AConsumedTokenIsKept) {
  EXPECT_EQ(removed(R"mlir(
    func.func @kernel(%signals: memref<16xi32>, %data: memref<4xf32>, %out: memref<4xf32>,
                      %e: i32) {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %token = distributed.wait %signals, %one, %e scope = sys semantic = acquire {case = "read"}
          : memref<16xi32>, i32, i32 -> i32
      %ready = distributed.consume_token %data, %token : memref<4xf32>, i32
      %v = memref.load %ready[%c0] : memref<4xf32>
      memref.store %v, %out[%c0] : memref<4xf32>
      return
    })mlir"),
            Names{});
}

// A returned token is used; so is one whose consumed buffer is stored through.
TEST_F(DeadWaitsTest, OtherLiveUsesKeepTheWait) {
  EXPECT_EQ(removed(R"mlir(
    func.func @returns(%signals: memref<16xi32>, %e: i32) -> i32 {
      %one = arith.constant 1 : i32
      %token = distributed.wait %signals, %one, %e scope = sys semantic = acquire {case = "returned"}
          : memref<16xi32>, i32, i32 -> i32
      return %token : i32
    }
    func.func @stores(%signals: memref<16xi32>, %data: memref<4xf32>, %v: f32, %e: i32) {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %token = distributed.wait %signals, %one, %e scope = sys semantic = acquire {case = "stored"}
          : memref<16xi32>, i32, i32 -> i32
      %ready = distributed.consume_token %data, %token : memref<4xf32>, i32
      memref.store %v, %ready[%c0] : memref<4xf32>
      return
    })mlir"),
            Names{});
}

// A helper's wait runs where the helper is inlined: removed when every caller drops its token,
// kept when one uses it. A private helper nobody calls never runs, and is not reported.
TEST_F(DeadWaitsTest, HelpersCountWhereTheyAreInlined) {
  EXPECT_EQ(removed(R"mlir(
    func.func private @wait_for(%signals: memref<16xi32>, %e: i32) -> i32 {
      %one = arith.constant 1 : i32
      %token = distributed.wait %signals, %one, %e scope = sys semantic = acquire {case = "dropped"}
          : memref<16xi32>, i32, i32 -> i32
      return %token : i32
    }
    func.func private @wait_and_read(%signals: memref<16xi32>, %e: i32) -> i32 {
      %one = arith.constant 1 : i32
      %token = distributed.wait %signals, %one, %e scope = sys semantic = acquire {case = "kept"}
          : memref<16xi32>, i32, i32 -> i32
      return %token : i32
    }
    func.func private @never_called(%signals: memref<16xi32>, %e: i32) {
      %one = arith.constant 1 : i32
      %token = distributed.wait %signals, %one, %e scope = sys semantic = acquire {case = "never"}
          : memref<16xi32>, i32, i32 -> i32
      return
    }
    func.func @kernel(%signals: memref<16xi32>, %e: i32) -> i32 {
      %dropped = func.call @wait_for(%signals, %e) : (memref<16xi32>, i32) -> i32
      %kept = func.call @wait_and_read(%signals, %e) : (memref<16xi32>, i32) -> i32
      %again = func.call @wait_and_read(%signals, %e) : (memref<16xi32>, i32) -> i32
      return %kept : i32
    })mlir"),
            Names{"dropped"});
}

// Two identical waits with no write between them are merged by cse: nothing is lost, and
// neither is reported. Two dead ones are both reported.
TEST_F(DeadWaitsTest, MergedWaitsAreNotRemovedOnes) {
  EXPECT_EQ(removed(R"mlir(
    func.func @merged(%signals: memref<16xi32>, %e: i32) -> (i32, i32) {
      %one = arith.constant 1 : i32
      %first = distributed.wait %signals, %one, %e scope = sys semantic = acquire
          : memref<16xi32>, i32, i32 -> i32
      %second = distributed.wait %signals, %one, %e scope = sys semantic = acquire
          : memref<16xi32>, i32, i32 -> i32
      return %first, %second : i32, i32
    }
    func.func @both_dead(%signals: memref<16xi32>, %e: i32) {
      %one = arith.constant 1 : i32
      %first = distributed.wait %signals, %one, %e scope = sys semantic = acquire {case = "first"}
          : memref<16xi32>, i32, i32 -> i32
      %second = distributed.wait %signals, %one, %e scope = sys semantic = acquire {case = "second"}
          : memref<16xi32>, i32, i32 -> i32
      return
    })mlir"),
            (Names{"first", "second"}));
}

// When the stages fail on the copy (a signal type without a library instance), nothing is
// reported, and the copy's diagnostics are not shown: the pipeline reports the problem itself.
TEST_F(DeadWaitsTest, NothingWhenThePipelineFails) {
  EXPECT_EQ(removed(R"mlir(
    func.func @kernel(%signals: memref<16xi32>, %flags: memref<16xi1>, %e: i32, %on: i1) -> i32 {
      %one = arith.constant 1 : i32
      %dead = distributed.wait %signals, %one, %e scope = sys semantic = acquire {case = "dead"}
          : memref<16xi32>, i32, i32 -> i32
      %token = distributed.wait %flags, %one, %on scope = sys semantic = acquire {case = "i1"}
          : memref<16xi1>, i32, i1 -> i32
      return %token : i32
    })mlir"),
            Names{});
  EXPECT_TRUE(messages.empty()) << messages.front();
}

} // namespace
