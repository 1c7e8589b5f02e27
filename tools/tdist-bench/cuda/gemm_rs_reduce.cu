// cuda-gemm-rs-reduce: GEMM + ReduceScatter's sum of n PE partials (f32) into the output (bf16 or
// f32), in isolation on one GPU: the library's reduction (kernels/cuda/gemm_rs_reduce.cuh, 4
// loads in flight a thread, the blocks interleaved) beside the one it replaced (one 16-byte load
// in flight a thread, kept here for the comparison), their repeats alternating in one run. Both sum in PE order; the
// outputs are compared bit for bit before anything is timed.
//
// RESULT lines: case=cuda-gemm-rs-reduce sources= out= reduction=old|new ratio= ... median_us=:
// the time of one reduction of `size` output bytes; ratio = new / old, repeat by repeat (the
// median of those ratios), on the new rows.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "cuda/gpu.cuh"
#include "kernels/cuda/gemm_rs_reduce.cuh"
#include "tdist/shmem.h"

namespace tdist::bench {
namespace {

namespace shmem = tdist::shmem;

constexpr long kDefaultIters = 20;
constexpr int kSources[] = {2, 4, 8};
constexpr std::size_t kElements[] = {std::size_t{1} << 20, std::size_t{4} << 20, std::size_t{16} << 20};

// ---- the replaced reduction: a thread sums four elements at a time, one 16-byte load in flight ----

__device__ __forceinline__ void storeOld4(float *out, std::size_t i, float4 v) { reinterpret_cast<float4 *>(out)[i] = v; }
__device__ __forceinline__ void storeOld4(__nv_bfloat16 *out, std::size_t i, float4 v) {
  const __nv_bfloat162 lo = __floats2bfloat162_rn(v.x, v.y), hi = __floats2bfloat162_rn(v.z, v.w);
  uint2 packed;
  packed.x = *reinterpret_cast<const unsigned *>(&lo);
  packed.y = *reinterpret_cast<const unsigned *>(&hi);
  reinterpret_cast<uint2 *>(out)[i] = packed;
}

template <class Out>
__global__ void oldReduce4(Out *out, const float4 *partial, std::size_t slot_stride4, int n_pes, std::size_t count4) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count4; i += stride) {
    float4 acc = partial[i];
    for (int p = 1; p < n_pes; ++p) {
      const float4 v = partial[p * slot_stride4 + i];
      acc.x += v.x;
      acc.y += v.y;
      acc.z += v.z;
      acc.w += v.w;
    }
    storeOld4(out, i, acc);
  }
}

// Its launch: 256 threads, at most 1056 blocks (8 per SM of an H200, as it was).
template <class Out>
void oldReduce(Out *out, const float *partial, std::size_t slot_stride, int n_pes, std::size_t count, cudaStream_t s) {
  constexpr int kThreads = 256;
  constexpr std::size_t kMaxBlocks = 1056;
  const std::size_t items = count / 4;
  const auto blocks = static_cast<unsigned>(std::min(kMaxBlocks, (items + kThreads - 1) / kThreads));
  oldReduce4<<<blocks, kThreads, 0, s>>>(out, reinterpret_cast<const float4 *>(partial), slot_stride / 4, n_pes, items);
  gpu::check_launch("oldReduce4");
}

// Partial j of element i: a different value for every (i, j), some of them -0, so that every
// bit of the sums counts.
__global__ void fillPartials(float *data, std::size_t count) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count; i += stride)
    data[i] = i % 251 == 0 ? -0.0f : __sinf(static_cast<float>(i % 100003)) * 1.5f;
}

template <class Out>
void runOne(const Options &options, Reporter &reporter, int sources, std::size_t count, const char *out_name) {
  const long iters = options.iters > 0 ? options.iters : kDefaultIters;
  gpu::Stream stream;
  gpu::DeviceBuffer<float> partials(static_cast<std::size_t>(sources) * count);
  gpu::DeviceBuffer<Out> old_out(count), new_out(count);
  fillPartials<<<1024, 256, 0, stream.get()>>>(partials.get(), static_cast<std::size_t>(sources) * count);
  gpu::check_launch("fillPartials");
  auto runOld = [&] { oldReduce(old_out.get(), partials.get(), count, sources, count, stream.get()); };
  auto runNew = [&] {
    kernels::cuda::reducePartials(new_out.get(), partials.get(), count, sources, count, stream.get());
  };
  runOld();
  runNew();
  stream.synchronize();
  std::vector<Out> old_host(count), new_host(count);
  gpu::check(cudaMemcpy(old_host.data(), old_out.get(), count * sizeof(Out), cudaMemcpyDeviceToHost), "cudaMemcpy");
  gpu::check(cudaMemcpy(new_host.data(), new_out.get(), count * sizeof(Out), cudaMemcpyDeviceToHost), "cudaMemcpy");
  if (std::memcmp(old_host.data(), new_host.data(), count * sizeof(Out)) != 0)
    throw std::runtime_error("cuda-gemm-rs-reduce: the two reductions differ (sources " + std::to_string(sources) +
                             ", " + std::to_string(count) + " elements, " + out_name + ")");
  for (long i = warmupIterations(options, iters); i > 0; --i) {
    runOld();
    runNew();
  }
  gpu::EventTimer timer;
  auto time = [&](auto &&run) {
    timer.start(stream.get());
    for (long i = 0; i < iters; ++i) run();
    timer.stop(stream.get());
    return timer.seconds() / static_cast<double>(iters) * 1e6;
  };
  std::vector<double> old_us, new_us, ratio;
  for (int r = 0; r < options.repeats; ++r) {
    old_us.push_back(time(runOld));
    new_us.push_back(time(runNew));
    ratio.push_back(new_us.back() / old_us.back());
  }
  const std::string shape = "sources=" + std::to_string(sources) + " out=" + out_name;
  const double median_ratio = summarize(ratio).median;
  for (const auto &[name, us] : {std::pair<const char *, std::vector<double> &>{"old", old_us}, {"new", new_us}}) {
    std::string variant = shape + " reduction=" + name;
    if (std::string(name) == "new") variant += " ratio=" + formatFixed(median_ratio, 3);
    reporter.add(Result{.case_name = "cuda-gemm-rs-reduce", .variant = variant, .pes = shmem::n_pes(),
                        .size = count * sizeof(Out), .iters = iters, .repeats = options.repeats,
                        .unit = Unit::Microseconds, .summary = summarize(us)});
  }
}

}  // namespace

void runCudaGemmRsReduce(const Options &options, Reporter &reporter) {
  if (shmem::my_pe() == 0) {
    gpu::useBackendDevice();
    std::printf("# cuda-gemm-rs-reduce: n f32 partials summed in PE order into bf16 / f32, the library's "
                "reduction (new) against the one it replaced (old); ratio = new / old, per repeat\n");
    for (int sources : kSources) {
      for (std::size_t count : kElements) {
        runOne<__nv_bfloat16>(options, reporter, sources, count, "bf16");
        runOne<float>(options, reporter, sources, count, "f32");
      }
    }
  }
  // One GPU is enough: the other PEs wait.
  shmem::barrier_all();
}

}  // namespace tdist::bench
