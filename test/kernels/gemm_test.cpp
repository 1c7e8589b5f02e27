// AllGather + GEMM and GEMM + ReduceScatter against a host reference GEMM (double accumulation),
// at every PE count of the suite.
//
// What is asserted, and why:
// - Inputs of small integers make every product and every partial sum exact in f32, whatever
//   the order of summation: there the result must equal the reference bitwise, for every
//   config (chunks, tiles, programs) and shape. This checks the data movement exactly.
// - Random floats: within a bound of the rounding of a K-term dot product (BLAS's order of
//   summation is not ours, and tile GEMMs of other shapes may round differently, so configs
//   with other tiles are not compared bitwise). With the same chunks and tiles, repeated calls
//   and other program counts (which change only the order in which tiles are computed and
//   arrive) must give bitwise the same C: every tile is one GEMM of the same shape, and the
//   ReduceScatter sums each element's partials in PE order 0, 1, ... whatever their arrival.
// - Errors are the same on every PE, and the context stays usable after them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tdist/error.h"
#include "tdist/kernels/context.h"
#include "tdist/kernels/gemm.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "kernels/cpu/bfloat16.h"

namespace tdist::kernels {
namespace {

namespace sh = tdist::shmem;

ContextOptions smallContext() {
  ContextOptions options;
  options.scratch_bytes = 4u << 20;
  // The cpu GEMM+RS signals a tile of each chunk and PE: the one-by-one tiles of kRsConfigs, 64
  // chunks, N up to 45, at any PE count (8 PEs: 23,040 slots, 1.4 MiB).
  options.max_signals = std::max(4096, sh::n_pes() * 64 * 45);
  return options;
}

// This PE's heap is read and written through the API (backend-neutral); a bf16 tensor holds
// the values rounded to bf16 and reads back as floats.
void store(Tensor &t, const std::vector<float> &values) {
  ASSERT_EQ(static_cast<std::int64_t>(values.size()), t.numel());
  if (values.empty()) return;
  if (t.dtype == DType::BF16) {
    std::vector<BFloat16> rounded(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) rounded[i] = toBFloat16(values[i]);
    sh::putmem(t.data, rounded.data(), rounded.size() * sizeof(BFloat16), sh::my_pe());
    return;
  }
  sh::putmem(t.data, values.data(), values.size() * sizeof(float), sh::my_pe());
}
std::vector<float> load(const Tensor &t) {
  std::vector<float> values(static_cast<std::size_t>(t.numel()));
  if (values.empty()) return values;
  if (t.dtype == DType::BF16) {
    std::vector<BFloat16> stored(values.size());
    sh::getmem(stored.data(), t.data, stored.size() * sizeof(BFloat16), sh::my_pe());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = toFloat(stored[i]);
    return values;
  }
  sh::getmem(values.data(), t.data, values.size() * sizeof(float), sh::my_pe());
  return values;
}

// The values as a bf16 tensor holds them.
std::vector<float> roundedToBf16(std::vector<float> values) {
  for (float &v : values) v = toFloat(toBFloat16(v));
  return values;
}

// A matrix [rows, cols] the same on every PE: small integers (exact products and sums) or
// floats in [-1, 1).
enum class Values { SmallIntegers, Floats };
std::vector<float> matrix(std::int64_t rows, std::int64_t cols, std::uint32_t seed, Values kind) {
  std::vector<float> m(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < m.size(); ++i) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761u + seed * 40503u + 12345u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    m[i] = kind == Values::SmallIntegers ? static_cast<float>(static_cast<int>(x % 7) - 3)
                                         : static_cast<float>(x % 20001) / 10000.0f - 1.0f;
  }
  return m;
}

// C [m, n] = A [m, k] x B [k, n], accumulated in double; `bound` gets sum |a| |b| per element.
std::vector<double> referenceGemm(const std::vector<float> &a, const std::vector<float> &b, std::int64_t m,
                                  std::int64_t k, std::int64_t n, std::vector<double> *bound = nullptr) {
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  if (bound) bound->assign(c.size(), 0.0);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t p = 0; p < k; ++p) {
      const double av = a[i * k + p];
      for (std::int64_t j = 0; j < n; ++j) {
        c[i * n + j] += av * b[p * n + j];
        if (bound) (*bound)[i * n + j] += std::fabs(av * b[p * n + j]);
      }
    }
  }
  return c;
}

void expectExact(const std::vector<float> &got, const std::vector<double> &want, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (static_cast<double>(got[i]) != want[i] && wrong++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i];
    }
  }
  EXPECT_EQ(wrong, 0u) << what;
}

// |got - want| <= (terms + 2) * 2^-23 * sum |a| |b|: the rounding bound of a sum of `terms`.
void expectClose(const std::vector<float> &got, const std::vector<double> &want, const std::vector<double> &bound,
                 std::int64_t terms, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double tolerance = static_cast<double>(terms + 2) * std::ldexp(1.0, -23) * bound[i] + 1e-30;
    if (std::fabs(got[i] - want[i]) > tolerance && wrong++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i] << " +- " << tolerance;
    }
  }
  EXPECT_EQ(wrong, 0u) << what;
}

