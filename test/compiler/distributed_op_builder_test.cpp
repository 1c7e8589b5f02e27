//===- distributed_op_builder_test.cpp - DistributedOpBuilder -------------===//
//
// Builds kernels the way a front end does, then checks them as a pass
// pipeline would see them: verified, printed, and with the memory effects the
// optimizer relies on.
//
//===----------------------------------------------------------------------===//
#include "tdist/Dialect/Distributed/IR/DistributedOpBuilder.h"
#include "tdist/Dialect/Distributed/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::triton::distributed;

namespace {

class DistributedOpBuilderTest : public ::testing::Test {
protected:
  DistributedOpBuilderTest()
      : loc(UnknownLoc::get(&context)), builder(&context),
        diagnostics(&context, [this](Diagnostic &diagnostic) {
          messages.push_back(diagnostic.str());
          return success();
        }) {
    // Pointer types are the LLVM dialect's; the kernels are funcs.
    context.loadDialect<func::FuncDialect, LLVM::LLVMDialect>();
  }

  /// A module holding `func.func @kernel(argumentTypes)`, with the builder
  /// at the start of its body (before the return).
  func::FuncOp createKernel(TypeRange argumentTypes, StringRef target = "") {
    module = ModuleOp::create(loc);
    if (!target.empty())
      (*module)->setAttr(DistributedDialect::getTargetAttrName(), builder.getStringAttr(target));
    builder.setInsertionPointToEnd(module->getBody());
    auto kernel = func::FuncOp::create(builder, loc, "kernel",
                                       builder.getFunctionType(argumentTypes, {}));
    Block *body = kernel.addEntryBlock();
    builder.setInsertionPointToEnd(body);
    func::ReturnOp::create(builder, loc);
    builder.setInsertionPointToStart(body);
    return kernel;
  }

  std::string print() {
    std::string text;
    llvm::raw_string_ostream stream(text);
    module->print(stream);
    return text;
  }

  /// Whether verification fails with a message containing `expected`.
  ::testing::AssertionResult failsWith(StringRef expected) {
    messages.clear();
    if (succeeded(verify(*module)))
      return ::testing::AssertionFailure() << "the module verified:\n" << print();
    for (const std::string &message : messages)
      if (StringRef(message).contains(expected))
        return ::testing::AssertionSuccess();
    auto failure = ::testing::AssertionFailure() << "no diagnostic contains '"
                                                 << expected.str() << "'; got:";
    for (const std::string &message : messages)
      failure << "\n  " << message;
    return failure;
  }

