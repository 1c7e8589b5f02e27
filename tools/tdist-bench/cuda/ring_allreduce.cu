// cuda-ring-allreduce: examples/triton/ring_allreduce.py's ring in CUDA C++ with the device
// library, the twin that bench/triton_kernels.py times the Triton kernel against
// (bench/triton_compare.sh runs both): the same grid (chunk / kRingTile blocks of 4 warps, block p
// owning slice p of every chunk), the same signals (one per step and block, 64 bytes apart, set to
// the call's epoch), the same loads and stores, 128-bit wide as Triton emits them, and the
// program-scope notify and wait of tdist.language (a block barrier, then thread 0).
//
// A sample is the median over --iters calls (10 by default) of one call's GPU time between CUDA
// events after a host barrier and a 100 us GPU lead-in (the call is enqueued while it runs, so that
// the launch's host cost is left out, as triton_kernels.py leaves a Triton launch's out); PE 0 reports the slowest PE's per repeat. Each size is checked
// exactly against the host sum after its first call.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "cuda/gpu.cuh"
#include "host_data.h"
#include "kernel_common.h"
#include "tdist/device/dl.cuh"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::bench {
namespace {

namespace dev = tdist::device;

constexpr int kThreads = 128;                           // Triton's default 4 warps
constexpr int kSlotWords = 8;                           // uint64 words between two signals
constexpr long kDefaultCalls = 10;
constexpr std::uint64_t kLeadInNs = 100'000;

// Keeps the GPU busy for ns while the host enqueues what is timed after it.
__global__ void leadIn(std::uint64_t ns) {
  const std::uint64_t begin = gpu::globalTimer();
  while (gpu::globalTimer() - begin < ns) {
  }
}

// Block `pid`'s slice of one step: its kRingTile floats of chunk `send` to the next PE's staging
// chunk `step`, the signal, the wait for this PE's own, then the received slice into chunk `recv`
// (added, or stored in the all-gather half).
__device__ void ringStep(float *data, float *staging, std::uint64_t *signals, std::uint64_t epoch, long chunk,
                         int step, int send, int recv, bool add) {
  const int next = (dev::rank() + 1) % dev::num_ranks();
  const long offset = static_cast<long>(blockIdx.x) * kRingTile;
  auto *to = reinterpret_cast<float4 *>(dev::symm_at(staging, next) + step * chunk + offset);
  const auto *from = reinterpret_cast<const float4 *>(data + send * chunk + offset);
  // Every load of the slice before its stores, as Triton's tile load then store does: a loop of
  // load-store pairs through pointers that may alias keeps one load in flight per thread.
  static_assert(kRingTile % (4 * kThreads) == 0, "a block's slice is whole float4s for every thread");
  constexpr int kPerThread = kRingTile / 4 / kThreads;
  float4 slice[kPerThread];
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) slice[j] = from[threadIdx.x + j * kThreads];
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) to[threadIdx.x + j * kThreads] = slice[j];
  std::uint64_t *signal = signals + (static_cast<long>(step) * gridDim.x + blockIdx.x) * kSlotWords;
  __syncthreads();
  if (threadIdx.x == 0) dev::notify(signal, next, epoch, dl::SignalOp::Set);
  if (threadIdx.x == 0) dev::wait(signal, 1, epoch);
  __syncthreads();
  const auto *in = reinterpret_cast<const float4 *>(staging + step * chunk + offset);
  auto *out = reinterpret_cast<float4 *>(data + recv * chunk + offset);
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) slice[j] = in[threadIdx.x + j * kThreads];
  if (add) {
    float4 mine[kPerThread];
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) mine[j] = out[threadIdx.x + j * kThreads];
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      slice[j] = make_float4(mine[j].x + slice[j].x, mine[j].y + slice[j].y, mine[j].z + slice[j].z,
                             mine[j].w + slice[j].w);
    }
  }
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) out[threadIdx.x + j * kThreads] = slice[j];
}