void expectBitwise(const std::vector<float> &got, const std::vector<float> &want, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && wrong++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", first run gave " << want[i];
    }
  }
  EXPECT_EQ(wrong, 0u) << what;
}

template <class Body>
void expectError(ErrorCode code, const std::string &fragment, Body &&body) {
  try {
    body();
    ADD_FAILURE() << "no error; expected " << toString(code) << " with \"" << fragment << "\"";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), code) << error.what();
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

// ---- AllGather + GEMM ---------------------------------------------------------------------

// The tensors of one AllGather + GEMM shape: the global A and B (the same on every PE), this
// PE's rows of A on the heap, B, C and the gathered A.
struct AgProblem {
  std::int64_t m_local, K, N;
  std::vector<float> global_a, global_b;
  Tensor a, b, c, gathered;

  AgProblem(std::int64_t m_local_, std::int64_t K_, std::int64_t N_, Values kind, DType dtype = DType::F32)
      : m_local(m_local_), K(K_), N(N_) {
    const int n = sh::n_pes(), me = sh::my_pe();
    global_a = matrix(n * m_local, K, 1, kind);
    global_b = matrix(K, N, 2, kind);
    if (dtype == DType::BF16) {
      global_a = roundedToBf16(global_a);
      global_b = roundedToBf16(global_b);
    }
    a = createTensor({m_local, K}, dtype);
    b = createTensor({K, N}, dtype);
    c = createTensor({n * m_local, N}, dtype);
    gathered = createTensor({n * m_local, K}, dtype);
    store(a, std::vector<float>(global_a.begin() + me * m_local * K, global_a.begin() + (me + 1) * m_local * K));
    store(b, global_b);
  }
  ~AgProblem() {
    freeTensor(gathered);
    freeTensor(c);
    freeTensor(b);
    freeTensor(a);
  }
  std::vector<double> reference(std::vector<double> *bound = nullptr) const {
    return referenceGemm(global_a, global_b, sh::n_pes() * m_local, K, N, bound);
  }
  void clearC() { store(c, std::vector<float>(static_cast<std::size_t>(c.numel()), -7.0f)); }
};

std::string agText(const AllGatherGemmConfig &config) {
  return "chunks " + std::to_string(config.chunks_per_pe) + ", tile " + std::to_string(config.tile_m) + " x " +
         std::to_string(config.tile_n) + ", programs " + std::to_string(config.programs);
}

const std::vector<AllGatherGemmConfig> kAgConfigs = {
    {1, 512, 1024, 0},    // the defaults: one tile
    {1, 128, 256, 0},     // the former defaults
    {3, 5, 7, 2},         // tiles that do not divide the chunks, fewer programs than items
    {64, 1, 1, 1},        // more chunks than rows (empty chunks), one program
    {4, 4096, 4096, 1024} // the upper limits
};

TEST(AllGatherGemm, SmallIntegersEqualTheReferenceForEveryConfig) {
  Context ctx(smallContext());
  AgProblem p(13, 17, 29, Values::SmallIntegers);
  const std::vector<double> want = p.reference();
  const std::vector<double> want_gathered(p.global_a.begin(), p.global_a.end());
  for (const AllGatherGemmConfig &config : kAgConfigs) {
    p.clearC();
    all_gather_gemm(ctx, p.a, p.b, p.c, &p.gathered, config);
    expectExact(load(p.c), want, "c, " + agText(config));
    expectExact(load(p.gathered), want_gathered, "gathered, " + agText(config));
    p.clearC();
    all_gather_gemm(ctx, p.a, p.b, p.c, nullptr, config);  // gathered in the context's scratch
    expectExact(load(p.c), want, "c (scratch), " + agText(config));
  }
}

TEST(AllGatherGemm, NonSquareShapes) {
  Context ctx(smallContext());
  for (auto [m_local, K, N] : {std::tuple<int, int, int>{1, 1, 1}, {2, 300, 3}, {40, 3, 300}, {7, 0, 5}, {9, 4, 0}}) {
    AgProblem p(m_local, K, N, Values::SmallIntegers);
    p.clearC();
    all_gather_gemm(ctx, p.a, p.b, p.c, &p.gathered, {2, 4, 64, 3});
    const std::string what = std::to_string(m_local) + " x " + std::to_string(K) + " x " + std::to_string(N);
    expectExact(load(p.c), p.reference(), "c, " + what);
    expectExact(load(p.gathered), std::vector<double>(p.global_a.begin(), p.global_a.end()), "gathered, " + what);
  }
}

