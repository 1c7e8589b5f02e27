// Signals from kernels: put-with-signal around the ring in every cooperative form, notify and
// the multi-slot wait, and signal_op ADD from every thread of every PE.
#include <cstdint>

#include "test/cuda/cuda_test_support.cuh"

namespace tdist::cuda_test {
namespace {

// A load that neither L1 nor the compiler may answer from an earlier one: the bytes were written
// by a peer, and a line of this SM's L1 may hold them from before.
template <class T>
__device__ inline T loadFresh(const T *address) {
  return *static_cast<const volatile T *>(address);
}

// ---- putmem_signal around the ring ---------------------------------------------------------

template <Form form, bool nbi, class S>
__device__ void putSignal(void *dest, const void *src, std::size_t bytes, S *sig, S value, sh::SignalOp op,
                          int pe) {
  if (!takesPart<form>()) return;
  if constexpr (form == Form::Thread) {
    if constexpr (nbi) dev::putmem_signal_nbi(dest, src, bytes, sig, value, op, pe);
    else dev::putmem_signal(dest, src, bytes, sig, value, op, pe);
  } else if constexpr (form == Form::Warp) {
    if constexpr (nbi) dev::putmem_signal_warp_nbi(dest, src, bytes, sig, value, op, pe);
    else dev::putmem_signal_warp(dest, src, bytes, sig, value, op, pe);
  } else {
    if constexpr (nbi) dev::putmem_signal_block_nbi(dest, src, bytes, sig, value, op, pe);
    else dev::putmem_signal_block(dest, src, bytes, sig, value, op, pe);
  }
}

// Every PE sends `iterations` chunks to the next PE, chunk `it` into slot `it` of its dest (no
// slot is reused, so no PE waits for a reader), signalled with SET it+1 or ADD 1: after chunk
// `it` the signal is it+1 either way. Then it waits for the previous PE's chunk `it` (GE: the
// sender may be ahead, and a later signal implies the earlier data) and checks every byte.
// Nobody resets sig: each run allocates a fresh one.
template <Form form, bool nbi, class S>
__global__ void putSignalRing(std::uint8_t *src, std::uint8_t *dest, std::size_t bytes, int iterations,
                              S *sig, sh::SignalOp op, Mismatches *m) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const int next = (me + 1) % n;
  const int prev = (me + n - 1) % n;
  for (int it = 0; it < iterations; ++it) {
    std::uint8_t *chunk = src + it * bytes;
    for (std::size_t i = threadIdx.x; i < bytes; i += blockDim.x) chunk[i] = pattern(me, it, i);
    __syncthreads();  // the whole chunk is written before the threads of the put read it
    const S value = op == sh::SignalOp::Set ? static_cast<S>(it + 1) : S{1};
    putSignal<form, nbi>(dest + it * bytes, chunk, bytes, sig, value, op, next);
    if (threadIdx.x == 0) dev::signal_wait_until(sig, sh::Cmp::GE, static_cast<S>(it + 1));
    __syncthreads();  // thread 0's acquire is ordered before every thread's check
    for (std::size_t i = threadIdx.x; i < bytes; i += blockDim.x) {
      expectEqual(m, it * bytes + i, pattern(prev, it, i), loadFresh(dest + it * bytes + i));
    }
  }
  if (nbi && takesPart<form>()) dev::quiet();
}

template <Form form, bool nbi, class S>
void ringOf(cudaStream_t stream, sh::SignalOp op, std::size_t bytes) {
  constexpr int kIterations = 8;
  Symmetric<std::uint8_t> src(kIterations * bytes);
  Symmetric<std::uint8_t> dest(kIterations * bytes);
  Symmetric<S> sig(kSlotStride<S>);
  DeviceMismatches mismatches;
  putSignalRing<form, nbi, S><<<1, 128, 0, stream>>>(src.get(), dest.get(), bytes, kIterations, sig.get(), op,
                                                    mismatches.get());
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  TDIST_EXPECT_NO_MISMATCH(mismatches, std::string(formName(form)) + (nbi ? " nbi" : "") + " ring of " +
                                           std::to_string(bytes) + " bytes, sizeof(S) " +
                                           std::to_string(sizeof(S)) +
                                           (op == sh::SignalOp::Set ? " SET" : " ADD"));
  // The final signal is the number of chunks, whatever the op (host reference).
  EXPECT_EQ(sig.read()[0], static_cast<S>(kIterations));
  sh::barrier_all();  // every PE has checked what it received before anyone frees
}

template <Form form, bool nbi>
void ringInEveryWidth(cudaStream_t stream) {
  // Odd sizes: a single byte, less than a line, several lines and a ragged tail.
  for (std::size_t bytes : {std::size_t{1}, std::size_t{61}, std::size_t{4099}}) {
    for (sh::SignalOp op : {sh::SignalOp::Set, sh::SignalOp::Add}) {
      ringOf<form, nbi, std::int32_t>(stream, op, bytes);
      ringOf<form, nbi, std::int64_t>(stream, op, bytes);
      ringOf<form, nbi, std::uint64_t>(stream, op, bytes);
    }
  }
}

TEST_F(CudaTest, PutmemSignalRingThread) { ringInEveryWidth<Form::Thread, false>(stream_); }
TEST_F(CudaTest, PutmemSignalRingWarp) { ringInEveryWidth<Form::Warp, false>(stream_); }
TEST_F(CudaTest, PutmemSignalRingBlock) { ringInEveryWidth<Form::Block, false>(stream_); }
TEST_F(CudaTest, PutmemSignalNbiRingThread) { ringInEveryWidth<Form::Thread, true>(stream_); }
TEST_F(CudaTest, PutmemSignalNbiRingWarp) { ringInEveryWidth<Form::Warp, true>(stream_); }
TEST_F(CudaTest, PutmemSignalNbiRingBlock) { ringInEveryWidth<Form::Block, true>(stream_); }

// ---- notify and the multi-slot wait --------------------------------------------------------

// `slots` slots on every PE; PE p owns the slots j with j % n == p. For each of its slots the
// owner first writes a data word (data[j] = 1000 + j) to every PE, then notifies that slot on
// every PE with SET `value` (release: the data is ordered before it). Every PE then waits for
// all slots at once and reads the data through the token of the wait.
template <class S>
__global__ void notifySetAndWait(S *sig, std::int64_t *data, int slots, S value, Mismatches *m) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  for (int j = me; j < slots; j += n) {
    for (int pe = 0; pe < n; ++pe) {
      dev::p(data + j, std::int64_t{1000} + j, pe);
      dev::notify(sig + j * kSlotStride<S>, pe, value, dl::SignalOp::Set);
    }
  }
  dl::Token token = dev::wait(sig, slots, value);
  const std::int64_t *seen = dev::consume_token(data, token);
  for (int j = 0; j < slots; ++j) expectEqual(m, j, 1000 + j, loadFresh(seen + j));
  // The wait does not consume: the slots still hold the value, and waiting again returns at once.
  for (int j = 0; j < slots; ++j) {
    expectEqual(m, -1 - j, static_cast<long long>(value), static_cast<long long>(loadFresh(sig + j * kSlotStride<S>)));
  }
  dev::wait(sig, slots, value);
}

