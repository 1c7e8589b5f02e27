// Remote atomics under contention: every thread of several blocks of every PE works on PE 0's
// counter at once. Results must be exact, and the values that fetching atomics hand out must be
// unique: PE 0 keeps a tally of every value handed out, which must be exactly one of each.
#include <cstdint>
#include <vector>

#include "test/cuda/cuda_test_support.cuh"

namespace tdist::cuda_test {
namespace {

enum class Increment { FetchAdd, FetchInc, Inc, Add, CompareSwap };

const char *incrementName(Increment how) {
  switch (how) {
    case Increment::FetchAdd: return "atomic_fetch_add";
    case Increment::FetchInc: return "atomic_fetch_inc";
    case Increment::Inc: return "atomic_inc";
    case Increment::Add: return "atomic_add";
    case Increment::CompareSwap: return "atomic_compare_swap loop";
  }
  return "?";
}

// Adds 1 to PE 0's counter; returns the value it replaced, or -1 for the forms that return none.
template <Increment how, class T>
__device__ long long incrementPe0(T *counter) {
  if constexpr (how == Increment::FetchAdd) return static_cast<long long>(dev::atomic_fetch_add(counter, T{1}, 0));
  else if constexpr (how == Increment::FetchInc) return static_cast<long long>(dev::atomic_fetch_inc(counter, 0));
  else if constexpr (how == Increment::Inc) {
    dev::atomic_inc(counter, 0);
    return -1;
  } else if constexpr (how == Increment::Add) {
    dev::atomic_add(counter, T{1}, 0);
    return -1;
  } else {
    // The classic CAS loop: retry with the value the failed CAS saw until one succeeds; the
    // value a successful CAS replaced is this thread's, like fetch_add's.
    T expected = dev::atomic_fetch(counter, 0);
    for (;;) {
      const T seen = dev::atomic_compare_swap(counter, expected, static_cast<T>(expected + 1), 0);
      if (seen == expected) return static_cast<long long>(seen);
      expected = seen;
    }
  }
}

// Every thread increments PE 0's counter `rounds` times; each value it got back is tallied on
// PE 0 (tally[v] += 1), so that PE 0 can check that 0..total-1 were each handed out once.
template <Increment how, class T>
__global__ void contend(T *counter, std::int32_t *tally, int rounds, long long total, Mismatches *m) {
  for (int r = 0; r < rounds; ++r) {
    const long long old = incrementPe0<how>(counter);
    if (old < 0) continue;
    if (old >= total) mismatch(m, -1, total, old);  // a value past the end: the count is off
    else dev::atomic_add(tally + old, std::int32_t{1}, 0);
  }
}

template <Increment how, class T>
void contention(cudaStream_t stream, int blocks, int threads, int rounds) {
  const int n = tdist::nPes();
  const long long total = static_cast<long long>(n) * blocks * threads * rounds;
  constexpr bool kFetches = how == Increment::FetchAdd || how == Increment::FetchInc || how == Increment::CompareSwap;
  Symmetric<T> counter(kSlotStride<T>);
  Symmetric<std::int32_t> tally(kFetches ? total : 1);
  DeviceMismatches mismatches;
  contend<how, T><<<blocks, threads, 0, stream>>>(counter.get(), tally.get(), rounds, total, mismatches.get());
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  sh::barrier_all();
  const std::string what = std::string(incrementName(how)) + ", sizeof(T) " + std::to_string(sizeof(T));
  TDIST_EXPECT_NO_MISMATCH(mismatches, what);
  if (tdist::myPe() == 0) {
    EXPECT_EQ(static_cast<long long>(counter.read()[0]), total) << what;
    if (kFetches) {
      std::vector<std::int32_t> seen = tally.read();
      long long wrong = 0, first = -1;
      for (long long v = 0; v < total; ++v) {
        if (seen[v] != 1 && wrong++ == 0) first = v;
      }
      EXPECT_EQ(wrong, 0) << what << ": " << wrong << " values not handed out exactly once, the first " << first
                          << " (" << (first >= 0 ? seen[first] : 0) << " times)";
    }
  }
  sh::barrier_all();
}

// Enough threads that every SM of the GPU keeps several in flight, from every PE at once.
constexpr int kBlocks = 8, kThreads = 128, kRounds = 4;

TEST_F(CudaTest, AtomicFetchAddUnderContentionIsExactAndUnique) {
  contention<Increment::FetchAdd, std::int32_t>(stream_, kBlocks, kThreads, kRounds);
  contention<Increment::FetchAdd, std::uint32_t>(stream_, kBlocks, kThreads, kRounds);
  contention<Increment::FetchAdd, std::int64_t>(stream_, kBlocks, kThreads, kRounds);
  contention<Increment::FetchAdd, std::uint64_t>(stream_, kBlocks, kThreads, kRounds);
}

TEST_F(CudaTest, AtomicFetchIncUnderContentionIsExactAndUnique) {
  contention<Increment::FetchInc, std::int32_t>(stream_, kBlocks, kThreads, kRounds);
  contention<Increment::FetchInc, std::uint64_t>(stream_, kBlocks, kThreads, kRounds);
}

TEST_F(CudaTest, AtomicIncAndAddUnderContentionAreExact) {
  contention<Increment::Inc, std::int32_t>(stream_, kBlocks, kThreads, kRounds);
  contention<Increment::Inc, std::uint32_t>(stream_, kBlocks, kThreads, kRounds);
  contention<Increment::Inc, std::int64_t>(stream_, kBlocks, kThreads, kRounds);
  contention<Increment::Inc, std::uint64_t>(stream_, kBlocks, kThreads, kRounds);
  contention<Increment::Add, std::int64_t>(stream_, kBlocks, kThreads, kRounds);
}

TEST_F(CudaTest, CompareSwapLoopsUnderContentionAreExactAndUnique) {
  // Fewer threads: every failed CAS is retried, so the work grows with the contention.
  contention<Increment::CompareSwap, std::int32_t>(stream_, 4, 64, kRounds);
  contention<Increment::CompareSwap, std::uint32_t>(stream_, 4, 64, kRounds);
  contention<Increment::CompareSwap, std::int64_t>(stream_, 4, 64, kRounds);
  contention<Increment::CompareSwap, std::uint64_t>(stream_, 4, 64, kRounds);
}

// ---- swap, set and fetch -------------------------------------------------------------------

// Every thread swaps its own token (id + 1) into PE 0's word, which starts at 0. Each swap
// returns the token it displaced, so the displaced tokens and the final word are exactly
// {0, 1, ..., total}: tallied on PE 0 like the counters above.
template <class T>
__global__ void swapChain(T *word, std::int32_t *tally, int threads_per_pe) {
  const long long id = static_cast<long long>(dev::rank()) * threads_per_pe + blockIdx.x * blockDim.x + threadIdx.x;
  const T displaced = dev::atomic_swap(word, static_cast<T>(id + 1), 0);
  dev::atomic_add(tally + static_cast<long long>(displaced), std::int32_t{1}, 0);
}

template <class T>
void swapsHandOverEveryToken(cudaStream_t stream) {
  constexpr int kSwapBlocks = 4, kSwapThreads = 128;
  const long long total = static_cast<long long>(tdist::nPes()) * kSwapBlocks * kSwapThreads;
  Symmetric<T> word(kSlotStride<T>);
  Symmetric<std::int32_t> tally(total + 1);
  swapChain<T><<<kSwapBlocks, kSwapThreads, 0, stream>>>(word.get(), tally.get(), kSwapBlocks * kSwapThreads);
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  sh::barrier_all();
  if (tdist::myPe() == 0) {
    std::vector<std::int32_t> seen = tally.read();
    const auto last = static_cast<long long>(word.read()[0]);
    ASSERT_GE(last, 1);
    ASSERT_LE(last, total);
    seen[last] += 1;  // the token still in the word was never displaced
    for (long long v = 0; v <= total; ++v) EXPECT_EQ(seen[v], 1) << "token " << v << ", sizeof(T) " << sizeof(T);
  }
  sh::barrier_all();
}

TEST_F(CudaTest, AtomicSwapHandsOverEveryTokenOnce) {
  swapsHandOverEveryToken<std::int32_t>(stream_);
  swapsHandOverEveryToken<std::uint32_t>(stream_);
  swapsHandOverEveryToken<std::int64_t>(stream_);
  swapsHandOverEveryToken<std::uint64_t>(stream_);
}

// Every PE sets its value into slot me of every PE; after the host barrier every PE fetches every
// slot of every PE. Floating-point values with a fraction: a word moved as an integer of the
// wrong width, or converted, would not compare equal.
template <class T>
__host__ __device__ T atomValue(int pe) {
  return static_cast<T>(pe) * static_cast<T>(3) + static_cast<T>(0.5);
}

template <class T>
__global__ void atomicSets(T *slots) {
  const int me = dev::rank();
  for (int pe = 0; pe < dev::num_ranks(); ++pe) dev::atomic_set(slots + me * kSlotStride<T>, atomValue<T>(me), pe);
}

template <class T>
__global__ void atomicFetches(const T *slots, T *out) {
  const int n = dev::num_ranks();
  for (int pe = 0; pe < n; ++pe) {
    for (int j = 0; j < n; ++j) out[pe * n + j] = dev::atomic_fetch(slots + j * kSlotStride<T>, pe);
  }
}

template <class T>
void setThenFetch(cudaStream_t stream) {
  const int n = tdist::nPes();
  Symmetric<T> slots(n * kSlotStride<T>);
  T *out = nullptr;
  TDIST_ASSERT_CUDA(cudaMallocManaged(&out, n * n * sizeof(T)));
  atomicSets<T><<<1, 1, 0, stream>>>(slots.get());
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  sh::barrier_all();
  atomicFetches<T><<<1, 1, 0, stream>>>(slots.get(), out);
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  for (int pe = 0; pe < n; ++pe) {
    for (int j = 0; j < n; ++j) {
      EXPECT_EQ(out[pe * n + j], atomValue<T>(j)) << "slot " << j << " of PE " << pe << ", sizeof(T) " << sizeof(T);
    }
  }
  cudaFree(out);
  sh::barrier_all();
}

TEST_F(CudaTest, AtomicSetAndFetchEveryType) {
  setThenFetch<std::int32_t>(stream_);
  setThenFetch<std::uint32_t>(stream_);
  setThenFetch<std::int64_t>(stream_);
  setThenFetch<std::uint64_t>(stream_);
  setThenFetch<float>(stream_);
  setThenFetch<double>(stream_);
}

}  // namespace
}  // namespace tdist::cuda_test