TEST(AllGatherGemm, FloatsWithinRoundingAndBitwiseRepeatable) {
  Context ctx(smallContext());
  AgProblem p(37, 64, 50, Values::Floats);
  std::vector<double> bound;
  const std::vector<double> want = p.reference(&bound);
  for (const AllGatherGemmConfig &config : kAgConfigs) {
    p.clearC();
    all_gather_gemm(ctx, p.a, p.b, p.c, nullptr, config);
    const std::vector<float> first = load(p.c);
    expectClose(first, want, bound, p.K, "c, " + agText(config));
    // The same tiles, other program counts and repeated calls (new epochs): bitwise the same.
    for (int programs : {config.programs, 1, 3, 0}) {
      AllGatherGemmConfig again = config;
      again.programs = programs;
      p.clearC();
      all_gather_gemm(ctx, p.a, p.b, p.c, nullptr, again);
      expectBitwise(load(p.c), first, "c, " + agText(again));
    }
  }
}

TEST(AllGatherGemm, ErrorsAreTheSameOnEveryPeAndLeaveTheContextUsable) {
  Context ctx(smallContext());
  AgProblem p(6, 5, 4, Values::SmallIntegers);
  Tensor bad_b = createTensor({4, 4}, DType::F32);
  expectError(ErrorCode::InvalidParam, "b is [4, 4]", [&] { all_gather_gemm(ctx, p.a, bad_b, p.c); });
  expectError(ErrorCode::InvalidParam, "gathered is", [&] { all_gather_gemm(ctx, p.a, p.b, p.c, &p.c); });
  expectError(ErrorCode::InvalidParam, "c is", [&] { all_gather_gemm(ctx, p.a, p.b, p.gathered); });
  for (auto [field, config] : {std::pair<const char *, AllGatherGemmConfig>{"chunks_per_pe", {-1, 1, 1, 0}},
                               {"chunks_per_pe", {65, 1, 1, 0}},
                               {"tile_m", {1, -1, 1, 0}},
                               {"tile_n", {1, 1, 4097, 0}},
                               {"programs", {1, 1, 1, 1025}},
                               {"programs", {1, 1, 1, -1}}}) {
    expectError(ErrorCode::InvalidParam, std::string("config.") + field,
                [&] { all_gather_gemm(ctx, p.a, p.b, p.c, nullptr, config); });
  }
  Tensor a16 = createTensor({6, 5}, DType::BF16), b16 = createTensor({5, 4}, DType::BF16);
  Tensor c16 = createTensor({6 * sh::n_pes(), 4}, DType::BF16);
  // bf16 on every backend (tests below); a bf16 C of f32 operands is refused.
  expectError(ErrorCode::InvalidParam, "c has dtype bf16", [&] { all_gather_gemm(ctx, p.a, p.b, c16); });
  expectError(ErrorCode::InvalidParam, "b", [&] { all_gather_gemm(ctx, p.a, b16, p.c); });  // mixed dtypes
  {
    ContextOptions tiny = smallContext();
    tiny.scratch_bytes = 64;
    Context small(tiny);
    expectError(ErrorCode::InvalidParam, "scratch", [&] { all_gather_gemm(small, p.a, p.b, p.c); });
    all_gather_gemm(small, p.a, p.b, p.c, &p.gathered);  // fine with its own gathered buffer
    expectExact(load(p.c), p.reference(), "c, tiny scratch, own gathered");
  }
  if (sh::n_pes() > 1) {
    AllGatherGemmConfig config;
    config.chunks_per_pe = sh::my_pe() == 1 ? 2 : 1;
    expectError(ErrorCode::CollectiveMismatch, "differs", [&] { all_gather_gemm(ctx, p.a, p.b, p.c, nullptr, config); });
  }
  p.clearC();
  all_gather_gemm(ctx, p.a, p.b, p.c);
  expectExact(load(p.c), p.reference(), "c after the errors");
  freeTensor(c16);
  freeTensor(b16);
  freeTensor(a16);
  freeTensor(bad_b);
}

// ---- GEMM + ReduceScatter -----------------------------------------------------------------

// The global A [M, K] and B [K, N]; PE p holds columns and rows k_begin(p) .. k_begin(p + 1)
// of them (an uneven split: PE p has 3 + 2p, or `k_each` each).
struct RsProblem {
  std::int64_t M, N, K = 0;
  std::vector<std::int64_t> k_begin;
  std::vector<float> global_a, global_b;
  Tensor a_storage, b_storage, a, b, c;

