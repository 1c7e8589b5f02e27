// MoE dispatch and combine against host references, bit for bit. Every PE's tokens, expert
// choices and weights are functions of (PE, token, call), so each PE computes every PE's, and
// from them its recv rows, its layout and its combined output. Token counts differ per PE (some
// have none), and every PE's local expert 1 is never chosen.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tdist/kernels/moe.h"
#include "test/kernels/tensor_io.h"

namespace tdist::kernels::testing {
namespace {

constexpr int kExpertsPerPe = 3;
constexpr std::int64_t kHidden = 33;
constexpr std::int64_t kMostTokens = 13;

std::uint32_t mix(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  std::uint32_t h = a * 2654435761u ^ (b + 1) * 40503u ^ (c + 7) * 2246822519u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return h;
}

std::int64_t tokensOf(int pe, int call) {
  static const std::int64_t kTokens[] = {7, 0, kMostTokens, 4};
  return kTokens[(pe + call) % 4];
}

float tokenValue(int pe, std::int64_t t, std::int64_t h, int call) {
  return static_cast<float>(mix(pe * 1000 + static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(h), call) %
                            20011u) / 1013.0f - 9.7f;
}

float weightOf(int pe, std::int64_t t, int k, int call) {
  return static_cast<float>(mix(pe * 77 + static_cast<std::uint32_t>(t), k + 100, call) % 1000u) / 999.0f + 0.01f;
}

float scaleOf(int expert) { return 1.0f + 0.375f * static_cast<float>(expert); }

// The experts of (pe, t): distinct, never local expert 1 of any PE.
std::vector<std::int32_t> expertsOf(int pe, std::int64_t t, int top_k, int call) {
  const int experts = kExpertsPerPe * nPes();
  std::vector<std::int32_t> allowed;
  for (int e = 0; e < experts; ++e) {
    if (e % kExpertsPerPe != 1) allowed.push_back(e);
  }
  const auto count = static_cast<std::uint32_t>(allowed.size());
  const std::uint32_t h = mix(pe, static_cast<std::uint32_t>(t), call + 500);
  // Skewed: a third of the choices go to the first allowed expert.
  const std::uint32_t first = (h % 3 == 0) ? 0 : (h >> 8) % count;
  std::vector<std::int32_t> ids = {allowed[first]};
  if (top_k == 2) ids.push_back(allowed[(first + 1 + (h >> 20) % (count - 1)) % count]);
  return ids;
}

template <class T>
void moeCase(Context &ctx, int top_k, int call, int extra_capacity) {
  const int n = nPes(), me = myPe();
  const int experts = kExpertsPerPe * n;
  const std::int64_t tokens = tokensOf(me, call);

  // The reference: every owner's rows, grouped by local expert, source PE, token, k.
  struct Row {
    int src;
    std::int64_t t;
    int expert;
  };
  std::vector<std::vector<Row>> rows_of(n);
  std::vector<std::int32_t> counts(static_cast<std::size_t>(kExpertsPerPe) * n);
  for (int owner = 0; owner < n; ++owner) {
    for (int l = 0; l < kExpertsPerPe; ++l) {
      const int expert = owner * kExpertsPerPe + l;
      for (int src = 0; src < n; ++src) {
        for (std::int64_t t = 0; t < tokensOf(src, call); ++t) {
          for (std::int32_t id : expertsOf(src, t, top_k, call)) {
            if (id != expert) continue;
            rows_of[owner].push_back({src, t, expert});
            if (owner == me) ++counts[std::size_t(l) * n + src];
          }
        }
      }
    }
  }
  std::int64_t most_rows = 0;
  for (const auto &rows : rows_of) most_rows = std::max<std::int64_t>(most_rows, rows.size());
  MoeConfig config;
  config.experts = experts;
  config.top_k = top_k;
  config.capacity = static_cast<int>(most_rows + extra_capacity);
  config.programs = call % 3;

  // Every PE allocates the most tokens (allocation is collective) and passes its own count.
  HeapTensor x_full({kMostTokens, kHidden}, kDtype<T>);
  HeapTensor ids_full({kMostTokens, top_k}, DType::I32);
  HeapTensor weights_full({kMostTokens, top_k}, DType::F32);
  HeapTensor out_full({kMostTokens, kHidden}, kDtype<T>);
  HeapTensor recv({config.capacity, kHidden}, kDtype<T>);
  HeapTensor expert_out({config.capacity, kHidden}, kDtype<T>);
  const auto mine = [&](Tensor full) {
    full.shape[0] = tokens;
    return full;
  };
  Tensor x = mine(*x_full), ids = mine(*ids_full), weights = mine(*weights_full), out = mine(*out_full);
  std::vector<T> x_values;
  std::vector<std::int32_t> id_values;
  std::vector<float> weight_values;
  for (std::int64_t t = 0; t < tokens; ++t) {
    for (std::int64_t h = 0; h < kHidden; ++h) x_values.push_back(store<T>(tokenValue(me, t, h, call)));
    for (std::int32_t id : expertsOf(me, t, top_k, call)) id_values.push_back(id);
    for (int k = 0; k < top_k; ++k) weight_values.push_back(weightOf(me, t, k, call));
  }
  writeTensor(x, x_values);
  writeTensor(ids, id_values);
  writeTensor(weights, weight_values);

  const DispatchLayout layout = moe_dispatch(ctx, x, ids, *recv, config);
  const std::string what = "top_k " + std::to_string(top_k) + ", call " + std::to_string(call);
  EXPECT_EQ(layout.rows, static_cast<std::int64_t>(rows_of[me].size())) << what;
  EXPECT_EQ(layout.counts, counts) << what;
  std::vector<std::int64_t> offsets(counts.size());
  for (std::size_t i = 1; i < counts.size(); ++i) offsets[i] = offsets[i - 1] + counts[i - 1];
  EXPECT_EQ(layout.offsets, offsets) << what;

  std::vector<T> received = readTensor<T>(ctx, *recv);
  std::vector<T> expected_recv;
  for (const Row &row : rows_of[me]) {
    for (std::int64_t h = 0; h < kHidden; ++h) expected_recv.push_back(store<T>(tokenValue(row.src, row.t, h, call)));
  }
  received.resize(expected_recv.size());
  EXPECT_EQ(firstDifference(received, expected_recv), -1) << what << ": recv on PE " << me;

  // The experts: each row scaled by its expert's factor.
  std::vector<T> expert_values(static_cast<std::size_t>(config.capacity * kHidden), store<T>(0.0f));
  for (std::size_t r = 0; r < rows_of[me].size(); ++r) {
    for (std::int64_t h = 0; h < kHidden; ++h) {
      const std::size_t i = r * kHidden + h;
      expert_values[i] = store<T>(load(received[i]) * scaleOf(rows_of[me][r].expert));
    }
  }
  writeTensor(*expert_out, expert_values);

  moe_combine(ctx, *expert_out, layout, ids, weights, out, config);
  std::vector<T> expected_out;
  for (std::int64_t t = 0; t < tokens; ++t) {
    const auto chosen = expertsOf(me, t, top_k, call);
    for (std::int64_t h = 0; h < kHidden; ++h) {
      float sum = 0;
      for (int k = 0; k < top_k; ++k) {
        const T expert_value = store<T>(load(store<T>(tokenValue(me, t, h, call))) * scaleOf(chosen[k]));
        const float term = weightOf(me, t, k, call) * load(expert_value);
        sum = k == 0 ? term : sum + term;
      }
      expected_out.push_back(store<T>(sum));
    }
  }
  EXPECT_EQ(firstDifference(readTensor<T>(ctx, out), expected_out), -1) << what << ": combined on PE " << me;
}

template <class T>
class Moe : public ::testing::Test {};
using MoeTypes = ::testing::Types<float, BFloat16>;
TYPED_TEST_SUITE(Moe, MoeTypes);

TYPED_TEST(Moe, DispatchAndCombineMatchTheReferenceWithTopOne) {
  ContextOptions options;
  options.scratch_bytes = 64u << 10;
  Context ctx(options);
  for (int call = 0; call < 4; ++call) moeCase<TypeParam>(ctx, 1, call, call % 2 ? 0 : 5);
}

TYPED_TEST(Moe, DispatchAndCombineMatchTheReferenceWithTopTwo) {
  ContextOptions options;
  options.scratch_bytes = 64u << 10;
  Context ctx(options);
  for (int call = 0; call < 4; ++call) moeCase<TypeParam>(ctx, 2, call, call % 2 ? 3 : 0);
}

}  // namespace
}  // namespace tdist::kernels::testing
