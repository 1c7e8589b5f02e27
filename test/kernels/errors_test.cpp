// Bad calls of the kernel library: every PE gets an error (the same kind of it), that names the
// kernel, the argument and what was expected; afterwards the context still works, so no PE
// was left a step behind.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tdist/kernels/collectives.h"
#include "tdist/kernels/gemm.h"
#include "tdist/kernels/moe.h"
#include "test/kernels/tensor_io.h"

namespace tdist::kernels::testing {
namespace {

ContextOptions smallContext() {
  ContextOptions options;
  options.scratch_bytes = 256u << 10;
  options.max_signals = 256;
  return options;
}

// Runs call, which must throw Error(code); returns its message.
std::string errorOf(const std::function<void()> &call, ErrorCode code) {
  try {
    call();
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "PE " << myPe() << ": the call did not fail";
  return {};
}

// A good all_reduce after an error: every PE is still in step.
void expectContextStillWorks(Context &ctx) {
  HeapTensor t({100}, DType::F32);
  writeTensor(*t, std::vector<float>(100, 1.0f));
  all_reduce(ctx, *t, *t);
  EXPECT_EQ(readTensor<float>(ctx, *t), std::vector<float>(100, static_cast<float>(nPes())));
}

TEST(KernelErrors, ShapesThatDifferBetweenPesAreAMismatchOnEveryPe) {
  if (nPes() < 2) GTEST_SKIP() << "needs two PEs";
  Context ctx(smallContext());
  HeapTensor t({128}, DType::F32);
  Tensor view = *t;
  if (myPe() == 1) view.shape = {64};
  const std::string message =
      errorOf([&] { all_reduce(ctx, view, view); }, ErrorCode::CollectiveMismatch);
  EXPECT_NE(message.find("tdist::kernels::all_reduce: the call differs between PEs in input: PE 0 passed f32[128]@"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("PE 1 passed f32[64]@"), std::string::npos) << message;
  EXPECT_NE(message.find("(they differ in output too)"), std::string::npos) << message;
  expectContextStillWorks(ctx);
}

// Tensors of the same shape and dtype that are not the same symmetric tensor: a body would write
// into a peer's copy of this PE's tensor, another of the peer's tensors. A mismatch on every PE,
// naming the argument, and nothing written.
TEST(KernelErrors, AnotherTensorOfTheSameShapeIsAMismatchOnEveryPe) {
  if (nPes() < 2) GTEST_SKIP() << "needs two PEs";
  Context ctx(smallContext());
  HeapTensor input({1024}, DType::F32), first({1024}, DType::F32), second({1024}, DType::F32);
  writeTensor(*input, std::vector<float>(1024, 1.0f));
  writeTensor(*first, std::vector<float>(1024, -1.0f));
  writeTensor(*second, std::vector<float>(1024, -2.0f));
  Tensor &output = myPe() == 1 ? *second : *first;
  for (auto algorithm : {AllReduceAlgorithm::OneShot, AllReduceAlgorithm::TwoShot, AllReduceAlgorithm::Ring}) {
    const std::string message =
        errorOf([&] { all_reduce(ctx, *input, output, {algorithm}); }, ErrorCode::CollectiveMismatch);
    EXPECT_NE(message.find("the call differs between PEs in output: PE 0 passed f32[1024]@0x"), std::string::npos)
        << message;
    EXPECT_EQ(readTensor<float>(ctx, *first), std::vector<float>(1024, -1.0f));
    EXPECT_EQ(readTensor<float>(ctx, *second), std::vector<float>(1024, -2.0f));
  }
  // Two contexts used in another order on two PEs: on cuda, where the PEs agree on the host, the
  // context is part of the call. (On cpu each context agrees in band, through its own table: a PE
  // on another context is a PE that never makes the call, which ends at the wait deadline.)
  if (ctx.backend() == "cuda") {
    Context other(smallContext());
    Context &mine = myPe() == 1 ? other : ctx;
    const std::string message =
        errorOf([&] { all_reduce(mine, *input, *first); }, ErrorCode::CollectiveMismatch);
    EXPECT_NE(message.find("differs between PEs in context: PE 0 passed @0x"), std::string::npos) << message;
  }
  expectContextStillWorks(ctx);
}

// Every config field is part of the call, the cuda-only ones too.
TEST(KernelErrors, EveryConfigFieldIsCompared) {
  if (nPes() < 2) GTEST_SKIP() << "needs two PEs";
  Context ctx(smallContext());
  HeapTensor a({8, 16}, DType::F32), b({16, 8}, DType::F32), c({8 * nPes(), 8}, DType::F32);
  // PE 1 passes `config`, the others the default; the message names the field and both values.
  const auto expectDiffers = [&](const AllGatherGemmConfig &config, const std::string &what) {
    const AllGatherGemmConfig mine = myPe() == 1 ? config : AllGatherGemmConfig{};
    const std::string message =
        errorOf([&] { all_gather_gemm(ctx, *a, *b, *c, nullptr, mine); }, ErrorCode::CollectiveMismatch);
    EXPECT_NE(message.find("differs between PEs in " + what), std::string::npos) << message;
  };
  expectDiffers({.producer_sms = 2}, "config.producer_sms: PE 0 passed 0, PE 1 passed 2");
  // The tile order as resolved: Auto is along N (1) with swizzle 1.
  expectDiffers({.tile_raster = GemmRaster::AlongM}, "config.tile_raster: PE 0 passed 1, PE 1 passed 2");
  expectDiffers({.tile_swizzle = 4}, "config.tile_swizzle: PE 0 passed 1, PE 1 passed 4");
  HeapTensor x({64}, DType::F32), out({64 * nPes()}, DType::F32);
  AllGatherConfig engine;
  engine.engine = myPe() == 1 ? AllGatherConfig::Engine::Sm : AllGatherConfig::Engine::Auto;
  const std::string engine_message =
      errorOf([&] { all_gather(ctx, *x, *out, engine); }, ErrorCode::CollectiveMismatch);
  EXPECT_NE(engine_message.find("differs between PEs in config.engine"), std::string::npos) << engine_message;
  expectContextStillWorks(ctx);
}

TEST(KernelErrors, ConfigsThatDifferBetweenPesAreAMismatchOnEveryPe) {
  if (nPes() < 2) GTEST_SKIP() << "needs two PEs";
  Context ctx(smallContext());
  HeapTensor input({64}, DType::F32);
  HeapTensor output({64 * nPes()}, DType::F32);
  AllGatherConfig config;
  if (myPe() == nPes() - 1) config.chunk_bytes = 8192;
  const std::string message =
      errorOf([&] { all_gather(ctx, *input, *output, config); }, ErrorCode::CollectiveMismatch);
  EXPECT_NE(message.find("differs between PEs in config.chunk_bytes: PE 0 passed 262144"), std::string::npos)
      << message;
  EXPECT_NE(message.find("PE " + std::to_string(nPes() - 1) + " passed 8192"), std::string::npos) << message;
  expectContextStillWorks(ctx);
}

TEST(KernelErrors, ATensorOffTheHeapFailsOnItsPeAndNamesItOnTheOthers) {
  Context ctx(smallContext());
  HeapTensor heap({256}, DType::F32);
  std::vector<float> host(256);
  Tensor input = *heap;
  const int bad = nPes() - 1;
  if (myPe() == bad) input.data = host.data();
  const std::string message = errorOf([&] { all_reduce(ctx, input, *heap); }, ErrorCode::InvalidParam);
  if (myPe() == bad) {
    EXPECT_NE(message.find("tdist::kernels::all_reduce: input"), std::string::npos) << message;
    EXPECT_NE(message.find("not on this PE's symmetric heap"), std::string::npos) << message;
  } else {
    EXPECT_NE(message.find("failed on PE " + std::to_string(bad)), std::string::npos) << message;
  }
  expectContextStillWorks(ctx);
}

TEST(KernelErrors, AnUnsupportedDtypeNamesTheDtypesTaken) {
  Context ctx(smallContext());
  HeapTensor t({64}, DType::I32);
  const std::string message = errorOf([&] { all_reduce(ctx, *t, *t); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("tdist::kernels::all_reduce: input has dtype i32; expected f32, bf16 or f16"),
            std::string::npos)
      << message;
  expectContextStillWorks(ctx);
}

TEST(KernelErrors, ATensorThatIsNotContiguousRowMajorIsRefused) {
  Context ctx(smallContext());
  HeapTensor t({8, 8}, DType::F32);
  Tensor transposed = *t;
  transposed.strides = {1, 8};
  const std::string message = errorOf([&] { all_reduce(ctx, transposed, *t); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("expected contiguous row-major strides [8, 1]"), std::string::npos) << message;
}

// An all_gather's input inside its output: each PE's output is written while every PE's input
// is read (a peer's block lands on this PE's input before this PE sent all of it), so the call
// is refused on every PE before anything moves, and the next call goes through.
TEST(KernelErrors, AllGatherRefusesAnInputInsideItsOutput) {
  Context ctx(smallContext());
  HeapTensor output({64 * nPes()}, DType::F32);
  Tensor first = *output;
  first.shape = {64};
  first.strides = {1};
  const std::string message = errorOf([&] { all_gather(ctx, first, *output, {}); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("tdist::kernels::all_gather: input and output overlap"), std::string::npos) << message;
  HeapTensor input({64}, DType::F32);
  all_gather(ctx, *input, *output, {});
}

TEST(KernelErrors, ConfigValuesOutOfRangeNameTheFieldAndItsLimits) {
  Context ctx(smallContext());
  HeapTensor input({64}, DType::F32);
  HeapTensor output({64 * nPes()}, DType::F32);
  std::string message = errorOf([&] { all_gather(ctx, *input, *output, {1}); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("tdist::kernels::all_gather: config.chunk_bytes = 1 is outside 4096 .. 1073741824"),
            std::string::npos)
      << message;
  message = errorOf([&] { all_reduce(ctx, *input, *input, {AllReduceAlgorithm::Ring, 4096, -1}); },
                    ErrorCode::InvalidParam);
  EXPECT_NE(message.find("config.programs = -1 is outside 0 .. 1024"), std::string::npos) << message;
  message = errorOf([&] { reduce_scatter(ctx, *output, *input, {1ull << 31}); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("config.chunk_bytes = 2147483648"), std::string::npos) << message;
  HeapTensor a({4, 8}, DType::F32), b({8, 8}, DType::F32), c({4 * nPes(), 8}, DType::F32);
  AllGatherGemmConfig unknown;
  unknown.strategy = static_cast<GemmStrategy>(7);
  message = errorOf([&] { all_gather_gemm(ctx, *a, *b, *c, nullptr, unknown); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("config.strategy = 7 is outside 0 .. 2"), std::string::npos) << message;
  AllGatherGemmConfig producers;
  producers.producer_sms = 33;
  message = errorOf([&] { all_gather_gemm(ctx, *a, *b, *c, nullptr, producers); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("config.producer_sms = 33 is outside 0 .. 32"), std::string::npos) << message;
  AllGatherGemmConfig raster;
  raster.tile_raster = static_cast<GemmRaster>(3);
  message = errorOf([&] { all_gather_gemm(ctx, *a, *b, *c, nullptr, raster); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("config.tile_raster = 3 is outside 0 .. 2"), std::string::npos) << message;
  for (int bad : {-1, 3, 16}) {
    AllGatherGemmConfig swizzle;
    swizzle.tile_swizzle = bad;
    message = errorOf([&] { all_gather_gemm(ctx, *a, *b, *c, nullptr, swizzle); }, ErrorCode::InvalidParam);
    EXPECT_NE(message.find("config.tile_swizzle = " + std::to_string(bad) + " is not 0 (Auto), 1, 2, 4 or 8"),
              std::string::npos)
        << message;
  }
  expectContextStillWorks(ctx);
}

TEST(KernelErrors, ReduceScatterNeedsAMultipleOfThePes) {
  if (nPes() < 2) GTEST_SKIP() << "every size is a multiple of one PE";
  Context ctx(smallContext());
  HeapTensor input({nPes() * 10 + 1}, DType::F32);
  HeapTensor output({10}, DType::F32);
  const std::string message = errorOf([&] { reduce_scatter(ctx, *input, *output); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("expected a multiple of n_pes"), std::string::npos) << message;
}

TEST(KernelErrors, ARecvTooSmallFailsOnEveryPeNamingTheReceiver) {
  Context ctx(smallContext());
  const int n = nPes();
  MoeConfig config;
  config.experts = 2 * n;
  config.top_k = 1;
  config.capacity = 2;
  // Every PE sends 3 tokens to expert 0 (on PE 0): PE 0 would receive 3 n rows.
  HeapTensor x({3, 4}, DType::F32);
  HeapTensor ids({3, 1}, DType::I32);
  HeapTensor recv({config.capacity, 4}, DType::F32);
  writeTensor(*ids, std::vector<std::int32_t>(3, 0));
  const std::string message =
      errorOf([&] { moe_dispatch(ctx, *x, *ids, *recv, config); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("PE 0 receives " + std::to_string(3 * n) + " rows, more than config.capacity = 2"),
            std::string::npos)
      << message;
  // Expert ids outside 0 .. E-1 fail alike.
  writeTensor(*ids, std::vector<std::int32_t>{0, 2 * n, 0});
  config.capacity = 2;
  const std::string bad_id = errorOf([&] { moe_dispatch(ctx, *x, *ids, *recv, config); }, ErrorCode::InvalidParam);
  EXPECT_NE(bad_id.find("topk_ids of PE 0 has 1 values outside 0 .. " + std::to_string(2 * n - 1)),
            std::string::npos)
      << bad_id;
  expectContextStillWorks(ctx);
}

TEST(KernelErrors, MoeExpertsMustBeAMultipleOfThePes) {
  if (nPes() < 2) GTEST_SKIP() << "every count is a multiple of one PE";
  Context ctx(smallContext());
  MoeConfig config;
  config.experts = 2 * nPes() + 1;
  config.capacity = 4;
  HeapTensor x({3, 4}, DType::F32);
  HeapTensor ids({3, 1}, DType::I32);
  HeapTensor recv({4, 4}, DType::F32);
  const std::string message =
      errorOf([&] { moe_dispatch(ctx, *x, *ids, *recv, config); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("config.experts = " + std::to_string(2 * nPes() + 1) + " is not a multiple of n_pes"),
            std::string::npos)
      << message;
}

TEST(KernelErrors, AContextOfTooFewSignalsIsRefusedOnEveryPe) {
  ContextOptions options = smallContext();
  for (int few : {0, minSignals() - 1}) {
    options.max_signals = few;
    const std::string message = errorOf([&] { Context ctx(options); }, ErrorCode::InvalidParam);
    EXPECT_NE(message.find("config.max_signals = " + std::to_string(few) + " is outside " +
                           std::to_string(minSignals()) + " .. "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("tdist::kernels::minSignals()"), std::string::npos) << message;
  }
  // The fewest: every collective runs (collectives_test.cpp, TinyScratchAndFewSignalsRunInRounds).
  options.max_signals = minSignals();
  Context ctx(options);
  expectContextStillWorks(ctx);
}

// A call whose body takes more signal slots than the context has is one error, on every PE, from
// the entry point (before any PE's body runs): it names the kernel, what the context's backend
// needs and what the context has. The same call then runs on a context with the slots it needs.
TEST(KernelErrors, ACallNeedingMoreSlotsThanTheContextHasIsOneErrorOnEveryPe) {
  ContextOptions options = smallContext();
  options.max_signals = minSignals();
  Context few(options);
  HeapTensor a({64, 8}, DType::F32), b({8, 8}, DType::F32), c({64 * nPes(), 8}, DType::F32);
  writeTensor(*a, std::vector<float>(64 * 8, 1.0f));
  writeTensor(*b, std::vector<float>(8 * 8, 1.0f));
  AllGatherGemmConfig config;
  config.chunks_per_pe = 64;  // an arrival signal per (PE, chunk) on every backend: more than minSignals()
  const std::string message =
      errorOf([&] { all_gather_gemm(few, *a, *b, *c, nullptr, config); }, ErrorCode::InvalidParam);
  EXPECT_NE(message.find("tdist::kernels::all_gather_gemm: needs "), std::string::npos) << message;
  EXPECT_NE(message.find(" signals on the " + std::string(backendName()) + " backend, the context has " +
                         std::to_string(minSignals()) + " (ContextOptions::max_signals)"),
            std::string::npos)
      << message;
  expectContextStillWorks(few);
  options.max_signals = 4096;
  Context enough(options);
  all_gather_gemm(enough, *a, *b, *c, nullptr, config);
  EXPECT_EQ(readTensor<float>(enough, *c), std::vector<float>(64 * nPes() * 8, 8.0f));
}

// A Context that does not fit the heap says which options to change, and leaves the heap as it was.
TEST(KernelErrors, AContextLargerThanTheHeapNamesItsOptions) {
  ContextOptions options = smallContext();
  options.scratch_bytes = heapSize() + 1;
  const std::string message = errorOf([&] { Context ctx(options); }, ErrorCode::HeapExhausted);
  EXPECT_NE(message.find("tdist::kernels::Context: its scratch"), std::string::npos) << message;
  EXPECT_NE(message.find("ContextOptions::scratch_bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("tdist-run --heap, TDIST_HEAP_SIZE"), std::string::npos) << message;
  Context ctx(smallContext());
  expectContextStillWorks(ctx);
}

}  // namespace
}  // namespace tdist::kernels::testing