  RsProblem(std::int64_t M_, std::int64_t N_, Values kind, int k_each = -1, DType dtype = DType::F32)
      : M(M_), N(N_) {
    const int n = sh::n_pes(), me = sh::my_pe();
    for (int pe = 0; pe <= n; ++pe) {
      k_begin.push_back(K);
      if (pe < n) K += k_each >= 0 ? k_each : 3 + 2 * pe;
    }
    global_a = matrix(M, K, 3, kind);
    global_b = matrix(K, N, 4, kind);
    if (dtype == DType::BF16) {
      global_a = roundedToBf16(global_a);
      global_b = roundedToBf16(global_b);
    }
    const std::int64_t k0 = k_begin[me], k_local = k_begin[me + 1] - k0;
    // Heap allocations are the same size on every PE: the largest k_local's, viewed as this
    // PE's shape.
    std::int64_t k_max = 0;
    for (int pe = 0; pe < n; ++pe) k_max = std::max(k_max, k_begin[pe + 1] - k_begin[pe]);
    a_storage = createTensor({M, k_max}, dtype);
    b_storage = createTensor({k_max, N}, dtype);
    a = view(a_storage, {M, k_local});
    b = view(b_storage, {k_local, N});
    c = createTensor({M / n, N}, dtype);
    std::vector<float> my_a(static_cast<std::size_t>(M * k_local));
    for (std::int64_t i = 0; i < M; ++i) {
      for (std::int64_t p = 0; p < k_local; ++p) my_a[i * k_local + p] = global_a[i * K + k0 + p];
    }
    store(a, my_a);
    store(b, std::vector<float>(global_b.begin() + k0 * N, global_b.begin() + (k0 + k_local) * N));
  }
  ~RsProblem() {
    freeTensor(c);
    freeTensor(b_storage);
    freeTensor(a_storage);
  }
  static Tensor view(const Tensor &storage, std::vector<std::int64_t> shape) {
    Tensor t;
    t.data = storage.data;
    t.dtype = storage.dtype;
    t.strides = {shape[1], 1};
    t.shape = std::move(shape);
    return t;
  }
  // This PE's block of the full product.
  std::vector<double> reference(std::vector<double> *bound = nullptr) const {
    std::vector<double> all_bound;
    const std::vector<double> all = referenceGemm(global_a, global_b, M, K, N, bound ? &all_bound : nullptr);
    const std::int64_t rows = M / sh::n_pes(), first = sh::my_pe() * rows * N;
    if (bound) bound->assign(all_bound.begin() + first, all_bound.begin() + first + rows * N);
    return std::vector<double>(all.begin() + first, all.begin() + first + rows * N);
  }
  void clearC() { store(c, std::vector<float>(static_cast<std::size_t>(c.numel()), -7.0f)); }
};

std::string rsText(const GemmReduceScatterConfig &config) {
  return "chunks " + std::to_string(config.chunks_per_pe) + ", tile " + std::to_string(config.tile_m) + " x " +
         std::to_string(config.tile_n) + ", programs " + std::to_string(config.programs);
}

const std::vector<GemmReduceScatterConfig> kRsConfigs = {
    {1, 128, 256, 0},
    {3, 2, 5, 2},
    {64, 1, 4, 1},  // more chunks than rows of a block
    {2, 4096, 4096, 1024},
};

TEST(GemmReduceScatter, SmallIntegersEqualTheReferenceForEveryConfig) {
  Context ctx(smallContext());
  RsProblem p(11 * sh::n_pes(), 23, Values::SmallIntegers);
  const std::vector<double> want = p.reference();
  for (const GemmReduceScatterConfig &config : kRsConfigs) {
    p.clearC();
    gemm_reduce_scatter(ctx, p.a, p.b, p.c, config);
    expectExact(load(p.c), want, "c, " + rsText(config));
  }
}

TEST(GemmReduceScatter, NonSquareShapes) {
  Context ctx(smallContext());
  const int n = sh::n_pes();
  for (auto [M, N, k_each] : {std::tuple<int, int, int>{n, 1, 1}, {2 * n, 300, 2}, {40 * n, 3, 50}, {3 * n, 5, 0},
                              {5 * n, 0, 3}}) {
    RsProblem p(M, N, Values::SmallIntegers, k_each);
    p.clearC();
    gemm_reduce_scatter(ctx, p.a, p.b, p.c, {2, 3, 64, 3});
    expectExact(load(p.c), p.reference(),
                std::to_string(M) + " x " + std::to_string(N) + ", k_local " + std::to_string(k_each));
  }
}

TEST(GemmReduceScatter, FloatsWithinRoundingAndBitwiseRepeatable) {
  Context ctx(smallContext());
  RsProblem p(19 * sh::n_pes(), 45, Values::Floats);
  std::vector<double> bound;
  const std::vector<double> want = p.reference(&bound);
  for (const GemmReduceScatterConfig &config : kRsConfigs) {
    p.clearC();
    gemm_reduce_scatter(ctx, p.a, p.b, p.c, config);
    const std::vector<float> first = load(p.c);
    expectClose(first, want, bound, p.K + sh::n_pes(), "c, " + rsText(config));
    for (int programs : {config.programs, 1, 5, 0}) {
      GemmReduceScatterConfig again = config;
      again.programs = programs;
      p.clearC();
      gemm_reduce_scatter(ctx, p.a, p.b, p.c, again);
      expectBitwise(load(p.c), first, "c, " + rsText(again));
    }
  }
}

