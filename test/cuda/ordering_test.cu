// Data before signal, under stress: one payload buffer reused for many iterations, and the
// receiver checks all of it each time its signal arrives. A signal that overtakes any byte of
// its payload shows up as a stale byte of the previous iteration.
#include <cstdint>

#include "test/cuda/cuda_test_support.cuh"

namespace tdist::cuda_test {
namespace {

// How the sender orders the payload before the signal.
enum class Delivery {
  PutSignalNbi,      // putmem_signal_block_nbi: the call itself orders them
  PutNbiFenceSignal, // putmem_block_nbi, fence, signal_op
  PutNbiQuietSignal, // putmem_block_nbi, quiet, signal_op
};

// The ring, every PE sending to the next: in iteration `it` the whole block puts the payload
// (pattern of iteration it) into the next PE's single buffer and signals it with SET it + 1;
// then waits for its own signal from the previous PE, checks the whole payload, and
// acknowledges to the previous PE (SET it + 1 on its ack). A sender overwrites the next PE's
// buffer only once that PE acknowledged the previous iteration. Fresh words every run: nobody
// resets them.
template <Delivery delivery>
__global__ void payloadBeforeSignal(std::uint8_t *src, std::uint8_t *payload, std::size_t bytes, int iterations,
                                    std::uint64_t *sig, std::uint64_t *ack, Mismatches *m) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const int next = (me + 1) % n;
  const int prev = (me + n - 1) % n;
  for (int it = 0; it < iterations; ++it) {
    for (std::size_t i = threadIdx.x; i < bytes; i += blockDim.x) src[i] = pattern(me, it, i);
    if (threadIdx.x == 0) dev::signal_wait_until(ack, sh::Cmp::GE, static_cast<std::uint64_t>(it));
    __syncthreads();  // src is written and the next PE is done with the buffer
    const auto value = static_cast<std::uint64_t>(it + 1);
    if constexpr (delivery == Delivery::PutSignalNbi) {
      dev::putmem_signal_block_nbi(payload, src, bytes, sig, value, sh::SignalOp::Set, next);
    } else {
      dev::putmem_block_nbi(payload, src, bytes, next);
      if constexpr (delivery == Delivery::PutNbiFenceSignal) dev::fence();
      else dev::quiet();
      __syncthreads();  // every thread's part is ordered before thread 0's signal
      if (threadIdx.x == 0) dev::signal_op(sig, value, sh::SignalOp::Set, next);
    }
    if (threadIdx.x == 0) dev::signal_wait_until(sig, sh::Cmp::GE, value);
    __syncthreads();
    for (std::size_t i = threadIdx.x; i < bytes; i += blockDim.x) {
      const std::uint8_t seen = *static_cast<const volatile std::uint8_t *>(payload + i);
      if (seen != pattern(prev, it, i)) mismatch(m, it, pattern(prev, it, i), seen);
    }
    __syncthreads();  // every thread has checked before the acknowledgement frees the buffer
    if (threadIdx.x == 0) dev::signal_op(ack, value, sh::SignalOp::Set, prev);
    // src is rewritten next iteration: the nbi put must have read it.
    dev::quiet();
    __syncthreads();
  }
}

template <Delivery delivery>
void stress(cudaStream_t stream, const char *what) {
  constexpr int kIterations = 2000;
  constexpr std::size_t kBytes = 8 * 1024 + 7;
  Symmetric<std::uint8_t> src(kBytes);
  Symmetric<std::uint8_t> payload(kBytes);
  Symmetric<std::uint64_t> sig(kSlotStride<std::uint64_t>);
  Symmetric<std::uint64_t> ack(kSlotStride<std::uint64_t>);
  DeviceMismatches mismatches;
  payloadBeforeSignal<delivery><<<1, 256, 0, stream>>>(src.get(), payload.get(), kBytes, kIterations, sig.get(),
                                                       ack.get(), mismatches.get());
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  // Where = the iteration whose payload had a stale or foreign byte.
  TDIST_EXPECT_NO_MISMATCH(mismatches, what);
  EXPECT_EQ(sig.read()[0], static_cast<std::uint64_t>(kIterations));
  sh::barrier_all();
}

TEST_F(CudaTest, PutSignalNbiDeliversThePayloadBeforeTheSignal) {
  stress<Delivery::PutSignalNbi>(stream_, "putmem_signal_block_nbi");
}

TEST_F(CudaTest, FenceOrdersAnNbiPutBeforeALaterSignal) {
  stress<Delivery::PutNbiFenceSignal>(stream_, "putmem_block_nbi, fence, signal_op");
}

TEST_F(CudaTest, QuietCompletesAnNbiPutBeforeALaterSignal) {
  stress<Delivery::PutNbiQuietSignal>(stream_, "putmem_block_nbi, quiet, signal_op");
}

}  // namespace
}  // namespace tdist::cuda_test