// Every thread of the block adds 1 to every slot of every PE: each slot ends at threads * n.
template <class S>
__global__ void notifyAddAndWait(S *sig, int slots, Mismatches *m) {
  const int n = dev::num_ranks();
  for (int pe = 0; pe < n; ++pe) {
    for (int j = 0; j < slots; ++j) dev::notify(sig + j * kSlotStride<S>, pe, S{1}, dl::SignalOp::Add);
  }
  if (threadIdx.x != 0) return;
  const S total = static_cast<S>(blockDim.x * n);
  dev::wait(sig, slots, total);
  for (int j = 0; j < slots; ++j) {
    expectEqual(m, j, static_cast<long long>(total), static_cast<long long>(loadFresh(sig + j * kSlotStride<S>)));
  }
}

template <class S>
void notifyAndWait(cudaStream_t stream, S value) {
  constexpr int kSlots = 37;  // not a power of two, more than the PEs: several per owner
  {
    Symmetric<S> sig(kSlots * kSlotStride<S>);
    Symmetric<std::int64_t> data(kSlots);
    DeviceMismatches mismatches;
    notifySetAndWait<S><<<1, 1, 0, stream>>>(sig.get(), data.get(), kSlots, value, mismatches.get());
    TDIST_ASSERT_CUDA(cudaGetLastError());
    TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
    TDIST_EXPECT_NO_MISMATCH(mismatches, "notify SET, sizeof(S) " + std::to_string(sizeof(S)));
    sh::barrier_all();
  }
  {
    Symmetric<S> sig(kSlots * kSlotStride<S>);
    DeviceMismatches mismatches;
    notifyAddAndWait<S><<<1, 128, 0, stream>>>(sig.get(), kSlots, mismatches.get());
    TDIST_ASSERT_CUDA(cudaGetLastError());
    TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
    TDIST_EXPECT_NO_MISMATCH(mismatches, "notify ADD, sizeof(S) " + std::to_string(sizeof(S)));
    sh::barrier_all();
  }
}

