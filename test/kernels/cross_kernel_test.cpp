// Different kernels back to back on one context while one PE is held back: a fast PE must never
// write into a slow PE's scratch, signals or output before the slow one has finished every earlier
// call that reads them (GEMM partials and gathered rows in the scratch, one-shot buffers, the MoE
// count matrix). Every call has inputs of its own and every result is checked exactly, after the
// whole sequence is enqueued (on cuda nothing synchronises between the calls but moe_dispatch,
// which returns its layout to the host, and the fast PEs run ahead on their streams).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tdist/kernels/collectives.h"
#include "tdist/kernels/gemm.h"
#include "tdist/kernels/moe.h"
#include "test/kernels/delay.h"
#include "test/kernels/tensor_io.h"

namespace tdist::kernels::testing {
namespace {

constexpr auto kHoldBack = std::chrono::milliseconds(20);

std::uint32_t hash(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  std::uint32_t h = a * 2654435761u ^ (b + 1) * 40503u ^ (c + 7) * 2246822519u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return h;
}

// Many significant bits and mixed magnitudes: the order of a sum changes its result.
float collectiveValue(int pe, std::int64_t i, int call) {
  const std::uint32_t h = hash(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(pe), call);
  return (static_cast<float>(h % 100003u) / 7919.0f - 6.3f) * static_cast<float>(1u << (h >> 29));
}

// Small integers: every product and partial sum of a GEMM is exact in f32.
float smallInteger(std::uint32_t matrix, std::int64_t i) {
  return static_cast<float>(static_cast<int>(hash(static_cast<std::uint32_t>(i), matrix, 11) % 7) - 3);
}

template <class T>
void expectSame(const std::vector<T> &actual, const std::vector<T> &expected, const std::string &what) {
  const std::int64_t at = firstDifference(actual, expected);
  EXPECT_EQ(at, -1) << what << ": PE " << myPe() << " differs first at element " << at << " of " << expected.size();
}

// An all_reduce of its own input, and what it must give (the PE-order sum).
struct AllReduceCall {
  std::unique_ptr<HeapTensor> input;
  std::unique_ptr<HeapTensor> output;  // null: in place
  AllReduceAlgorithm algorithm;
  int call;
  std::int64_t numel;

  AllReduceCall(AllReduceAlgorithm algorithm_, bool in_place, int call_, std::int64_t numel_)
      : input(std::make_unique<HeapTensor>(std::vector<std::int64_t>{numel_}, DType::F32)),
        output(in_place ? nullptr : std::make_unique<HeapTensor>(std::vector<std::int64_t>{numel_}, DType::F32)),
        algorithm(algorithm_), call(call_), numel(numel_) {
    std::vector<float> mine(static_cast<std::size_t>(numel));
    for (std::int64_t i = 0; i < numel; ++i) mine[i] = collectiveValue(myPe(), i, call);
    writeTensor(**input, mine);
  }
  Tensor &out() { return output ? **output : **input; }
  void run(Context &ctx) { all_reduce(ctx, **input, out(), {algorithm, 16u << 10, 0}); }
  void check(Context &ctx) {
    std::vector<float> expected(static_cast<std::size_t>(numel));
    for (std::int64_t i = 0; i < numel; ++i) {
      float sum = collectiveValue(0, i, call);
      for (int pe = 1; pe < nPes(); ++pe) sum += collectiveValue(pe, i, call);
      expected[i] = sum;
    }
    expectSame(readTensor<float>(ctx, out()), expected,
               std::string("all_reduce ") + algorithmName(algorithm) + " (call " + std::to_string(call) + ")");
  }
};

// A [rows, cols] matrix of small integers; `first_row` and `first_col` select a block of it.
std::vector<float> block(std::uint32_t matrix, std::int64_t cols, std::int64_t first_row, std::int64_t rows,
                         std::int64_t first_col, std::int64_t width) {
  std::vector<float> values;
  for (std::int64_t r = first_row; r < first_row + rows; ++r) {
    for (std::int64_t c = first_col; c < first_col + width; ++c) values.push_back(smallInteger(matrix, r * cols + c));
  }
  return values;
}

// C [rows, n] = A [rows, k] x B [k, n], exact for small integers.
std::vector<float> product(const std::vector<float> &a, const std::vector<float> &b, std::int64_t rows,
                           std::int64_t k, std::int64_t n) {
  std::vector<float> c(static_cast<std::size_t>(rows * n), 0.0f);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t p = 0; p < k; ++p) {
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
    }
  }
  return c;
}

