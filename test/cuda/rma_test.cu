// Point puts and gets, and putmem/getmem in every cooperative form, blocking and nbi + quiet,
// from kernels: round trips of odd sizes at odd offsets, with guard bytes around every window
// so that a transfer that writes one byte too many is caught.
#include <cstdint>
#include <vector>

#include "test/cuda/cuda_test_support.cuh"

namespace tdist::cuda_test {
namespace {

constexpr std::uint8_t kWindowGuard = 0xA5;
constexpr std::uint8_t kBackGuard = 0x5A;

template <Form form, bool nbi>
__device__ void put(void *dest, const void *src, std::size_t bytes, int pe) {
  if (!takesPart<form>()) return;
  if constexpr (form == Form::Thread) {
    if constexpr (nbi) dev::putmem_nbi(dest, src, bytes, pe);
    else dev::putmem(dest, src, bytes, pe);
  } else if constexpr (form == Form::Warp) {
    if constexpr (nbi) dev::putmem_warp_nbi(dest, src, bytes, pe);
    else dev::putmem_warp(dest, src, bytes, pe);
  } else {
    if constexpr (nbi) dev::putmem_block_nbi(dest, src, bytes, pe);
    else dev::putmem_block(dest, src, bytes, pe);
  }
  if constexpr (nbi) dev::quiet();  // every thread that issued a part completes it
}

template <Form form, bool nbi>
__device__ void get(void *dest, const void *src, std::size_t bytes, int pe) {
  if (!takesPart<form>()) return;
  if constexpr (form == Form::Thread) {
    if constexpr (nbi) dev::getmem_nbi(dest, src, bytes, pe);
    else dev::getmem(dest, src, bytes, pe);
  } else if constexpr (form == Form::Warp) {
    if constexpr (nbi) dev::getmem_warp_nbi(dest, src, bytes, pe);
    else dev::getmem_warp(dest, src, bytes, pe);
  } else {
    if constexpr (nbi) dev::getmem_block_nbi(dest, src, bytes, pe);
    else dev::getmem_block(dest, src, bytes, pe);
  }
  if constexpr (nbi) dev::quiet();
}

// Fills src[src_offset..+bytes) with this PE's pattern, then puts it at window[dest_offset] of
// the next PE.
template <Form form, bool nbi>
__global__ void putToNext(std::uint8_t *src, std::uint8_t *window, std::size_t src_offset,
                          std::size_t dest_offset, std::size_t bytes) {
  const int me = dev::rank();
  for (std::size_t i = threadIdx.x; i < bytes; i += blockDim.x) src[src_offset + i] = pattern(me, 0, i);
  __syncthreads();
  put<form, nbi>(window + dest_offset, src + src_offset, bytes, (me + 1) % dev::num_ranks());
}

// Gets back what this PE put into the next PE's window.
template <Form form, bool nbi>
__global__ void getFromNext(std::uint8_t *back, const std::uint8_t *window, std::size_t bytes) {
  get<form, nbi>(back, window, bytes, (dev::rank() + 1) % dev::num_ranks());
}

// Host reference: `bytes` bytes of pe's pattern at `offset` of `buffer`, `guard` everywhere else.
void expectPatternWithin(const std::vector<std::uint8_t> &buffer, std::size_t offset, std::size_t bytes, int pe,
                         std::uint8_t guard, const std::string &what) {
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    const bool inside = i >= offset && i < offset + bytes;
    const std::uint8_t expected = inside ? pattern(pe, 0, i - offset) : guard;
    if (buffer[i] != expected && wrong++ == 0) first = i;
  }
  EXPECT_EQ(wrong, 0u) << what << ": " << wrong << " wrong bytes, the first at " << first << " (window at "
                       << offset << ", " << bytes << " bytes)";
}

template <Form form, bool nbi>
void roundTrips(cudaStream_t stream) {
  struct Case {
    std::size_t bytes, src_offset, dest_offset, back_offset;
  };
  // Odd sizes at offsets that leave every alignment but 1: a vectorised copy must handle heads
  // and tails itself.
  const Case cases[] = {{1, 1, 3, 5}, {3, 0, 7, 2}, {127, 3, 1, 6}, {4097, 5, 2, 0}, {65543, 7, 5, 3}};
  constexpr std::size_t kSlack = 16;
  const int me = tdist::myPe();
  const int n = tdist::nPes();
  for (const Case &c : cases) {
    const std::string what = std::string(formName(form)) + (nbi ? " nbi" : "") + " of " + std::to_string(c.bytes) +
                             " bytes";
    Symmetric<std::uint8_t> src(c.bytes + kSlack);
    Symmetric<std::uint8_t> window(c.bytes + kSlack);
    Symmetric<std::uint8_t> back(c.bytes + kSlack);
    TDIST_ASSERT_CUDA(cudaMemset(window.get(), kWindowGuard, window.bytes()));
    TDIST_ASSERT_CUDA(cudaMemset(back.get(), kBackGuard, back.bytes()));
    // cudaMemset of device memory returns before it is done: done before the barrier, or a peer's
    // put can land first and be overwritten by the guard (seen at 3 PEs under MPS).
    TDIST_ASSERT_CUDA(cudaDeviceSynchronize());
    sh::barrier_all();  // every window has its guards before anyone puts into it
    putToNext<form, nbi><<<1, 256, 0, stream>>>(src.get(), window.get(), c.src_offset, c.dest_offset, c.bytes);
    TDIST_ASSERT_CUDA(cudaGetLastError());
    TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
    sh::barrier_all();
    expectPatternWithin(window.read(), c.dest_offset, c.bytes, (me + n - 1) % n, kWindowGuard, "put " + what);
    getFromNext<form, nbi><<<1, 256, 0, stream>>>(back.get() + c.back_offset, window.get() + c.dest_offset, c.bytes);
    TDIST_ASSERT_CUDA(cudaGetLastError());
    TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
    expectPatternWithin(back.read(), c.back_offset, c.bytes, me, kBackGuard, "get " + what);
    sh::barrier_all();  // the next PE has read this window before anyone frees it
  }
}

TEST_F(CudaTest, PutmemGetmemRoundTripThread) { roundTrips<Form::Thread, false>(stream_); }
TEST_F(CudaTest, PutmemGetmemRoundTripWarp) { roundTrips<Form::Warp, false>(stream_); }
TEST_F(CudaTest, PutmemGetmemRoundTripBlock) { roundTrips<Form::Block, false>(stream_); }
TEST_F(CudaTest, PutmemGetmemNbiRoundTripThread) { roundTrips<Form::Thread, true>(stream_); }
TEST_F(CudaTest, PutmemGetmemNbiRoundTripWarp) { roundTrips<Form::Warp, true>(stream_); }
TEST_F(CudaTest, PutmemGetmemNbiRoundTripBlock) { roundTrips<Form::Block, true>(stream_); }

// ---- p and g -------------------------------------------------------------------------------

template <class T>
__host__ __device__ T valueOf(int pe) {
  return static_cast<T>(pe * 37 - 100);
}

// Every PE stores its value into slot me of every PE.
template <class T>
__global__ void pointPuts(T *slots) {
  const int me = dev::rank();
  for (int pe = 0; pe < dev::num_ranks(); ++pe) dev::p(slots + me, valueOf<T>(me), pe);
  dev::quiet();
}

// Every PE loads every slot of every PE.
template <class T>
__global__ void pointGets(const T *slots, T *out) {
  const int n = dev::num_ranks();
  for (int pe = 0; pe < n; ++pe) {
    for (int j = 0; j < n; ++j) out[pe * n + j] = dev::g(slots + j, pe);
  }
}

template <class T>
void pointRoundTrip(cudaStream_t stream) {
  const int n = tdist::nPes();
  // One slot per PE, at an odd element offset: packed words, no line of their own.
  Symmetric<T> slots(n + 1);
  T *out = nullptr;
  TDIST_ASSERT_CUDA(cudaMallocManaged(&out, n * n * sizeof(T)));
  pointPuts<T><<<1, 1, 0, stream>>>(slots.get() + 1);
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  sh::barrier_all();
  pointGets<T><<<1, 1, 0, stream>>>(slots.get() + 1, out);
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  for (int pe = 0; pe < n; ++pe) {
    for (int j = 0; j < n; ++j) {
      EXPECT_EQ(out[pe * n + j], valueOf<T>(j)) << "g of slot " << j << " on PE " << pe << ", sizeof(T) " << sizeof(T);
    }
  }
  cudaFree(out);
  sh::barrier_all();  // every PE has read every slot before anyone frees
}

TEST_F(CudaTest, PointPutAndGetEveryWidth) {
  pointRoundTrip<std::int8_t>(stream_);
  pointRoundTrip<std::int16_t>(stream_);
  pointRoundTrip<std::int32_t>(stream_);
  pointRoundTrip<std::uint32_t>(stream_);
  pointRoundTrip<std::int64_t>(stream_);
  pointRoundTrip<std::uint64_t>(stream_);
  pointRoundTrip<float>(stream_);
  pointRoundTrip<double>(stream_);
}

}  // namespace
}  // namespace tdist::cuda_test