TEST(GemmReduceScatter, ErrorsAreTheSameOnEveryPeAndLeaveTheContextUsable) {
  Context ctx(smallContext());
  const int n = sh::n_pes();
  RsProblem p(4 * n, 6, Values::SmallIntegers, 3);
  Tensor bad_b = createTensor({2, 6}, DType::F32);
  expectError(ErrorCode::InvalidParam, "b is [2, 6]", [&] { gemm_reduce_scatter(ctx, p.a, bad_b, p.c); });
  Tensor bad_c = createTensor({4 * n, 6}, DType::F32);
  if (n > 1) expectError(ErrorCode::InvalidParam, "c is", [&] { gemm_reduce_scatter(ctx, p.a, p.b, bad_c); });
  if (n > 1) {
    Tensor odd_a = createTensor({4 * n + 1, 3}, DType::F32), odd_c = createTensor({4, 6}, DType::F32);
    expectError(ErrorCode::InvalidParam, "multiple of n_pes", [&] { gemm_reduce_scatter(ctx, odd_a, p.b, odd_c); });
    freeTensor(odd_c);
    freeTensor(odd_a);
  }
  expectError(ErrorCode::InvalidParam, "config.tile_m", [&] { gemm_reduce_scatter(ctx, p.a, p.b, p.c, {1, 4097, 1, 0}); });
  expectError(ErrorCode::InvalidParam, "config.chunks_per_pe",
              [&] { gemm_reduce_scatter(ctx, p.a, p.b, p.c, {-1, 1, 1, 0}); });
  {
    // 64 chunks x 1000 column tiles of one column: more signals than the context has.
    RsProblem wide(n, 1000, Values::SmallIntegers, 1);
    expectError(ErrorCode::InvalidParam, "signals", [&] { gemm_reduce_scatter(ctx, wide.a, wide.b, wide.c, {64, 1, 1, 0}); });
  }
  {
    ContextOptions tiny = smallContext();
    tiny.scratch_bytes = 64;
    Context small(tiny);
    expectError(ErrorCode::InvalidParam, "scratch", [&] { gemm_reduce_scatter(small, p.a, p.b, p.c); });
  }
  if (n > 1) {
    GemmReduceScatterConfig config;
    config.tile_n = sh::my_pe() == n - 1 ? 8 : 16;
    expectError(ErrorCode::CollectiveMismatch, "differs", [&] { gemm_reduce_scatter(ctx, p.a, p.b, p.c, config); });
  }
  p.clearC();
  gemm_reduce_scatter(ctx, p.a, p.b, p.c);
  expectExact(load(p.c), p.reference(), "c after the errors");
  freeTensor(bad_c);
  freeTensor(bad_b);
}

// ---- bf16 ---------------------------------------------------------------------------------

// bf16 operands of small integers: every product and sum is exact in the f32 accumulation and
// every element of C (|c| <= 9 K <= 256) is exact in bf16, so C equals the reference exactly.
TEST(Bf16Gemms, AllGatherGemmOfSmallIntegersEqualsTheReference) {
  Context ctx(smallContext());
  AgProblem p(13, 17, 29, Values::SmallIntegers, DType::BF16);
  const std::vector<double> want = p.reference();
  for (const AllGatherGemmConfig &config : kAgConfigs) {
    p.clearC();
    all_gather_gemm(ctx, p.a, p.b, p.c, &p.gathered, config);
    expectExact(load(p.c), want, "bf16 c, " + agText(config));
    expectExact(load(p.gathered), std::vector<double>(p.global_a.begin(), p.global_a.end()),
                "bf16 gathered, " + agText(config));
    p.clearC();
    all_gather_gemm(ctx, p.a, p.b, p.c, nullptr, config);
    expectExact(load(p.c), want, "bf16 c (scratch), " + agText(config));
  }
}

