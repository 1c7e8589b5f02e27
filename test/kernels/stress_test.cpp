// Back-to-back calls of every kernel on two contexts, with random delays that differ between
// PEs, on tensors allocated once (no collective allocation between calls lines the PEs up):
// a fast PE is then often a call ahead of a slow one, which is what the entry handshake and the
// bodies' buffer reuse must survive. Right after each call a PE overwrites its input (a peer
// still reading it would read the poison) and then checks its output exactly: the values are
// multiples of 1/4 and small integers, so every sum is exact in any order.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "tdist/kernels/collectives.h"
#include "tdist/kernels/gemm.h"
#include "tdist/kernels/moe.h"
#include "test/kernels/tensor_io.h"

namespace tdist::kernels::testing {
namespace {

std::uint32_t mix(std::uint32_t a, std::uint32_t b, std::uint32_t c = 0) {
  std::uint32_t h = a * 2654435761u ^ (b + 0x9e3779b9u) * 40503u ^ (c + 7u) * 2246822519u;
  h ^= h >> 15;
  h *= 0x5bd1e995u;
  h ^= h >> 13;
  return h;
}

// Element i of PE pe's input at iteration it: a multiple of 1/4 in -8 .. 8.
float valueOf(int pe, std::int64_t i, int it) {
  return static_cast<float>(static_cast<int>(mix(static_cast<std::uint32_t>(i), pe + 1, it) % 65) - 32) / 4.0f;
}
// A small integer in -3 .. 3 (GEMM operands).
float smallOf(std::uint32_t seed, std::int64_t i, int it) {
  return static_cast<float>(static_cast<int>(mix(static_cast<std::uint32_t>(i), seed, it) % 7) - 3);
}

// Busy for 0 .. 300 us on about half the calls, differently on every PE.
void randomDelay(int it) {
  const std::uint32_t r = mix(static_cast<std::uint32_t>(it), 1000 + myPe(), 99);
  if (r & 1) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(r % 300);
  while (std::chrono::steady_clock::now() < until) {
  }
}

Tensor view(const Tensor &storage, std::vector<std::int64_t> shape) {
  Tensor t;
  t.data = storage.data;
  t.dtype = storage.dtype;
  t.shape = std::move(shape);
  t.strides.assign(t.shape.size(), 1);
  for (std::size_t d = t.shape.size(); d-- > 1;) t.strides[d - 1] = t.strides[d] * t.shape[d];
  return t;
}

void poison(const Tensor &t) {
  writeTensor(t, std::vector<float>(static_cast<std::size_t>(t.numel()), std::numeric_limits<float>::quiet_NaN()));
}

void expectEqual(const std::vector<float> &got, const std::vector<float> &want, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i]) && wrong++ < 3) {
      ADD_FAILURE() << what << ": PE " << myPe() << " element " << i << " is " << got[i] << ", expected " << want[i];
    }
  }
  EXPECT_EQ(wrong, 0u) << what;
}

enum class Kind { OneShot, TwoShot, Ring, Auto, AllGather, ReduceScatter, AgGemm, GemmRs, Count };

