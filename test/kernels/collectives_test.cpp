// AllGather, ReduceScatter and AllReduce against host references, bit for bit: every PE's input
// is a function of (PE, element, call), so each PE computes every PE's input and the sums in PE
// order (in f32, rounded once) itself. The same reference for every algorithm and config shows
// that results are identical across them; repeated calls on one context check the epochs.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tdist/kernels/collectives.h"
#include "test/kernels/tensor_io.h"

namespace tdist::kernels::testing {
namespace {

// Values with many significant bits and mixed signs and magnitudes, so that the order of a
// sum changes its result.
float inputValue(int pe, std::int64_t i, int call) {
  std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ static_cast<std::uint32_t>(pe + 1) * 40503u ^
                    static_cast<std::uint32_t>(call + 7) * 97u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  const float mantissa = static_cast<float>(h % 100003u) / 7919.0f - 6.3f;
  return mantissa * static_cast<float>(1u << (h >> 29));
}

template <class T>
std::vector<T> inputOf(int pe, std::int64_t numel, int call) {
  std::vector<T> values(static_cast<std::size_t>(numel));
  for (std::int64_t i = 0; i < numel; ++i) values[i] = store<T>(inputValue(pe, i, call));
  return values;
}

// The sum over PEs of element i of their inputs, in PE order, starting from PE 0's value.
template <class T>
T referenceSum(std::int64_t i, int call) {
  float sum = load(store<T>(inputValue(0, i, call)));
  for (int pe = 1; pe < nPes(); ++pe) sum += load(store<T>(inputValue(pe, i, call)));
  return store<T>(sum);
}

ContextOptions smallContext(std::size_t scratch_bytes = 1u << 20, int max_signals = 1024) {
  ContextOptions options;
  options.scratch_bytes = scratch_bytes;
  options.max_signals = max_signals;
  return options;
}

template <class T>
void expectBits(const std::vector<T> &actual, const std::vector<T> &expected, const std::string &what) {
  const std::int64_t at = firstDifference(actual, expected);
  EXPECT_EQ(at, -1) << what << ": PE " << myPe() << " differs first at element " << at << " of "
                    << expected.size();
}

const std::vector<std::int64_t> kSizes = {0, 1, 5, 1000, 70001};

template <class T>
void allGatherCase(Context &ctx, std::int64_t numel, const AllGatherConfig &config, int call) {
  const int n = nPes();
  HeapTensor input({numel}, kDtype<T>);
  HeapTensor output({n * numel}, kDtype<T>);
  writeTensor(*input, inputOf<T>(myPe(), numel, call));
  all_gather(ctx, *input, *output, config);
  std::vector<T> expected;
  for (int pe = 0; pe < n; ++pe) {
    const auto part = inputOf<T>(pe, numel, call);
    expected.insert(expected.end(), part.begin(), part.end());
  }
  expectBits(readTensor<T>(ctx, *output), expected, "all_gather of " + std::to_string(numel));
}

template <class T>
void reduceScatterCase(Context &ctx, std::int64_t block, const ReduceScatterConfig &config, int call) {
  const int n = nPes();
  HeapTensor input({n * block}, kDtype<T>);
  HeapTensor output({block}, kDtype<T>);
  writeTensor(*input, inputOf<T>(myPe(), n * block, call));
  reduce_scatter(ctx, *input, *output, config);
  std::vector<T> expected(static_cast<std::size_t>(block));
  for (std::int64_t i = 0; i < block; ++i) expected[i] = referenceSum<T>(myPe() * block + i, call);
  expectBits(readTensor<T>(ctx, *output), expected, "reduce_scatter of blocks of " + std::to_string(block));
}

template <class T>
void allReduceCase(Context &ctx, std::int64_t numel, const AllReduceConfig &config, bool in_place, int call) {
  HeapTensor input({numel}, kDtype<T>);
  HeapTensor separate({in_place ? 0 : numel}, kDtype<T>);
  Tensor &output = in_place ? *input : *separate;
  writeTensor(*input, inputOf<T>(myPe(), numel, call));
  all_reduce(ctx, *input, output, config);
  std::vector<T> expected(static_cast<std::size_t>(numel));
  for (std::int64_t i = 0; i < numel; ++i) expected[i] = referenceSum<T>(i, call);
  expectBits(readTensor<T>(ctx, output), expected,
             std::string("all_reduce ") + algorithmName(config.algorithm) + (in_place ? " in place" : "") + " of " +
                 std::to_string(numel));
}

bool onCuda() { return std::string(tdist::backendName()) == "cuda"; }

template <class T>
class Collectives : public ::testing::Test {};
using StorageTypes = ::testing::Types<float, BFloat16, Float16>;
TYPED_TEST_SUITE(Collectives, StorageTypes);

TYPED_TEST(Collectives, AllGatherMatchesTheConcatenationAcrossChunkings) {
  Context ctx(smallContext());
  int call = 0;
  for (std::int64_t numel : kSizes) {
    allGatherCase<TypeParam>(ctx, numel, {}, call++);
    allGatherCase<TypeParam>(ctx, numel, {4096, 3}, call++);
    allGatherCase<TypeParam>(ctx, numel, {8192, 1}, call++);
  }
}

TYPED_TEST(Collectives, ReduceScatterSumsInPeOrderAcrossChunkings) {
  Context ctx(smallContext());
  int call = 0;
  for (std::int64_t block : {0, 1, 777, 33001}) {
    reduceScatterCase<TypeParam>(ctx, block, {}, call++);
    reduceScatterCase<TypeParam>(ctx, block, {4096, 2}, call++);
    reduceScatterCase<TypeParam>(ctx, block, {12288, 0}, call++);
    reduceScatterCase<TypeParam>(ctx, block, {4096, 1}, call++);
  }
}

TYPED_TEST(Collectives, EveryAllReduceAlgorithmGivesThePeOrderSum) {
  // The cuda one-shot holds a whole input per source and parity in half the scratch (4.5 MB at 4
  // PEs for the largest size); the suite's heap is 16 MiB.
  Context ctx(smallContext(onCuda() ? std::size_t{10} << 20 : std::size_t{1} << 20));
  int call = 0;
  for (AllReduceAlgorithm algorithm : {AllReduceAlgorithm::Auto, AllReduceAlgorithm::OneShot,
                                       AllReduceAlgorithm::TwoShot, AllReduceAlgorithm::Ring}) {
    for (std::int64_t numel : kSizes) {
      // One block: its slice is long enough for a thread to sum several vectors at a time (cuda).
      for (AllReduceConfig config :
           {AllReduceConfig{algorithm}, AllReduceConfig{algorithm, 4096, 3}, AllReduceConfig{algorithm, 4096, 1}}) {
        allReduceCase<TypeParam>(ctx, numel, config, false, call);
        allReduceCase<TypeParam>(ctx, numel, config, true, call);
        ++call;
      }
    }
  }
}

// A scratch of a few chunks and the fewest signal slots a context takes at this PE count
// (minSignals(): on cuda those of the ring, two data slots per source): every kernel runs in
// many rounds, and its result is still the same.
TYPED_TEST(Collectives, TinyScratchAndFewSignalsRunInRounds) {
  Context ctx(smallContext(3 * 4096 + 100, minSignals()));
  int call = 0;
  for (std::int64_t numel : {std::int64_t{1}, std::int64_t{9001}}) {
    allGatherCase<TypeParam>(ctx, numel, {4096, 2}, call++);
    reduceScatterCase<TypeParam>(ctx, numel, {4096, 2}, call++);
    for (AllReduceAlgorithm algorithm :
         {AllReduceAlgorithm::OneShot, AllReduceAlgorithm::TwoShot, AllReduceAlgorithm::Ring}) {
      allReduceCase<TypeParam>(ctx, numel, {algorithm, 4096, 2}, false, call);
      allReduceCase<TypeParam>(ctx, numel, {algorithm, 4096, 2}, true, call++);
    }
  }
}

TEST(CollectivesOnOneContext, ManyCallsOfEveryKernelInterleaveWithoutResets) {
  Context ctx(smallContext());
  for (int call = 0; call < 12; ++call) {
    allGatherCase<float>(ctx, 301 + call, {4096, 0}, call);
    reduceScatterCase<BFloat16>(ctx, 257, {4096, 0}, call);
    const auto algorithm = static_cast<AllReduceAlgorithm>(call % 4);
    allReduceCase<float>(ctx, 5000, {algorithm, 4096, 0}, call % 2 == 0, call);
  }
}

// Auto: the two-shot on more than one PE at every size (measured faster on both backends), but
// small calls among peers through the network (the one-shot where a PE receives at most 48 KiB);
// the one-shot on one PE.
TEST(CollectivesOnOneContext, AutoPicksByPes) {
  Context ctx(smallContext());
  const auto picked = nPes() == 1 ? AllReduceAlgorithm::OneShot : AllReduceAlgorithm::TwoShot;
  bool network = false;
  for (int pe = 0; pe < nPes(); ++pe) network = network || (pe != myPe() && (transportMask(pe) & kTransportRoce) != 0);
  EXPECT_EQ(chooseAllReduce(ctx, 4096), network && nPes() <= 13 ? AllReduceAlgorithm::OneShot : picked);
  EXPECT_EQ(chooseAllReduce(ctx, 256u << 10), picked);
  EXPECT_EQ(chooseAllReduce(ctx, 64u << 20), picked);
  EXPECT_STREQ(algorithmName(AllReduceAlgorithm::Ring), "ring");
  EXPECT_STREQ(algorithmName(AllReduceAlgorithm::TwoShot), "two-shot");
}

}  // namespace
}  // namespace tdist::kernels::testing