// The fused strategy (cuda): one persistent GEMM whose tiles wait for the rows they read. Exact
// results where a tile reads rows of several PEs and chunks (m_local = 13), where the rows per PE
// are not whole tiles (200), and where they are (256: the tiles start on the PE's own rows), K
// below one K step, N of one and of several tiles, 1 to 3 chunks, stream copies or 2 SM producers,
// the tile orders tdist-tune tries (along N or M, swizzles 1, 4 and 8), gathered given or in
// scratch, and the calls back to back with the decomposed strategy on one context. The last shape
// has more tiles than the GPU has SMs (a full persistent grid on every PE); with several PEs on one
// GPU, each GEMM must leave its peers their share of the SMs, or a PE's next kernel finds none
// while its peer's GEMM waits for it.
TEST(Bf16Gemms, FusedAllGatherGemmOfSmallIntegersEqualsTheReference) {
  Context ctx(smallContext());
  if (ctx.backend() != "cuda") GTEST_SKIP() << "the fused strategy is the cuda backend's (cpu: one tile body)";
  struct Shape {
    std::int64_t m_local, K, N;
  };
  // The last: more tiles (8 x 18 of 128 x 256) than the GPU has SMs, whatever the PEs, in a C of
  // 9 MiB on every PE.
  const std::int64_t many_tiles_rows = 1024 / sh::n_pes();
  for (const Shape s :
       {Shape{13, 24, 40}, Shape{200, 16, 264}, Shape{256, 24, 512}, Shape{many_tiles_rows, 16, 4608}}) {
    AgProblem p(s.m_local, s.K, s.N, Values::SmallIntegers, DType::BF16);
    const std::vector<double> want = p.reference();
    const std::vector<double> want_gathered(p.global_a.begin(), p.global_a.end());
    struct Variant {
      int chunks, producers;
      GemmRaster raster;
      int swizzle;
    };
    for (const auto &[chunks, producers, raster, swizzle] :
         {Variant{1, 0, GemmRaster::Auto, 0}, Variant{3, 0, GemmRaster::Auto, 0}, Variant{3, 2, GemmRaster::Auto, 0},
          Variant{3, 0, GemmRaster::AlongM, 4}, Variant{1, 0, GemmRaster::AlongN, 8},
          Variant{3, 2, GemmRaster::AlongM, 1}}) {
      AllGatherGemmConfig config;
      config.chunks_per_pe = chunks;
      config.strategy = GemmStrategy::Fused;
      config.producer_sms = producers;
      config.tile_raster = raster;
      config.tile_swizzle = swizzle;
      const std::string what = "m_local " + std::to_string(s.m_local) + ", K " + std::to_string(s.K) + ", N " +
                               std::to_string(s.N) + ", chunks " + std::to_string(chunks) + ", producer SMs " +
                               std::to_string(producers) + ", tile order " + std::to_string(static_cast<int>(raster)) +
                               " / " + std::to_string(swizzle);
      p.clearC();
      try {
        all_gather_gemm(ctx, p.a, p.b, p.c, &p.gathered, config);
      } catch (const Error &e) {
        if (e.code() == ErrorCode::NotSupported) GTEST_SKIP() << e.what();
        throw;
      }
      expectExact(load(p.c), want, "fused c, " + what);
      expectExact(load(p.gathered), want_gathered, "fused gathered, " + what);
      p.clearC();
      all_gather_gemm(ctx, p.a, p.b, p.c, nullptr, config);
      expectExact(load(p.c), want, "fused c (scratch), " + what);
      config.strategy = GemmStrategy::Decomposed;
      p.clearC();
      all_gather_gemm(ctx, p.a, p.b, p.c, nullptr, config);
      expectExact(load(p.c), want, "decomposed after fused, " + what);
    }
  }
}

TEST(Bf16Gemms, FusedStrategyErrorsNameWhatItTakes) {
  Context ctx(smallContext());
  if (ctx.backend() != "cuda") GTEST_SKIP() << "the fused strategy is the cuda backend's";
  AllGatherGemmConfig fused;
  fused.strategy = GemmStrategy::Fused;
  AgProblem f32(8, 16, 16, Values::SmallIntegers);
  AgProblem odd_k(8, 12, 16, Values::SmallIntegers, DType::BF16);
  try {
    all_gather_gemm(ctx, odd_k.a, odd_k.b, odd_k.c, nullptr, fused);
    ADD_FAILURE() << "K = 12 was taken by the fused strategy";
  } catch (const Error &e) {
    if (e.code() == ErrorCode::NotSupported) GTEST_SKIP() << e.what();
    EXPECT_NE(std::string(e.what()).find("K and N multiples of 8"), std::string::npos) << e.what();
  }
  expectError(ErrorCode::InvalidParam, "strategy Fused takes bf16", [&] {
    all_gather_gemm(ctx, f32.a, f32.b, f32.c, nullptr, fused);
  });
  RsProblem rs(4 * sh::n_pes(), 16, Values::SmallIntegers, 12, DType::BF16);
  GemmReduceScatterConfig rs_fused;
  rs_fused.strategy = GemmStrategy::Fused;
  expectError(ErrorCode::InvalidParam, "K / n_pes and N multiples of 8", [&] {
    gemm_reduce_scatter(ctx, rs.a, rs.b, rs.c, rs_fused);
  });
  RsProblem rs_f32(4 * sh::n_pes(), 16, Values::SmallIntegers, 8);
  expectError(ErrorCode::InvalidParam, "strategy Fused takes bf16", [&] {
    gemm_reduce_scatter(ctx, rs_f32.a, rs_f32.b, rs_f32.c, rs_fused);
  });
  // Partials of [M / n_pes, N] f32 from every PE: more than the 4 MiB scratch holds.
  RsProblem rs_big(1024 * sh::n_pes(), 1024, Values::SmallIntegers, 8, DType::BF16);
  expectError(ErrorCode::InvalidParam, "scratch_bytes", [&] {
    gemm_reduce_scatter(ctx, rs_big.a, rs_big.b, rs_big.c, rs_fused);
  });
  // A view 2 bytes into its storage: TMA needs 16-byte aligned operands.
  AgProblem aligned(8, 16, 16, Values::SmallIntegers, DType::BF16);
  Tensor skewed = aligned.a;
  skewed.data = static_cast<std::byte *>(aligned.a.data) + 2;
  skewed.shape = {aligned.a.shape[0] - 1, aligned.a.shape[1]};
  Tensor c_rows = aligned.c;  // the output of the view's rows, within aligned.c
  c_rows.shape = {sh::n_pes() * skewed.shape[0], aligned.c.shape[1]};
  expectError(ErrorCode::InvalidParam, "A at a 16-byte aligned address", [&] {
    all_gather_gemm(ctx, skewed, aligned.b, c_rows, nullptr, fused);
  });
  // The context is still usable.
  odd_k.clearC();
  all_gather_gemm(ctx, odd_k.a, odd_k.b, odd_k.c);
  expectExact(load(odd_k.c), odd_k.reference(), "after the errors");
}