// `iterations` calls, each of a kernel and size every PE picks alike from the iteration.
void backToBack(int iterations) {
  const int n = nPes(), me = myPe();
  ContextOptions small;
  small.scratch_bytes = 128u << 10;  // the larger collectives run in rounds
  small.max_signals = 512;
  ContextOptions other = small;
  other.scratch_bytes = 1u << 20;
  Context first(small), second(other);
  constexpr std::int64_t kMost = 24000;
  HeapTensor in({kMost * n}, DType::F32);
  HeapTensor out({kMost * n}, DType::F32);
  // GEMM operands: all_gather_gemm [m_local, K] x [K, N]; gemm_reduce_scatter [M, k] x [k, N].
  constexpr std::int64_t kM = 5, kK = 8, kN = 6;
  HeapTensor a({(kM + 4 * n) * kK}, DType::F32), b({kK * kN}, DType::F32), c({(n * kM + 4) * kN}, DType::F32);
  const std::int64_t sizes[] = {1, 7, 1000, 5003, kMost};
  for (int it = 0; it < iterations; ++it) {
    const std::uint32_t pick = mix(static_cast<std::uint32_t>(it), 4242);
    const auto kind = static_cast<Kind>(pick % static_cast<unsigned>(Kind::Count));
    const std::int64_t numel = sizes[(pick >> 8) % 5];
    Context &ctx = (pick >> 12) % 3 == 0 ? second : first;
    const std::string what = "iteration " + std::to_string(it) + ", kind " + std::to_string(static_cast<int>(kind)) +
                             ", " + std::to_string(numel) + " elements";
    std::vector<float> want;
    if (kind == Kind::AgGemm || kind == Kind::GemmRs) {
      // all_gather_gemm: A's rows of PE p are rows p * kM ..; gemm_reduce_scatter: PE p holds
      // columns p * 2 .. p * 2 + 1 of A [4 n, 2 n] and those rows of B [2 n, kN].
      const bool ag = kind == Kind::AgGemm;
      const std::int64_t rows = ag ? kM : 4 * n, inner = ag ? kK : 2, global_k = ag ? kK : 2 * n;
      Tensor ta = view(*a, {rows, inner}), tb = view(*b, {inner, kN});
      Tensor tc = view(*c, {ag ? n * kM : 4, kN});
      const auto global_a = [&](std::int64_t r, std::int64_t k) { return smallOf(1, r * global_k + k, it); };
      const auto global_b = [&](std::int64_t k, std::int64_t j) { return smallOf(2, k * kN + j, it); };
      std::vector<float> mine_a, mine_b;
      for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t k = 0; k < inner; ++k) mine_a.push_back(ag ? global_a(me * kM + r, k) : global_a(r, me * 2 + k));
      }
      for (std::int64_t k = 0; k < inner; ++k) {
        for (std::int64_t j = 0; j < kN; ++j) mine_b.push_back(global_b(ag ? k : me * 2 + k, j));
      }
      writeTensor(ta, mine_a);
      writeTensor(tb, mine_b);
      randomDelay(it);
      if (ag) all_gather_gemm(ctx, ta, tb, tc, nullptr, {1 + static_cast<int>(pick >> 16) % 3, 2, 4, 0});
      else gemm_reduce_scatter(ctx, ta, tb, tc, {1 + static_cast<int>(pick >> 16) % 3, 2, 4, 0});
      poison(ta);
      poison(tb);
      const std::int64_t first_row = ag ? 0 : me * 4, out_rows = ag ? n * kM : 4;
      for (std::int64_t r = first_row; r < first_row + out_rows; ++r) {
        for (std::int64_t j = 0; j < kN; ++j) {
          float sum = 0;
          for (std::int64_t k = 0; k < global_k; ++k) sum += global_a(r, k) * global_b(k, j);
          want.push_back(sum);
        }
      }
      expectEqual(readTensor<float>(ctx, tc), want, what);
      continue;
    }
    const std::int64_t in_numel = kind == Kind::ReduceScatter ? numel * n : numel;
    const std::int64_t out_numel = kind == Kind::AllGather ? numel * n : numel;
    Tensor input = view(*in, {in_numel}), output = view(*out, {out_numel});
    std::vector<float> mine(static_cast<std::size_t>(in_numel));
    for (std::int64_t i = 0; i < in_numel; ++i) mine[i] = valueOf(me, i, it);
    writeTensor(input, mine);
    randomDelay(it);
    const std::size_t chunk = 4096u << ((pick >> 20) % 3);
    switch (kind) {
      case Kind::AllGather:
        all_gather(ctx, input, output, {chunk, 0});
        for (int pe = 0; pe < n; ++pe) {
          for (std::int64_t i = 0; i < numel; ++i) want.push_back(valueOf(pe, i, it));
        }
        break;
      case Kind::ReduceScatter:
        reduce_scatter(ctx, input, output, {chunk, 0});
        for (std::int64_t i = 0; i < numel; ++i) {
          float sum = 0;
          for (int pe = 0; pe < n; ++pe) sum += valueOf(pe, me * numel + i, it);
          want.push_back(sum);
        }
        break;
      default: {
        const AllReduceAlgorithm algorithm = kind == Kind::OneShot   ? AllReduceAlgorithm::OneShot
                                             : kind == Kind::TwoShot ? AllReduceAlgorithm::TwoShot
                                             : kind == Kind::Ring    ? AllReduceAlgorithm::Ring
                                                                     : AllReduceAlgorithm::Auto;
        all_reduce(ctx, input, output, {algorithm, chunk, 0});
        for (std::int64_t i = 0; i < numel; ++i) {
          float sum = 0;
          for (int pe = 0; pe < n; ++pe) sum += valueOf(pe, i, it);
          want.push_back(sum);
        }
      }
    }
    poison(input);
    expectEqual(readTensor<float>(ctx, output), want, what);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(KernelStress, BackToBackCallsOfEveryKernelWithRandomDelays) { backToBack(400); }

