// cuda-pingpong: a signal's round trip between two PEs on the GPU, kernel to kernel and stream to
// stream.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cases.h"
#include "cuda/gpu.cuh"
#include "tdist/cuda.h"
#include "tdist/device/shmem.cuh"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::bench {
namespace {

namespace dev = tdist::device;
namespace shmem = tdist::shmem;

// The slot each PE waits on and its partner sets: a monotone sequence number (the i-th exchange
// writes i, waits are GE i), so nothing is ever reset and a wait cannot miss a value.
using Slot = std::uint64_t;

// Exchanges base+1 .. base+count: the first PE sets its partner's slot, then waits for its own;
// the other waits, then answers.
__device__ void relay(Slot *slot, int partner, bool first, Slot base, long count) {
  for (long i = 1; i <= count; ++i) {
    const Slot sequence = base + static_cast<Slot>(i);
    if (first) {
      dev::signal_op<Slot>(slot, sequence, shmem::SignalOp::Set, partner);
      dev::signal_wait_until<Slot>(slot, shmem::Cmp::GE, sequence);
    } else {
      dev::signal_wait_until<Slot>(slot, shmem::Cmp::GE, sequence);
      dev::signal_op<Slot>(slot, sequence, shmem::SignalOp::Set, partner);
    }
  }
}

// One thread: the persistent kernel of one PE. The lead-in exchanges stay out of the time: the
// first waits for the partner's kernel to start, which the host cannot line up to a microsecond.
// Then `iters` exchanges between two reads of the global timer.
__global__ void pingPongKernel(Slot *slot, int partner, bool first, Slot base, long lead_in,
                               long iters, std::uint64_t *elapsed_ns) {
  relay(slot, partner, first, base, lead_in);
  const std::uint64_t begin = gpu::globalTimer();
  relay(slot, partner, first, base + static_cast<Slot>(lead_in), iters);
  *elapsed_ns = gpu::globalTimer() - begin;
}

// One untimed exchange before each timed kernel: enough to line the two kernels up.
constexpr long kLeadIn = 1;

class PingPong {
 public:
  PingPong(int partner, bool first) : partner_(partner), first_(first) {
    slot_ = static_cast<Slot *>(tdist::allocateZeroed(1, dev::kSignalLineBytes));
  }
  ~PingPong() { tdist::deallocate(slot_); }
  PingPong(const PingPong &) = delete;
  PingPong &operator=(const PingPong &) = delete;

  // lead_in + iters exchanges in one kernel; µs per timed round trip.
  double kernelRoundTrips(long lead_in, long iters) {
    pingPongKernel<<<1, 1, 0, stream_.get()>>>(slot_, partner_, first_, sequence_, lead_in, iters,
                                              elapsed_.get());
    gpu::check_launch("pingPongKernel");
    sequence_ += static_cast<Slot>(lead_in + iters);
    stream_.synchronize();
    return iters > 0 ? static_cast<double>(elapsed_.read()) / 1e3 / static_cast<double>(iters) : 0;
  }

  // The same exchange through stream memory operations, enqueued one after the other; nothing
  // waits on the host between them.
  void enqueueStreamExchanges(long count) {
    for (long i = 0; i < count; ++i) {
      ++sequence_;
      if (first_) {
        tdist::cuda::signal_op_on_stream<Slot>(slot_, sequence_, shmem::SignalOp::Set, partner_, stream_.get());
        tdist::cuda::signal_wait_until_on_stream<Slot>(slot_, shmem::Cmp::GE, sequence_, stream_.get());
      } else {
        tdist::cuda::signal_wait_until_on_stream<Slot>(slot_, shmem::Cmp::GE, sequence_, stream_.get());
        tdist::cuda::signal_op_on_stream<Slot>(slot_, sequence_, shmem::SignalOp::Set, partner_, stream_.get());
      }
    }
  }

  // µs per round trip from the first enqueue to the end of the last exchange: the host's enqueue
  // is part of the path, as it is for any host-driven signal.
  double streamRoundTrips(long iters) {
    enqueueStreamExchanges(kLeadIn);
    stream_.synchronize();
    Stopwatch watch;
    watch.start();
    enqueueStreamExchanges(iters);
    stream_.synchronize();
    watch.stop();
    return watch.seconds() * 1e6 / static_cast<double>(iters);
  }

  void synchronize() { stream_.synchronize(); }

 private:
  int partner_;
  bool first_;
  Slot *slot_ = nullptr;
  Slot sequence_ = 0;
  gpu::Stream stream_;
  gpu::DeviceBuffer<std::uint64_t> elapsed_{1};
};

}  // namespace

void runCudaPingPong(const Options &options, Reporter &reporter) {
  const int me = shmem::my_pe(), n = shmem::n_pes();
  if (n < 2) throw std::invalid_argument("cuda-pingpong needs at least 2 PEs");
  gpu::useBackendDevice();
  // Pairs 0<->1, 2<->3, ... run at once; an odd last PE sits out. PE 0's pair is reported.
  const int partner = me ^ 1;
  const bool paired = partner < n;
  const bool first = me % 2 == 0;
  const long iters = latencyIterations(options);
  const long warmup = warmupIterations(options, iters);
  const int repeats = options.repeats;

  PingPong pingpong(partner, first);
  shmem::barrier_all();  // every slot is allocated and zero before anyone signals

  std::vector<double> kernel_us, stream_us;
  if (paired && warmup > 0) pingpong.kernelRoundTrips(warmup, 0);
  for (int r = 0; r < repeats; ++r) {
    shmem::barrier_all();
    if (paired) kernel_us.push_back(pingpong.kernelRoundTrips(kLeadIn, iters));
  }
  shmem::barrier_all();
  if (paired && warmup > 0) pingpong.enqueueStreamExchanges(warmup);
  if (paired) pingpong.synchronize();
  for (int r = 0; r < repeats; ++r) {
    shmem::barrier_all();
    if (paired) stream_us.push_back(pingpong.streamRoundTrips(iters));
  }
  shmem::barrier_all();

  if (me == 0) {
    auto add = [&](const char *variant, const std::vector<double> &samples) {
      reporter.add(Result{.case_name = "cuda-pingpong", .variant = variant, .pes = n, .size = sizeof(Slot),
                          .iters = iters, .repeats = repeats, .unit = Unit::Microseconds,
                          .summary = summarize(samples)});
    };
    add("path=kernel", kernel_us);
    add("path=stream", stream_us);
  }
}

}  // namespace tdist::bench