// The fused strategy of GEMM + ReduceScatter (cuda): one persistent GEMM whose epilogue stores each
// partial tile into its owner's heap and notifies it per tile; the owner sums the tiles in PE
// order as they arrive. Exact results (small integers, the reference rounded once to bf16), the
// same bits as the decomposed strategy's reduction, where the block is not whole tiles (13, 200
// rows; 40, 264 columns) and where each CTA has several tiles (256 x 1024 on 4 CTAs), twice in a
// row (the flags of one call must not release the next) and back to back with the decomposed.
TEST(Bf16Gemms, FusedGemmReduceScatterOfSmallIntegersEqualsTheReferenceAndTheDecomposed) {
  ContextOptions options;
  // The largest shape's partials of [256, 1024] f32 from every PE, and the decomposed strategy's
  // two send buffers.
  options.scratch_bytes = static_cast<std::size_t>(sh::n_pes() + 2) * 256 * 1024 * 4 + (1u << 20);
  Context ctx(options);
  if (ctx.backend() != "cuda") GTEST_SKIP() << "the fused strategy is the cuda backend's (cpu: one tile body)";
  struct Shape {
    std::int64_t block, N;
    int k_each, programs;
  };
  for (const Shape s : {Shape{13, 40, 8, 0}, Shape{200, 264, 16, 0}, Shape{256, 1024, 8, 4}}) {
    RsProblem p(s.block * sh::n_pes(), s.N, Values::SmallIntegers, s.k_each, DType::BF16);
    std::vector<double> want;
    for (double v : p.reference()) want.push_back(static_cast<double>(roundedToBf16({static_cast<float>(v)})[0]));
    const std::string what = "block " + std::to_string(s.block) + ", N " + std::to_string(s.N) + ", K per PE " +
                             std::to_string(s.k_each) + ", programs " + std::to_string(s.programs);
    GemmReduceScatterConfig config;
    config.strategy = GemmStrategy::Fused;
    config.programs = s.programs;
    for (int round = 0; round < 2; ++round) {
      p.clearC();
      try {
        gemm_reduce_scatter(ctx, p.a, p.b, p.c, config);
      } catch (const Error &e) {
        if (e.code() == ErrorCode::NotSupported) GTEST_SKIP() << e.what();
        throw;
      }
      expectExact(load(p.c), want, "fused, round " + std::to_string(round) + ", " + what);
    }
    const std::vector<float> fused = load(p.c);
    config.strategy = GemmStrategy::Decomposed;
    p.clearC();
    gemm_reduce_scatter(ctx, p.a, p.b, p.c, config);
    const std::vector<float> decomposed = load(p.c);
    expectExact(decomposed, std::vector<double>(fused.begin(), fused.end()), "decomposed against fused, " + what);
    config.strategy = GemmStrategy::Fused;
    p.clearC();
    gemm_reduce_scatter(ctx, p.a, p.b, p.c, config);
    expectExact(load(p.c), want, "fused after decomposed, " + what);
  }
}

// The fused GEMM + ReduceScatter's notification per tile: an owner sums a tile only once every
// peer's partial of it has landed. Each owner fills its receive slots with NaN before every call
// (legal: peers write into them only after this PE's entry into the call), B changes every
// iteration, and C must equal the decomposed strategy's bit for bit: a partial summed before it
// landed reads as NaN (or as nothing this call wrote). Small integers keep both strategies exact.
TEST(Bf16Gemms, FusedGemmReduceScatterSumsOnlyTilesThatLanded) {
  constexpr std::int64_t kBlock = 256, kN = 512;
  constexpr int kEach = 64;
  const int n = sh::n_pes(), me = sh::my_pe();
  ContextOptions options;
  options.scratch_bytes = static_cast<std::size_t>(n + 2) * kBlock * kN * 4 + (1u << 20);
  Context ctx(options);
  if (ctx.backend() != "cuda") GTEST_SKIP() << "the fused strategy is the cuda backend's (cpu: one tile body)";
  const int iterations = n <= 4 ? 1000 : 250;
  RsProblem p(kBlock * n, kN, Values::SmallIntegers, kEach, DType::BF16);
  const std::vector<std::uint32_t> nan(static_cast<std::size_t>(n * kBlock * kN), 0xffffffffu);  // f32 NaNs
  GemmReduceScatterConfig fused, decomposed;
  fused.strategy = GemmStrategy::Fused;
  decomposed.strategy = GemmStrategy::Decomposed;
  for (int iteration = 0; iteration < iterations && !::testing::Test::HasFailure(); ++iteration) {
    store(p.b, matrix(kEach, kN, 100 + static_cast<std::uint32_t>(iteration), Values::SmallIntegers));
    ctx.synchronize();  // the previous call's reduction has read the slots
    sh::putmem(ctx.scratch(), nan.data(), nan.size() * sizeof(std::uint32_t), me);
    try {
      gemm_reduce_scatter(ctx, p.a, p.b, p.c, fused);
    } catch (const Error &e) {
      if (e.code() == ErrorCode::NotSupported) GTEST_SKIP() << e.what();
      throw;
    }
    ctx.synchronize();
    const std::vector<float> got = load(p.c);
    gemm_reduce_scatter(ctx, p.a, p.b, p.c, decomposed);
    ctx.synchronize();
    expectBitwise(got, load(p.c), "fused against decomposed, iteration " + std::to_string(iteration));
  }
}

