// A PE that starts its call late, with grids as large as the kernels allow.
//
// On cuda, several PEs may drive one GPU (under MPS), and no PE's blocks are preempted: a kernel
// whose blocks wait for peers must leave SMs for the peers it waits for. Here every PE but the
// last asks for the most blocks (config.programs = 32), and the last PE is held back on its stream
// before every call, so that the others' blocks are resident, waiting for it, before its kernel is
// launched: with 8 PEs on an H200 (132 SMs) 7 x 32 blocks of one SM each would take every SM and
// the late PE's kernel would never run (the job would end at the wait deadline). Every
// collective, engine and algorithm, and both GEMMs with both strategies; the results are checked.
// On cpu the late PE's host is held back instead, which the same calls must survive.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "test/kernels/delay.h"
#include "test/kernels/tensor_io.h"
#include "tdist/kernels/collectives.h"
#include "tdist/kernels/gemm.h"

namespace tdist::kernels::testing {
namespace {

constexpr std::chrono::microseconds kLate{20000};

ContextOptions lateContext() {
  ContextOptions options;
  options.scratch_bytes = 3u << 20;
  return options;
}

// Holds the last PE back before the next call (the others are not).
void lastIsLate(Context &ctx) {
  if (myPe() == nPes() - 1 && nPes() > 1) holdBack(ctx, kLate);
}

float valueOf(int pe, std::int64_t i) { return static_cast<float>((pe + 1) * 3 + i % 7); }

TEST(LatePe, EveryCollectiveWithItsLargestGridWaitsForALatePe) {
  Context ctx(lateContext());
  const int n = nPes(), me = myPe();
  constexpr std::int64_t kNumel = 1 << 16;  // 256 KiB of f32 a PE: 32 blocks of 8 KiB
  HeapTensor input({n * kNumel}, DType::F32), output({n * kNumel}, DType::F32);
  std::vector<float> mine(static_cast<std::size_t>(n * kNumel));
  for (std::int64_t i = 0; i < n * kNumel; ++i) mine[i] = valueOf(me, i);
  auto sum = [&](std::int64_t i) {
    float s = 0.0f;
    for (int pe = 0; pe < n; ++pe) s += valueOf(pe, i);
    return s;
  };
  Tensor in = *input, block = *output;
  in.shape = {kNumel};
  in.strides = {1};
  block.shape = {kNumel};
  block.strides = {1};

  for (auto engine : {AllGatherConfig::Engine::Sm, AllGatherConfig::Engine::CopyEngine}) {
    writeTensor(*input, mine);
    lastIsLate(ctx);
    all_gather(ctx, in, *output, {4096, 32, engine});
    const auto got = readTensor<float>(ctx, *output);
    std::size_t wrong = 0;
    for (std::int64_t i = 0; i < n * kNumel; ++i) wrong += got[i] != valueOf(static_cast<int>(i / kNumel), i % kNumel);
    EXPECT_EQ(wrong, 0u) << "all_gather, engine " << static_cast<int>(engine);
  }
  for (auto engine : {ReduceScatterConfig::Engine::Sm, ReduceScatterConfig::Engine::CopyEngine}) {
    writeTensor(*input, mine);
    lastIsLate(ctx);
    reduce_scatter(ctx, *input, block, {4096, 32, engine});
    const auto got = readTensor<float>(ctx, block);
    std::size_t wrong = 0;
    for (std::int64_t i = 0; i < kNumel; ++i) wrong += got[i] != sum(me * kNumel + i);
    EXPECT_EQ(wrong, 0u) << "reduce_scatter, engine " << static_cast<int>(engine);
  }
  for (auto algorithm : {AllReduceAlgorithm::OneShot, AllReduceAlgorithm::TwoShot, AllReduceAlgorithm::Ring}) {
    writeTensor(*input, mine);
    lastIsLate(ctx);
    all_reduce(ctx, in, block, {algorithm, 8192, 32});
    const auto got = readTensor<float>(ctx, block);
    std::size_t wrong = 0;
    for (std::int64_t i = 0; i < kNumel; ++i) wrong += got[i] != sum(i);
    EXPECT_EQ(wrong, 0u) << "all_reduce " << algorithmName(algorithm);
  }
}

TEST(LatePe, BothGemmsWithEveryStrategyWaitForALatePe) {
  Context ctx(lateContext());
  const int n = nPes();
  constexpr std::int64_t kRows = 128, kK = 64, kN = 256;
  // Ones: every element of C is K (all_gather_gemm) or n K (gemm_reduce_scatter), exact in bf16.
  HeapTensor a({kRows, kK}, DType::BF16), b({kK, kN}, DType::BF16), c({n * kRows, kN}, DType::BF16);
  HeapTensor rs_a({n * kRows, kK}, DType::BF16), rs_c({kRows, kN}, DType::BF16);
  const BFloat16 one = toBFloat16(1.0f);
  writeTensor(*a, std::vector<BFloat16>(static_cast<std::size_t>(kRows * kK), one));
  writeTensor(*b, std::vector<BFloat16>(static_cast<std::size_t>(kK * kN), one));
  writeTensor(*rs_a, std::vector<BFloat16>(static_cast<std::size_t>(n * kRows * kK), one));
  for (auto strategy : {GemmStrategy::Decomposed, GemmStrategy::Fused}) {
    if (strategy == GemmStrategy::Fused && ctx.backend() != "cuda") continue;
    AllGatherGemmConfig ag;
    ag.chunks_per_pe = 2;
    ag.strategy = strategy;
    lastIsLate(ctx);
    try {
      all_gather_gemm(ctx, *a, *b, *c, nullptr, ag);
    } catch (const Error &e) {
      if (e.code() == ErrorCode::NotSupported) continue;  // built without the CUTLASS headers
      throw;
    }
    for (BFloat16 v : readTensor<BFloat16>(ctx, *c)) ASSERT_EQ(toFloat(v), static_cast<float>(kK));
    GemmReduceScatterConfig rs;
    rs.strategy = strategy;
    lastIsLate(ctx);
    gemm_reduce_scatter(ctx, *rs_a, *b, *rs_c, rs);
    for (BFloat16 v : readTensor<BFloat16>(ctx, *rs_c)) ASSERT_EQ(toFloat(v), static_cast<float>(n * kK));
  }
}

// A one-shot all-reduce whose last PE is slow, directly followed by an AllGather + GEMM on a
// context whose slots are all in use (the GEMM's arrival slots at the top of the collectives'
// data slots): no write of the one-shot may land after its receiver has left the call.
TEST(LatePe, AOneShotThenAGemmOnAFullContext) {
  ContextOptions options = lateContext();
  options.max_signals = minSignals() + 2 * nPes();
  Context ctx(options);
  const int n = nPes(), me = myPe();
  constexpr std::int64_t kNumel = 1 << 16;
  HeapTensor x({kNumel}, DType::F32);
  HeapTensor a({32, 16}, DType::F32), b({16, 8}, DType::F32), c({n * 32, 8}, DType::F32);
  writeTensor(*a, std::vector<float>(32 * 16, 1.0f));
  writeTensor(*b, std::vector<float>(16 * 8, 2.0f));
  for (int round = 0; round < 50 && !::testing::Test::HasFailure(); ++round) {
    writeTensor(*x, std::vector<float>(kNumel, static_cast<float>(me + round)));
    lastIsLate(ctx);
    all_reduce(ctx, *x, *x, {AllReduceAlgorithm::OneShot, 8192, 1});
    all_gather_gemm(ctx, *a, *b, *c, nullptr, {1, 512, 1024, 0, GemmStrategy::Decomposed});
    const float want = static_cast<float>(n * round + n * (n - 1) / 2);
    for (float v : readTensor<float>(ctx, *x)) ASSERT_EQ(v, want) << "round " << round;
    for (float v : readTensor<float>(ctx, *c)) ASSERT_EQ(v, 32.0f) << "round " << round;
  }
}

// A context destroyed right after a one-shot, and a tensor allocated where it was: nothing of the
// context's calls lands in the new tensor.
TEST(LatePe, NothingOfADestroyedContextLandsInTheHeapAfterIt) {
  const int me = myPe();
  for (int round = 0; round < 20; ++round) {
    {
      ContextOptions options;
      options.scratch_bytes = 1u << 20;
      options.max_signals = minSignals();
      Context ctx(options);
      HeapTensor x({1 << 15}, DType::F32);
      writeTensor(*x, std::vector<float>(1 << 15, 1.0f));
      lastIsLate(ctx);
      all_reduce(ctx, *x, *x, {AllReduceAlgorithm::OneShot, 8192, 1});
    }
    HeapTensor fresh({1 << 14}, DType::F32);  // where the context's signals and scratch were
    writeTensor(*fresh, std::vector<float>(1 << 14, -1.0f));
    shmem::barrier_all();
    std::vector<float> got(1 << 14);
    shmem::getmem(got.data(), fresh->data, got.size() * sizeof(float), me);
    for (float v : got) ASSERT_EQ(v, -1.0f) << "round " << round;
    shmem::barrier_all();
  }
}

}  // namespace
}  // namespace tdist::kernels::testing