// The same with two launch workers per PE: the bodies' programs are then fibers on threads,
// not inline steps.
TEST(KernelStress, BackToBackCallsOnFibers) {
  const char *before = std::getenv("TDIST_WORKERS");
  const std::string saved = before ? before : "";
  setenv("TDIST_WORKERS", "2", 1);
  backToBack(150);
  if (before) setenv("TDIST_WORKERS", saved.c_str(), 1);
  else unsetenv("TDIST_WORKERS");
}

// Signal slots for two chunks of every PE only: the two-shot (which pulls, and needs no
// scratch) runs in rounds, in place and not, and back to back.
TEST(KernelStress, TwoShotInRoundsOfFewSignals) {
  const int n = nPes(), me = myPe();
  ContextOptions few;
  // No scratch where every peer's input is loadable (the pulled two-shot needs none); the staged
  // one where some peer is reached through the network alone (TDIST_TRANSPORT=ucx).
  bool loadable = true;
  for (int pe = 0; pe < n; ++pe) loadable = loadable && peerPointer(heapBase(), pe) != nullptr;
  few.scratch_bytes = loadable ? 0 : std::size_t{1} << 20;
  // cpu: two signal steps a chunk, so 2 n slots make rounds of one chunk; cuda: the fewest slots
  // its bodies take, which make its kernels run with fewer blocks instead.
  few.max_signals = minSignals();
  Context ctx(few);
  constexpr std::int64_t kNumel = 50021;
  HeapTensor input({kNumel}, DType::F32), output({kNumel}, DType::F32);
  for (int it = 0; it < 6; ++it) {
    const bool in_place = it % 2 == 1;
    std::vector<float> mine(kNumel), want(kNumel);
    for (std::int64_t i = 0; i < kNumel; ++i) {
      mine[i] = valueOf(me, i, it);
      for (int pe = 0; pe < n; ++pe) want[i] += valueOf(pe, i, it);
    }
    writeTensor(*input, mine);
    randomDelay(it);
    all_reduce(ctx, *input, in_place ? *input : *output, {AllReduceAlgorithm::TwoShot, 4096, 0});
    expectEqual(readTensor<float>(ctx, in_place ? *input : *output), want, "iteration " + std::to_string(it));
  }
}

// Small one-shots back to back, of changing sizes, in place and not, with all_gathers between:
// among peers through the network each call's data travel with its handshake row, in the rows of
// the call's parity, which the call after next writes again (kernels/checks.h, CARRIED BYTES).
// Every sum and every gathered block must be this call's, never the last one's of that parity.
TEST(KernelStress, SmallOneShotsBackToBackSumTheirOwnCall) {
  const int n = nPes(), me = myPe();
  ContextOptions small;
  small.scratch_bytes = std::size_t{1} << 20;
  Context ctx(small);
  constexpr std::int64_t kMost = 3000;  // 12 KiB of f32: carried on 2 .. 4 PEs through the network
  HeapTensor input({kMost}, DType::F32), output({kMost}, DType::F32), gathered({kMost * n}, DType::F32);
  for (int it = 0; it < 24; ++it) {
    const std::int64_t numel = 1 + (it * 977) % kMost;
    const bool in_place = it % 3 == 1;
    Tensor in = *input, out = in_place ? *input : *output;
    in.shape = {numel};
    out.shape = {numel};
    std::vector<float> mine(numel), want(numel, 0.0f);
    for (std::int64_t i = 0; i < numel; ++i) {
      mine[i] = valueOf(me, i, it);
      for (int pe = 0; pe < n; ++pe) want[i] += valueOf(pe, i, it);
    }
    writeTensor(in, mine);
    randomDelay(it);
    all_reduce(ctx, in, out, {AllReduceAlgorithm::OneShot, 0, 0});
    expectEqual(readTensor<float>(ctx, out), want, "iteration " + std::to_string(it));
    if (it % 5 == 4) {  // another kernel between (through the network its data travel with its row too)
      std::vector<float> block(kMost), all;
      for (int pe = 0; pe < n; ++pe) {
        for (std::int64_t i = 0; i < kMost; ++i) block[i] = valueOf(pe, i, it + 100);
        all.insert(all.end(), block.begin(), block.end());
      }
      for (std::int64_t i = 0; i < kMost; ++i) block[i] = valueOf(me, i, it + 100);
      Tensor part = *input;
      part.shape = {kMost};
      writeTensor(part, block);
      all_gather(ctx, part, *gathered);
      expectEqual(readTensor<float>(ctx, *gathered), all, "all_gather after iteration " + std::to_string(it));
    }
  }
}