TEST(Bf16Gemms, GemmReduceScatterOfSmallIntegersEqualsTheReference) {
  Context ctx(smallContext());
  RsProblem p(11 * sh::n_pes(), 23, Values::SmallIntegers, -1, DType::BF16);  // K <= 24: |c| <= 216
  const std::vector<double> want = p.reference();
  for (const GemmReduceScatterConfig &config : kRsConfigs) {
    p.clearC();
    gemm_reduce_scatter(ctx, p.a, p.b, p.c, config);
    expectExact(load(p.c), want, "bf16 c, " + rsText(config));
  }
}

// |got - want| <= one bf16 ulp of want (the one rounding of C, half an ulp) + the f32 rounding
// bound of the sum: C is rounded once, not after every partial.
void expectWithinBf16(const std::vector<float> &got, const std::vector<double> &want, const std::vector<double> &bound,
                      std::int64_t terms, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double tolerance =
        std::ldexp(std::fabs(want[i]), -8) + static_cast<double>(terms + 2) * std::ldexp(1.0, -23) * bound[i] + 1e-30;
    if (std::fabs(got[i] - want[i]) > tolerance && wrong++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i] << " +- " << tolerance;
    }
  }
  EXPECT_EQ(wrong, 0u) << what;
}

TEST(Bf16Gemms, FloatsRoundOnceAndRepeatBitwise) {
  Context ctx(smallContext());
  AgProblem ag(21, 64, 40, Values::Floats, DType::BF16);
  RsProblem rs(9 * sh::n_pes(), 33, Values::Floats, 24, DType::BF16);
  std::vector<double> ag_bound, rs_bound;
  const std::vector<double> ag_want = ag.reference(&ag_bound), rs_want = rs.reference(&rs_bound);
  for (int config = 0; config < 2; ++config) {
    const AllGatherGemmConfig ag_config = kAgConfigs[config];
    ag.clearC();
    all_gather_gemm(ctx, ag.a, ag.b, ag.c, nullptr, ag_config);
    const std::vector<float> ag_first = load(ag.c);
    expectWithinBf16(ag_first, ag_want, ag_bound, ag.K, "bf16 all_gather_gemm, " + agText(ag_config));
    const GemmReduceScatterConfig rs_config = kRsConfigs[config];
    rs.clearC();
    gemm_reduce_scatter(ctx, rs.a, rs.b, rs.c, rs_config);
    const std::vector<float> rs_first = load(rs.c);
    expectWithinBf16(rs_first, rs_want, rs_bound, rs.K + sh::n_pes(), "bf16 gemm_reduce_scatter, " + rsText(rs_config));
    for (int programs : {1, 3}) {
      AllGatherGemmConfig ag_again = ag_config;
      ag_again.programs = programs;
      ag.clearC();
      all_gather_gemm(ctx, ag.a, ag.b, ag.c, nullptr, ag_again);
      expectBitwise(load(ag.c), ag_first, "bf16 all_gather_gemm, " + agText(ag_again));
      GemmReduceScatterConfig rs_again = rs_config;
      rs_again.programs = programs;
      rs.clearC();
      gemm_reduce_scatter(ctx, rs.a, rs.b, rs.c, rs_again);
      expectBitwise(load(rs.c), rs_first, "bf16 gemm_reduce_scatter, " + rsText(rs_again));
    }
  }
}

// Both kernels, one after the other on one context: their epochs and signals never confuse
// each other.
TEST(OverlapGemms, AlternatingCallsOnOneContext) {
  Context ctx(smallContext());
  AgProblem ag(9, 12, 10, Values::SmallIntegers);
  RsProblem rs(7 * sh::n_pes(), 10, Values::SmallIntegers);
  const std::vector<double> ag_want = ag.reference(), rs_want = rs.reference();
  for (int round = 0; round < 4; ++round) {
    ag.clearC();
    all_gather_gemm(ctx, ag.a, ag.b, ag.c, nullptr, {1 + round, 4, 4, 0});
    expectExact(load(ag.c), ag_want, "all_gather_gemm, round " + std::to_string(round));
    rs.clearC();
    gemm_reduce_scatter(ctx, rs.a, rs.b, rs.c, {1 + round, 3, 3, 0});
    expectExact(load(rs.c), rs_want, "gemm_reduce_scatter, round " + std::to_string(round));
  }
}

}  // namespace
}  // namespace tdist::kernels