__global__ void __launch_bounds__(kThreads)
    ringAllReduce(float *data, float *staging, std::uint64_t *signals, std::uint64_t epoch, long chunk) {
  const int rank = dev::rank(), n = dev::num_ranks();
  for (int s = 0; s < n - 1; ++s)  // reduce-scatter
    ringStep(data, staging, signals, epoch, chunk, s, (rank - s + n) % n, (rank - s - 1 + n) % n, true);
  for (int s = 0; s < n - 1; ++s)  // all-gather
    ringStep(data, staging, signals, epoch, chunk, n - 1 + s, (rank + 1 - s + n) % n, (rank - s + n) % n, false);
}

}  // namespace

std::vector<std::size_t> ringAllReduceSizes(int n_pes) {
  std::vector<std::size_t> sizes;
  for (std::size_t size : {std::size_t{256} << 10, std::size_t{1} << 20, std::size_t{2} << 20}) {
    const std::size_t chunk = size / sizeof(float) / static_cast<std::size_t>(n_pes);
    if (chunk % kRingTile == 0 && chunk / kRingTile <= kRingMaxBlocks) sizes.push_back(size);
  }
  return sizes;
}

void runCudaRingAllReduce(const Options &options, Reporter &reporter) {
  gpu::useBackendDevice();
  const int n = shmem::n_pes(), me = shmem::my_pe();
  if (n < 2) throw std::invalid_argument("cuda-ring-allreduce needs at least 2 PEs");
  const long calls = options.iters > 0 ? options.iters : kDefaultCalls;
  gpu::Stream stream;
  gpu::EventTimer timer;
  std::uint64_t epoch = 0;
  for (std::size_t size : ringAllReduceSizes(n)) {
    const std::size_t count = size / sizeof(float);
    const long chunk = static_cast<long>(count) / n;
    const int blocks = static_cast<int>(chunk / kRingTile);
    const int steps = 2 * (n - 1);
    auto *data = static_cast<float *>(tdist::allocate(size));
    auto *staging = static_cast<float *>(tdist::allocate(static_cast<std::size_t>(steps * chunk) * sizeof(float)));
    auto *signals = static_cast<std::uint64_t *>(
        tdist::allocateZeroed(static_cast<std::size_t>(steps) * blocks * kSlotWords, sizeof(std::uint64_t)));
    std::vector<float> host(count);
    for (std::size_t i = 0; i < count; ++i) host[i] = collectiveValue(me, i);
    const std::vector<float> expected = allReduceExpected(n, count, DType::F32);
    const auto call = [&] {
      ringAllReduce<<<blocks, kThreads, 0, stream.get()>>>(data, staging, signals, ++epoch, chunk);
      gpu::check_launch("ringAllReduce");
    };
    gpu::copyToDevice(data, host.data(), size, stream.get(), "copying the input");
    shmem::barrier_all();
    call();
    stream.synchronize();
    std::vector<float> got(count);
    gpu::check(cudaMemcpy(got.data(), data, size, cudaMemcpyDeviceToHost), "cudaMemcpy of the output");
    requireEqual("cuda-ring-allreduce " + formatBytes(size), got, expected);

    std::vector<double> medians;
    for (int r = 0; r < options.repeats; ++r) {
      std::vector<double> us;
      for (long i = 0; i < calls; ++i) {
        shmem::barrier_all();  // the previous call is over everywhere: its staging may be reused
        leadIn<<<1, 1, 0, stream.get()>>>(kLeadInNs);
        timer.start(stream.get());
        call();
        timer.stop(stream.get());
        us.push_back(timer.seconds() * 1e6);
      }
      std::nth_element(us.begin(), us.begin() + static_cast<long>(us.size() / 2), us.end());
      medians.push_back(us[us.size() / 2]);
    }
    const std::vector<double> slowest = slowestPe(medians);
    if (me == 0) {
      reporter.add(rowResult("cuda-ring-allreduce", "impl=cxx blocks=" + std::to_string(blocks), size, calls, slowest,
                             0, 0));
    }
    shmem::barrier_all();
    tdist::deallocate(signals);
    tdist::deallocate(staging);
    tdist::deallocate(data);
  }
}

}  // namespace tdist::bench