TEST_F(CudaTest, NotifySetAndAddThenWaitOverSlots) {
  // Values that need every bit of their type: negative, past 32 bits, past 63 bits.
  notifyAndWait<std::int32_t>(stream_, -123457);
  notifyAndWait<std::int64_t>(stream_, (std::int64_t{1} << 40) + 5);
  notifyAndWait<std::uint64_t>(stream_, 0xF00000000000000Full);
}

// ---- signal_op from every PE into PE 0 -----------------------------------------------------

// Every thread of every block adds me + 1 to PE 0's signal `rounds` times; PE 0 then waits for
// the exact total, which only atomic adds reach.
template <class S>
__global__ void addIntoPe0(S *sig, int rounds, S total, Mismatches *m) {
  const int me = dev::rank();
  for (int r = 0; r < rounds; ++r) dev::signal_op(sig, static_cast<S>(me + 1), sh::SignalOp::Add, 0);
  if (me == 0 && blockIdx.x == 0 && threadIdx.x == 0) {
    expectEqual(m, 0, static_cast<long long>(total),
                static_cast<long long>(dev::signal_wait_until(sig, sh::Cmp::EQ, total)));
  }
}

// The last PE replaces PE 0's signal with SET; PE 0 waits for that value.
template <class S>
__global__ void setOnPe0(S *sig, S value, Mismatches *m) {
  const int me = dev::rank();
  if (me == dev::num_ranks() - 1) dev::signal_op(sig, value, sh::SignalOp::Set, 0);
  if (me == 0) {
    expectEqual(m, 1, static_cast<long long>(value),
                static_cast<long long>(dev::signal_wait_until(sig, sh::Cmp::EQ, value)));
  }
}

template <class S>
void signalOpIntoPe0(cudaStream_t stream, int n, S set_value) {
  constexpr int kBlocks = 4, kThreads = 128, kRounds = 8;
  Symmetric<S> sig(kSlotStride<S>);
  DeviceMismatches mismatches;
  // Host reference: every thread adds me + 1, kRounds times, on every PE.
  const S total = static_cast<S>(std::int64_t{kBlocks} * kThreads * kRounds * n * (n + 1) / 2);
  addIntoPe0<S><<<kBlocks, kThreads, 0, stream>>>(sig.get(), kRounds, total, mismatches.get());
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  sh::barrier_all();  // every add has landed before SET replaces the sum
  setOnPe0<S><<<1, 1, 0, stream>>>(sig.get(), set_value, mismatches.get());
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  TDIST_EXPECT_NO_MISMATCH(mismatches, "signal_op into PE 0, sizeof(S) " + std::to_string(sizeof(S)));
  if (tdist::myPe() == 0) EXPECT_EQ(sig.read()[0], set_value);
  sh::barrier_all();
}

TEST_F(CudaTest, SignalOpAddFromEveryPeIsExactThenSetReplaces) {
  signalOpIntoPe0<std::int32_t>(stream_, n(), -7);
  signalOpIntoPe0<std::int64_t>(stream_, n(), -(std::int64_t{1} << 42));
  signalOpIntoPe0<std::uint64_t>(stream_, n(), 0x8000000000000001ull);
}

}  // namespace
}  // namespace tdist::cuda_test
