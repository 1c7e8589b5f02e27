// cuda-barrier: the device barrier's latency, from a kernel and from a stream.
#include <cstdint>
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

enum class DeviceBarrier { BarrierAll, SyncAll };

template <DeviceBarrier kind>
__device__ void barriers(long count) {
  for (long i = 0; i < count; ++i) {
    if constexpr (kind == DeviceBarrier::BarrierAll) dev::barrier_all();
    else dev::sync_all();
  }
}

// One thread per PE, as the barrier wants. The lead-in barriers stay out of the time: the first
// waits for the last PE's kernel to start.
template <DeviceBarrier kind>
__global__ void barrierKernel(long lead_in, long iters, std::uint64_t *elapsed_ns) {
  barriers<kind>(lead_in);
  const std::uint64_t begin = gpu::globalTimer();
  barriers<kind>(iters);
  *elapsed_ns = gpu::globalTimer() - begin;
}

constexpr long kLeadIn = 1;

class BarrierTimer {
 public:
  // lead_in + iters barriers in one kernel; µs per timed barrier.
  template <DeviceBarrier kind>
  double kernelBarriers(long lead_in, long iters) {
    barrierKernel<kind><<<1, 1, 0, stream_.get()>>>(lead_in, iters, elapsed_.get());
    gpu::check_launch("barrierKernel");
    stream_.synchronize();
    return iters > 0 ? static_cast<double>(elapsed_.read()) / 1e3 / static_cast<double>(iters) : 0;
  }

  void enqueueStreamBarriers(long count) {
    for (long i = 0; i < count; ++i) tdist::cuda::barrier_all_on_stream(stream_.get());
  }

  // µs per barrier_all_on_stream from the first enqueue to the end of the last, enqueue included.
  double streamBarriers(long iters) {
    enqueueStreamBarriers(kLeadIn);
    stream_.synchronize();
    Stopwatch watch;
    watch.start();
    enqueueStreamBarriers(iters);
    stream_.synchronize();
    watch.stop();
    return watch.seconds() * 1e6 / static_cast<double>(iters);
  }

  void synchronize() { stream_.synchronize(); }

 private:
  gpu::Stream stream_;
  gpu::DeviceBuffer<std::uint64_t> elapsed_{1};
};

}  // namespace

void runCudaBarrier(const Options &options, Reporter &reporter) {
  gpu::useBackendDevice();
  const int n = shmem::n_pes();
  const long iters = latencyIterations(options);
  const long warmup = warmupIterations(options, iters);
  const int repeats = options.repeats;
  BarrierTimer timer;

  // The rows alternate within each repeat, so that all three see the same machine.
  std::vector<double> barrier_us, sync_us, stream_us;
  shmem::barrier_all();
  if (warmup > 0) {
    timer.kernelBarriers<DeviceBarrier::BarrierAll>(warmup, 0);
    timer.enqueueStreamBarriers(warmup);
    timer.synchronize();
  }
  for (int r = 0; r < repeats; ++r) {
    shmem::barrier_all();
    barrier_us.push_back(timer.kernelBarriers<DeviceBarrier::BarrierAll>(kLeadIn, iters));
    sync_us.push_back(timer.kernelBarriers<DeviceBarrier::SyncAll>(kLeadIn, iters));
    stream_us.push_back(timer.streamBarriers(iters));
  }
  shmem::barrier_all();

  if (shmem::my_pe() == 0) {
    auto add = [&](const char *variant, const std::vector<double> &samples) {
      reporter.add(Result{.case_name = "cuda-barrier", .variant = variant, .pes = n, .size = 0,
                          .iters = iters, .repeats = repeats, .unit = Unit::Microseconds,
                          .summary = summarize(samples)});
    };
    add("path=kernel op=barrier_all", barrier_us);
    add("path=kernel op=sync_all", sync_us);
    add("path=stream op=barrier_all", stream_us);
  }
}

}  // namespace tdist::bench