TEST(CrossKernel, EveryKernelBackToBackWithOnePeHeldBackGivesExactResults) {
  const int n = nPes(), me = myPe();
  ContextOptions options;
  options.scratch_bytes = 4u << 20;
  Context ctx(options);
  constexpr std::int64_t kRows = 128, kInner = 64, kCols = 256;  // GEMM shapes per PE
  constexpr std::int64_t kNumel = 20000;                          // all_reduce and all_gather
  constexpr std::int64_t kTokens = 16, kHidden = 64;              // MoE
  const int top_k = n >= 2 ? 2 : 1;

  for (int iteration = 0; iteration < 2 * n; ++iteration) {
    const int slow = iteration % n;
    const int base = iteration * 100;
    // gemm_reduce_scatter: A [n kRows, n kInner] by columns, B [n kInner, kCols] by rows.
    HeapTensor rs_a({n * kRows, kInner}, DType::F32), rs_b({kInner, kCols}, DType::F32),
        rs_c({kRows, kCols}, DType::F32);
    writeTensor(*rs_a, block(base + 1, n * kInner, 0, n * kRows, me * kInner, kInner));
    writeTensor(*rs_b, block(base + 2, kCols, me * kInner, kInner, 0, kCols));
    // all_gather_gemm: A [n kRows, kInner] by rows, gathered in the context's scratch.
    HeapTensor ag_a({kRows, kInner}, DType::F32), ag_b({kInner, kCols}, DType::F32),
        ag_c({n * kRows, kCols}, DType::F32);
    writeTensor(*ag_a, block(base + 3, kInner, me * kRows, kRows, 0, kInner));
    writeTensor(*ag_b, block(base + 4, kCols, 0, kInner, 0, kCols));
    // all_gather
    HeapTensor gather_in({kNumel}, DType::F32), gather_out({n * kNumel}, DType::F32);
    std::vector<float> gather_mine(kNumel);
    for (std::int64_t i = 0; i < kNumel; ++i) gather_mine[i] = collectiveValue(me, i, base + 5);
    writeTensor(*gather_in, gather_mine);
    // moe: expert e on PE e; token t of PE p goes to experts p + t and p + t + 1 (mod n) with
    // weights 1 and 2; the experts are the identity (expert_out = recv), so out = 3 x (or x).
    MoeConfig moe{.experts = n, .top_k = top_k, .capacity = static_cast<int>(n * kTokens)};
    HeapTensor x({kTokens, kHidden}, DType::F32), ids({kTokens, top_k}, DType::I32),
        weights({kTokens, top_k}, DType::F32), recv({moe.capacity, kHidden}, DType::F32),
        moe_out({kTokens, kHidden}, DType::F32);
    std::vector<float> x_values, weight_values, expected_moe;
    std::vector<std::int32_t> id_values;
    for (std::int64_t t = 0; t < kTokens; ++t) {
      for (std::int64_t h = 0; h < kHidden; ++h) {
        const float v = static_cast<float>((me * 7 + t * 3 + h + iteration) % 9 - 4);
        x_values.push_back(v);
        expected_moe.push_back(top_k == 2 ? 3.0f * v : v);
      }
      for (int k = 0; k < top_k; ++k) {
        id_values.push_back(static_cast<std::int32_t>((me + t + k) % n));
        weight_values.push_back(k == 0 ? 1.0f : 2.0f);
      }
    }
    writeTensor(*x, x_values);
    writeTensor(*ids, id_values);
    writeTensor(*weights, weight_values);
    std::vector<std::unique_ptr<AllReduceCall>> reduces;
    auto reduce = [&](AllReduceAlgorithm algorithm, bool in_place) {
      reduces.push_back(std::make_unique<AllReduceCall>(algorithm, in_place, base + 10 + int(reduces.size()), kNumel));
      reduces.back()->run(ctx);
    };
    constexpr auto OneShot = AllReduceAlgorithm::OneShot;

    // The sequence: every transition into and out of the one-shot, whose consecutive calls skip
    // the entry handshake.
    if (me == slow) holdBack(ctx, kHoldBack);
    gemm_reduce_scatter(ctx, *rs_a, *rs_b, *rs_c, {.chunks_per_pe = 2});
    reduce(OneShot, false);
    all_gather_gemm(ctx, *ag_a, *ag_b, *ag_c, nullptr, {.chunks_per_pe = 2});
    reduce(OneShot, true);
    reduce(OneShot, false);
    reduce(AllReduceAlgorithm::TwoShot, false);
    all_gather(ctx, *gather_in, *gather_out, {});
    reduce(OneShot, false);
    reduce(AllReduceAlgorithm::Ring, true);
    reduce(OneShot, true);
    if (me == slow) holdBack(ctx, kHoldBack);
    all_gather_gemm(ctx, *ag_a, *ag_b, *ag_c, nullptr, {.chunks_per_pe = 3});
    const DispatchLayout layout = moe_dispatch(ctx, *x, *ids, *recv, moe);
    if (me == slow) holdBack(ctx, kHoldBack);
    moe_combine(ctx, *recv, layout, *ids, *weights, *moe_out, moe);
    reduce(OneShot, false);
    reduce(AllReduceAlgorithm::TwoShot, true);

    const std::string when = " (iteration " + std::to_string(iteration) + ", PE " + std::to_string(slow) + " slow)";
    std::vector<float> rs_full = product(block(base + 1, n * kInner, 0, n * kRows, 0, n * kInner),
                                         block(base + 2, kCols, 0, n * kInner, 0, kCols), n * kRows, n * kInner, kCols);
    std::vector<float> rs_expected(rs_full.begin() + me * kRows * kCols, rs_full.begin() + (me + 1) * kRows * kCols);
    expectSame(readTensor<float>(ctx, *rs_c), rs_expected, "gemm_reduce_scatter" + when);
    expectSame(readTensor<float>(ctx, *ag_c),
               product(block(base + 3, kInner, 0, n * kRows, 0, kInner), block(base + 4, kCols, 0, kInner, 0, kCols),
                       n * kRows, kInner, kCols),
               "all_gather_gemm" + when);
    std::vector<float> gather_expected;
    for (int pe = 0; pe < n; ++pe) {
      for (std::int64_t i = 0; i < kNumel; ++i) gather_expected.push_back(collectiveValue(pe, i, base + 5));
    }
    expectSame(readTensor<float>(ctx, *gather_out), gather_expected, "all_gather" + when);
    expectSame(readTensor<float>(ctx, *moe_out), expected_moe, "moe_combine" + when);
    for (auto &call : reduces) call->check(ctx);
  }
}

}  // namespace
}  // namespace tdist::kernels::testing
