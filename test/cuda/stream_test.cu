// The host's stream forms (tdist/cuda.h), ordered with kernels on the same stream: the host
// only enqueues (kernels that write and check, transfers, signals, waits, barriers) and
// synchronizes once at the end, so every ordering checked here is the stream's.
#include <cstdint>
#include <vector>

#include "test/cuda/cuda_test_support.cuh"

namespace tdist::cuda_test {
namespace {

namespace cu = tdist::cuda;

__global__ void fill(std::uint8_t *buffer, std::size_t bytes, int iteration) {
  for (std::size_t i = threadIdx.x; i < bytes; i += blockDim.x) buffer[i] = pattern(dev::rank(), iteration, i);
}

// Where = iteration * 1000000 + byte.
__global__ void check(const std::uint8_t *buffer, std::size_t bytes, int pe, int iteration, Mismatches *m) {
  for (std::size_t i = threadIdx.x; i < bytes; i += blockDim.x) {
    const std::uint8_t seen = *static_cast<const volatile std::uint8_t *>(buffer + i);
    if (seen != pattern(pe, iteration, i)) mismatch(m, iteration * 1000000ll + i, pattern(pe, iteration, i), seen);
  }
}

constexpr int kIterations = 8;
constexpr std::size_t kBytes = 3001;  // odd: the copy has a ragged tail

// Every PE sends chunk `it` into slot `it` of the next PE with putmem_signal_on_stream (SET
// it + 1, or ADD 1: the signal is it + 1 after chunk it either way), waits on the stream for its
// own signal at GE it + 1, and checks the previous PE's chunk with a kernel behind the wait.
template <class S>
void putSignalRingOnStream(cudaStream_t stream, sh::SignalOp op) {
  const int me = tdist::myPe(), n = tdist::nPes();
  Symmetric<std::uint8_t> src(kIterations * kBytes);
  Symmetric<std::uint8_t> dest(kIterations * kBytes);
  Symmetric<S> sig(kSlotStride<S>);
  DeviceMismatches mismatches;
  for (int it = 0; it < kIterations; ++it) {
    fill<<<1, 256, 0, stream>>>(src.get() + it * kBytes, kBytes, it);
    const S value = op == sh::SignalOp::Set ? static_cast<S>(it + 1) : S{1};
    cu::putmem_signal_on_stream(dest.get() + it * kBytes, src.get() + it * kBytes, kBytes, sig.get(), value, op,
                                (me + 1) % n, stream);
    cu::signal_wait_until_on_stream(sig.get(), sh::Cmp::GE, static_cast<S>(it + 1), stream);
    check<<<1, 256, 0, stream>>>(dest.get() + it * kBytes, kBytes, (me + n - 1) % n, it, mismatches.get());
  }
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  TDIST_EXPECT_NO_MISMATCH(mismatches, std::string("putmem_signal_on_stream ") +
                                           (op == sh::SignalOp::Set ? "SET" : "ADD") + ", sizeof(S) " +
                                           std::to_string(sizeof(S)));
  EXPECT_EQ(sig.read()[0], static_cast<S>(kIterations));
  sh::barrier_all();
}

TEST_F(CudaTest, PutmemSignalOnStreamSetAndAddOrderWithKernels) {
  for (sh::SignalOp op : {sh::SignalOp::Set, sh::SignalOp::Add}) {
    putSignalRingOnStream<std::int32_t>(stream_, op);
    putSignalRingOnStream<std::int64_t>(stream_, op);
    putSignalRingOnStream<std::uint64_t>(stream_, op);
  }
}

// putmem_on_stream, quiet_on_stream, then a separate signal: the same ring; afterwards each PE
// gets back from the next PE everything it sent, with getmem_on_stream.
TEST_F(CudaTest, PutmemQuietSignalAndGetmemOnStream) {
  Symmetric<std::uint8_t> src(kIterations * kBytes);
  Symmetric<std::uint8_t> dest(kIterations * kBytes);
  Symmetric<std::uint8_t> back(kIterations * kBytes);
  Symmetric<std::uint64_t> sig(kSlotStride<std::uint64_t>);
  for (int it = 0; it < kIterations; ++it) {
    fill<<<1, 256, 0, stream_>>>(src.get() + it * kBytes, kBytes, it);
    cu::putmem_on_stream(dest.get() + it * kBytes, src.get() + it * kBytes, kBytes, next(), stream_);
    cu::quiet_on_stream(stream_);
    cu::signal_op_on_stream(sig.get(), static_cast<std::uint64_t>(it + 1), sh::SignalOp::Set, next(), stream_);
    cu::signal_wait_until_on_stream(sig.get(), sh::Cmp::GE, static_cast<std::uint64_t>(it + 1), stream_);
    check<<<1, 256, 0, stream_>>>(dest.get() + it * kBytes, kBytes, prev(), it, mismatches_.get());
  }
  // A PE's stream reaches the barrier after its last put (stream order), so past the barrier
  // every chunk of every PE has landed and no dest changes any more.
  cu::barrier_all_on_stream(stream_);
  cu::getmem_on_stream(back.get(), dest.get(), kIterations * kBytes, next(), stream_);
  cu::quiet_on_stream(stream_);
  for (int it = 0; it < kIterations; ++it) {
    check<<<1, 256, 0, stream_>>>(back.get() + it * kBytes, kBytes, me(), it, mismatches_.get());
  }
  finish();
  TDIST_EXPECT_NO_MISMATCH(mismatches_, "putmem_on_stream, quiet_on_stream, signal, getmem_on_stream");
  sh::barrier_all();
}

// ---- the predicates of signal_wait_until_on_stream -----------------------------------------

template <class S>
struct StreamStep {
  sh::Cmp cmp;
  S set;
  S operand;
};

// Writes the word's value behind the stream's wait: the value that satisfied it.
template <class S>
__global__ void record(const S *word, S *out) {
  *out = *static_cast<const volatile S *>(word);
}

// As the device ring of wait_test.cu, from the host: every PE drives the next PE's word through
// the steps with signal_op_on_stream, waits for its own with signal_wait_until_on_stream, and
// acknowledges to its driver (ack += 1), which stores the next value only after that.
template <class S>
void predicatesOnStream(cudaStream_t stream) {
  const int me = tdist::myPe(), n = tdist::nPes();
  constexpr bool is_signed = static_cast<S>(-1) < S{0};
  const S big = sizeof(S) == 8 ? static_cast<S>(std::uint64_t{1} << 40) : static_cast<S>(1 << 20);
  const S low = is_signed ? static_cast<S>(-3) : S{3};
  const S zero = is_signed ? S{0} : S{4};
  // GT with operand one below the value, and GE equal: the edges of the GT-as-GE+1 rewrite.
  const StreamStep<S> steps[] = {{sh::Cmp::EQ, static_cast<S>(big + 5), static_cast<S>(big + 5)},
                                 {sh::Cmp::NE, static_cast<S>(big + 9), static_cast<S>(big + 5)},
                                 {sh::Cmp::GT, static_cast<S>(big + 12), static_cast<S>(big + 11)},
                                 {sh::Cmp::GE, static_cast<S>(big + 12), static_cast<S>(big + 12)},
                                 {sh::Cmp::LT, low, zero},
                                 {sh::Cmp::LE, low, low}};
  Symmetric<S> word(kSlotStride<S>);
  Symmetric<std::int64_t> ack(kSlotStride<std::int64_t>);
  S *seen = nullptr;
  TDIST_ASSERT_CUDA(cudaMallocManaged(&seen, 6 * sizeof(S)));
  for (int k = 0; k < 6; ++k) {
    const StreamStep<S> &step = steps[k];
    ASSERT_TRUE(holds(step.cmp, step.set, step.operand)) << cmpName(step.cmp);
    cu::signal_wait_until_on_stream(ack.get(), sh::Cmp::GE, std::int64_t{k}, stream);
    cu::signal_op_on_stream(word.get(), step.set, sh::SignalOp::Set, (me + 1) % n, stream);
    cu::signal_wait_until_on_stream(word.get(), step.cmp, step.operand, stream);
    record<S><<<1, 1, 0, stream>>>(word.get(), seen + k);
    cu::signal_op_on_stream(ack.get(), std::int64_t{1}, sh::SignalOp::Add, (me + n - 1) % n, stream);
  }
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(seen[k], steps[k].set) << cmpName(steps[k].cmp) << ", sizeof(S) " << sizeof(S);
  }
  cudaFree(seen);
  sh::barrier_all();  // the last acknowledgement has landed before anyone frees
}

TEST_F(CudaTest, SignalWaitUntilOnStreamEveryPredicate) {
  predicatesOnStream<std::int32_t>(stream_);
  predicatesOnStream<std::int64_t>(stream_);
  predicatesOnStream<std::uint64_t>(stream_);
}

// ---- barriers on the stream ----------------------------------------------------------------

__global__ void arrive(std::int64_t *arrivals, int iteration) {
  const int me = dev::rank();
  for (int pe = 0; pe < dev::num_ranks(); ++pe) dev::p(arrivals + me, std::int64_t{iteration}, pe);
}

// As in barrier_test.cu: after barrier `it` every slot is it or it + 1.
__global__ void checkArrivals(const std::int64_t *arrivals, int iteration, Mismatches *m) {
  for (int k = 0; k < dev::num_ranks(); ++k) {
    const std::int64_t seen = dev::atomic_fetch(arrivals + k, dev::rank());
    if (seen < iteration || seen > iteration + 1) mismatch(m, iteration * 1000ll + k, iteration, seen);
  }
}

TEST_F(CudaTest, BarrierOnStreamOrdersKernelsOfEveryPe) {
  Symmetric<std::int64_t> arrivals(n());
  for (int it = 0; it < 200; ++it) {
    arrive<<<1, 1, 0, stream_>>>(arrivals.get(), it);
    // Both forms of the stream barrier: the world by name and by team.
    if (it % 2 == 0) cu::barrier_all_on_stream(stream_);
    else cu::barrier_on_stream(sh::kTeamWorld, stream_);
    checkArrivals<<<1, 1, 0, stream_>>>(arrivals.get(), it, mismatches_.get());
  }
  finish();
  TDIST_EXPECT_NO_MISMATCH(mismatches_, "barrier on the stream");
  sh::barrier_all();
}

}  // namespace
}  // namespace tdist::cuda_test