  MLIRContext context;
  Location loc;
  OpBuilder builder;
  std::vector<std::string> messages;
  ScopedDiagnosticHandler diagnostics;
  OwningOpRef<ModuleOp> module;
};

TEST_F(DistributedOpBuilderTest, BuildsEveryOp) {
  Type signals = MemRefType::get({64}, builder.getI32Type());
  Type data = MemRefType::get({1024}, builder.getF32Type());
  func::FuncOp kernel = createKernel({signals, data, builder.getI32Type()});
  Value signalPtr = kernel.getArgument(0);
  Value dataPtr = kernel.getArgument(1);
  Value epoch = kernel.getArgument(2);

  DistributedOpBuilder dl(builder, loc);
  Value rank = dl.create_distributed_get_rank();
  Value numRanks = dl.create_distributed_get_num_ranks();
  Value token = dl.create_distributed_wait(signalPtr, 4, epoch, MemScope::SYSTEM,
                                           MemSemantic::RELAXED);
  Value ready = dl.create_distributed_consume_token(dataPtr, token);
  Value remote = dl.create_distributed_symm_at(ready, rank);
  dl.create_distributed_notify(signalPtr, 1, numRanks, SignalOp::ADD, CommScope::INTRA_NODE);
  dl.create_distributed_extern_call("aclshmem_putmem", ValueRange{remote, dataPtr}, {}, false,
                                    "libshmem_device", "/opt/shmem/lib");
  dl.create_distributed_extern_call("aclshmem_my_pe", {}, builder.getI32Type(), true);

  ASSERT_TRUE(succeeded(verify(*module))) << print();
  std::string text = print();
  for (StringRef expected : {
           "%0 = distributed.get_rank : i32",
           "%1 = distributed.get_num_ranks : i32",
           "%c4_i32 = arith.constant 4 : i32",
           "%2 = distributed.wait %arg0, %c4_i32, %arg2 scope = sys semantic = relaxed "
           ": memref<64xi32>, i32, i32 -> i32",
           "%3 = distributed.consume_token %arg1, %2 : memref<1024xf32>, i32",
           "%4 = distributed.symm_at %3, %0 : memref<1024xf32>",
           "%c1_i64 = arith.constant 1 : i64",
           "distributed.notify %arg0, %c1_i64, %1 sig_op = add scope = intra_node "
           ": memref<64xi32>",
           "distributed.extern_call \"aclshmem_putmem\"(%4, %arg1) {libname = "
           "\"libshmem_device\", libpath = \"/opt/shmem/lib\"} : (memref<1024xf32>, "
           "memref<1024xf32>) -> ()",
           "%5 = distributed.extern_call \"aclshmem_my_pe\"() {pure = true} : () -> i32",
       })
    EXPECT_NE(text.find(expected.str()), std::string::npos) << expected.str() << "\nin\n"
                                                            << text;
}

TEST_F(DistributedOpBuilderTest, DefaultsAreThoseOfTheFrontEnd) {
  Type signals = MemRefType::get({16}, builder.getI64Type());
  func::FuncOp kernel = createKernel({signals});
  DistributedOpBuilder dl(builder, loc);
  WaitOp wait = dl.create_distributed_wait(kernel.getArgument(0), 1, 7);
  NotifyOp notify = dl.create_distributed_notify(kernel.getArgument(0), 7, 2);
  GetRankOp rank = dl.create_distributed_get_rank();
  ExternCallOp call = dl.create_distributed_extern_call("aclshmem_barrier_all", {}, {});

  ASSERT_TRUE(succeeded(verify(*module))) << print();
  EXPECT_EQ(wait.getScope(), MemScope::GPU);
  EXPECT_EQ(wait.getSemantic(), MemSemantic::ACQUIRE);
  EXPECT_EQ(wait.getToken().getType(), builder.getI32Type());
  // The wait value follows the signal: an i64 slot is waited on with an i64.
  EXPECT_EQ(wait.getWaitValue().getType(), builder.getI64Type());
  EXPECT_EQ(notify.getSigOp(), SignalOp::SET);
  EXPECT_EQ(notify.getCommScope(), CommScope::INTER_NODE);
  EXPECT_EQ(notify.getSignalVal().getType(), builder.getI64Type());
  EXPECT_EQ(notify.getRank().getType(), builder.getI32Type());
  EXPECT_EQ(rank.getAxis(), 0u);
  EXPECT_FALSE(call.getPure());
  EXPECT_EQ(call.getLibname(), "");
  EXPECT_EQ(call.getLibpath(), "");
}

TEST_F(DistributedOpBuilderTest, AcceptsOpaqueAndTensorPointers) {
  auto ptr = LLVM::LLVMPointerType::get(&context, 1);
  auto ptrs = RankedTensorType::get({4}, ptr);
  auto counts = RankedTensorType::get({4}, builder.getI32Type());
  func::FuncOp kernel = createKernel({ptr, ptrs, counts, builder.getI32Type()});
  DistributedOpBuilder dl(builder, loc);
  Value count = arith::ConstantOp::create(builder, loc, DenseIntElementsAttr::get(counts, 2));
  WaitOp tileWait = dl.create_distributed_wait(kernel.getArgument(1), count, 1, MemScope::CTA,
                                               MemSemantic::ACQUIRE, counts);
  WaitOp scalarWait = dl.create_distributed_wait(kernel.getArgument(0), 1, 0);
  SymmAtOp remote = dl.create_distributed_symm_at(kernel.getArgument(0), kernel.getArgument(3));
  dl.create_distributed_notify(remote, 1, kernel.getArgument(3));

  ASSERT_TRUE(succeeded(verify(*module))) << print();
  EXPECT_EQ(tileWait.getToken().getType(), counts);
  // No pointee to follow: the wait value is an i32.
  EXPECT_EQ(scalarWait.getWaitValue().getType(), builder.getI32Type());
  EXPECT_EQ(remote.getRemoteAddr().getType(), ptr);
}

TEST_F(DistributedOpBuilderTest, MemoryEffectsFollowTheSeed) {
  Type signals = MemRefType::get({16}, builder.getI32Type());
  func::FuncOp kernel = createKernel({signals});
  Value signalPtr = kernel.getArgument(0);
  DistributedOpBuilder dl(builder, loc);
  WaitOp wait = dl.create_distributed_wait(signalPtr, 1, 1);
  ConsumeTokenOp consume = dl.create_distributed_consume_token(signalPtr, wait);
  GetRankOp rank = dl.create_distributed_get_rank();
  NotifyOp notify = dl.create_distributed_notify(signalPtr, 1, rank.getResult());
  ExternCallOp pureCall = dl.create_distributed_extern_call("aclshmem_n_pes", {},
                                                            builder.getI32Type(), true);
  ExternCallOp call = dl.create_distributed_extern_call("aclshmem_quiet", {}, {});
  ASSERT_TRUE(succeeded(verify(*module))) << print();

  EXPECT_TRUE(hasSingleEffect<MemoryEffects::Read>(wait));
  EXPECT_TRUE(isMemoryEffectFree(consume));
  EXPECT_TRUE(isPure(rank));
  EXPECT_TRUE(hasEffect<MemoryEffects::Read>(notify));
  EXPECT_TRUE(hasEffect<MemoryEffects::Write>(notify));
  EXPECT_TRUE(isPure(pureCall));
  EXPECT_TRUE(hasEffect<MemoryEffects::Write>(call));
  EXPECT_FALSE(isSpeculatable(call));
}

TEST_F(DistributedOpBuilderTest, ZeroBarriersFailVerification) {
  func::FuncOp kernel = createKernel({MemRefType::get({16}, builder.getI32Type())});
  DistributedOpBuilder dl(builder, loc);
  dl.create_distributed_wait(kernel.getArgument(0), 0, 1);
  EXPECT_TRUE(failsWith("the number of barriers must be positive and at most 65536, got 0"));
}

TEST_F(DistributedOpBuilderTest, DynamicBarriersVerify) {
  func::FuncOp kernel =
      createKernel({MemRefType::get({16}, builder.getI32Type()), builder.getI32Type()});
  DistributedOpBuilder dl(builder, loc);
  WaitOp wait = dl.create_distributed_wait(kernel.getArgument(0), kernel.getArgument(1), 1);
  EXPECT_TRUE(succeeded(verify(*module))) << print();
  EXPECT_EQ(wait.getNumBarriers(), kernel.getArgument(1));
}

TEST_F(DistributedOpBuilderTest, BarriersAboveTheMaximumFailVerification) {
  func::FuncOp kernel = createKernel({MemRefType::get({16}, builder.getI32Type())});
  DistributedOpBuilder dl(builder, loc);
  dl.create_distributed_wait(kernel.getArgument(0), kMaxWaitSlots, 1);
  ASSERT_TRUE(succeeded(verify(*module))) << print();
  dl.create_distributed_wait(kernel.getArgument(0), kMaxWaitSlots + 1, 1);
  EXPECT_TRUE(failsWith("the number of barriers must be positive and at most 65536, got 65537"));
}

TEST_F(DistributedOpBuilderTest, WaitValueMustMatchTheSignal) {
  func::FuncOp kernel =
      createKernel({MemRefType::get({16}, builder.getI64Type()), builder.getI32Type()});
  DistributedOpBuilder dl(builder, loc);
  dl.create_distributed_wait(kernel.getArgument(0), 1, kernel.getArgument(1));
  EXPECT_TRUE(failsWith("wait value type 'i32' must match the signal element type 'i64'"));
}

TEST_F(DistributedOpBuilderTest, ReleaseWaitFailsVerification) {
  func::FuncOp kernel = createKernel({MemRefType::get({16}, builder.getI32Type())});
  DistributedOpBuilder dl(builder, loc);
  dl.create_distributed_wait(kernel.getArgument(0), 1, 1, MemScope::GPU, MemSemantic::RELEASE);
  EXPECT_TRUE(failsWith("semantic must be 'acquire' or 'relaxed', got 'release'"));
}

TEST_F(DistributedOpBuilderTest, SixtyFourBitAddFailsOnAscend) {
  func::FuncOp kernel = createKernel({MemRefType::get({16}, builder.getI64Type())});
  DistributedOpBuilder dl(builder, loc);
  dl.create_distributed_notify(kernel.getArgument(0), 1, 0, SignalOp::ADD);
  EXPECT_TRUE(failsWith("a 64-bit signal allows only sig_op = set on Ascend, got add"));
}

TEST_F(DistributedOpBuilderTest, SixtyFourBitAddIsFineOnCuda) {
  func::FuncOp kernel = createKernel({MemRefType::get({16}, builder.getI64Type())}, "cuda");
  DistributedOpBuilder dl(builder, loc);
  dl.create_distributed_notify(kernel.getArgument(0), 1, 0, SignalOp::ADD);
  EXPECT_TRUE(succeeded(verify(*module))) << print();
}

TEST_F(DistributedOpBuilderTest, ThirtyTwoBitSignalFailsOnCuda) {
  func::FuncOp kernel = createKernel({MemRefType::get({16}, builder.getI32Type())}, "cuda");
  DistributedOpBuilder dl(builder, loc);
  dl.create_distributed_notify(kernel.getArgument(0), 1, 0);
  EXPECT_TRUE(failsWith("signal type 'i32' is not allowed on this target (i64 or ui64)"));
}

// The cpu target links the aclshmem library, as Ascend does: i32 signals, 64-bit ones set only.
TEST_F(DistributedOpBuilderTest, CpuTargetFollowsTheAclshmemRules) {
  func::FuncOp kernel = createKernel({MemRefType::get({16}, builder.getI32Type()),
                                      MemRefType::get({16}, builder.getI64Type())},
                                     "cpu");
  DistributedOpBuilder dl(builder, loc);
  dl.create_distributed_notify(kernel.getArgument(0), 1, 0, SignalOp::ADD);
  EXPECT_TRUE(succeeded(verify(*module))) << print();
  dl.create_distributed_notify(kernel.getArgument(1), 1, 0, SignalOp::ADD);
  EXPECT_TRUE(failsWith("a 64-bit signal allows only sig_op = set on the cpu target, got add"));
}

TEST_F(DistributedOpBuilderTest, UnsignedWaitValueIsLeftToTheVerifier) {
  // arith.constant has no ui64: the builder makes an i64 and the verifier,
  // not the builder, rejects it.
  auto ui64 = IntegerType::get(&context, 64, IntegerType::Unsigned);
  func::FuncOp kernel = createKernel({MemRefType::get({16}, ui64)});
  DistributedOpBuilder dl(builder, loc);
  dl.create_distributed_wait(kernel.getArgument(0), 1, 1);
  EXPECT_TRUE(failsWith("wait value type 'i64' must match the signal element type 'ui64'"));
}

TEST_F(DistributedOpBuilderTest, BadAxisFailsVerification) {
  createKernel({});
  DistributedOpBuilder dl(builder, loc);
  dl.create_distributed_get_num_ranks(1);
  EXPECT_TRUE(failsWith("axis 1 does not exist: the device mesh has only axis 0"));
}

TEST_F(DistributedOpBuilderTest, EmptyExternSymbolFailsVerification) {
  createKernel({});
  DistributedOpBuilder dl(builder, loc);
  dl.create_distributed_extern_call("", {}, {});
  EXPECT_TRUE(failsWith("needs a non-empty symbol"));
}

TEST_F(DistributedOpBuilderTest, BuiltKernelTakesTheBarrierPass) {
  Type signals = MemRefType::get({16}, builder.getI32Type());
  func::FuncOp kernel = createKernel({signals});
  DistributedOpBuilder dl(builder, loc);
  Value token = dl.create_distributed_wait(kernel.getArgument(0), 1, 1);
  dl.create_distributed_consume_token(kernel.getArgument(0), token);
  dl.create_distributed_notify(kernel.getArgument(0), 1, 0);

  PassManager pm(&context);
  pm.addPass(createDistributedInjectBarrierAllPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  std::vector<std::string> order;
  kernel.walk([&](Operation *op) {
    if (auto call = dyn_cast<ExternCallOp>(op))
      order.push_back(call.getSymbol().str());
    else if (isa<DistributedDialect>(op->getDialect()))
      order.push_back(op->getName().stripDialect().str());
  });
  // consume_token emits no code: the barrier after the wait also stands
  // before the notify.
  std::vector<std::string> expected = {"aclshmem_barrier_all", "wait", "aclshmem_barrier_all",
                                       "consume_token", "notify", "aclshmem_barrier_all"};
  EXPECT_EQ(order, expected) << print();
}

} // namespace