// PEs that call different kernels on one context: a mismatch on every PE, naming each PE's
// kernel (every backend's agreement carries it), and the context still works.
TEST(KernelStress, DifferentKernelsAreAMismatchOnEveryPe) {
  if (nPes() < 2) GTEST_SKIP() << "needs two PEs";
  ContextOptions small;
  small.scratch_bytes = 64u << 10;
  Context ctx(small);
  HeapTensor input({64}, DType::F32);
  HeapTensor output({64 * nPes()}, DType::F32);
  try {
    if (myPe() == 1) all_gather(ctx, *input, *output);
    else all_reduce(ctx, *input, *input);
    ADD_FAILURE() << "PE " << myPe() << ": the call did not fail";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::CollectiveMismatch) << e.what();
    const std::string message = e.what();
    EXPECT_NE(message.find("PE 0 called tdist::kernels::all_reduce, PE 1 called tdist::kernels::all_gather"),
              std::string::npos)
        << message;
  }
  writeTensor(*input, std::vector<float>(64, 0.5f));
  all_reduce(ctx, *input, *input);
  EXPECT_EQ(readTensor<float>(ctx, *input), std::vector<float>(64, 0.5f * nPes()));
}

// A dispatch on one PE against a combine on another (a step skipped by a program): the same
// config and tensors' dtypes, another kernel. A mismatch on every PE, not a wait that never ends.
TEST(KernelStress, DispatchAgainstCombineIsAMismatchOnEveryPe) {
  if (nPes() < 2) GTEST_SKIP() << "needs two PEs";
  const int n = nPes();
  ContextOptions small;
  small.scratch_bytes = 256u << 10;
  Context ctx(small);
  MoeConfig config;
  config.experts = n;
  config.capacity = 4 * n;
  HeapTensor x({4, 16}, DType::F32), ids({4, 1}, DType::I32), recv({4 * n, 16}, DType::F32);
  HeapTensor weights({4, 1}, DType::F32), out({4, 16}, DType::F32);
  writeTensor(*ids, std::vector<std::int32_t>(4, 0));
  DispatchLayout layout;
  layout.counts.assign(static_cast<std::size_t>(n), 0);
  layout.offsets.assign(static_cast<std::size_t>(n), 0);
  try {
    if (myPe() == 1) moe_combine(ctx, *recv, layout, *ids, *weights, *out, config);
    else moe_dispatch(ctx, *x, *ids, *recv, config);
    ADD_FAILURE() << "PE " << myPe() << ": the call did not fail";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::CollectiveMismatch) << e.what();
    EXPECT_NE(std::string(e.what()).find("PE 0 called tdist::kernels::moe_dispatch, PE 1 called "
                                         "tdist::kernels::moe_combine"),
              std::string::npos)
        << e.what();
  }
  const DispatchLayout good = moe_dispatch(ctx, *x, *ids, *recv, config);
  EXPECT_EQ(good.rows, myPe() == 0 ? 4 * n : 0);
}

}  // namespace
}  // namespace tdist::kernels::testing
