// cuda-put-bw: bandwidth of PE 0's puts into PE 1's heap on the GPU, by the SMs and by the copy
// engine, against a plain device-to-device cudaMemcpyAsync.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
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

constexpr int kOrigin = 0;
constexpr int kTarget = 1;

// Each block puts one chunk with the block-cooperative put; a block past the end has nothing to do
// (block-uniform, so every thread of a working block takes part in putmem_block). The kernel's end
// on the stream completes the puts: the event after it times delivered bytes.
__global__ void putBlocksKernel(std::byte *dest, const std::byte *source, std::size_t size,
                                std::size_t chunk, int pe) {
  const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * chunk;
  if (begin >= size) return;
  const std::size_t left = size - begin;
  dev::putmem_block(dest + begin, source + begin, left < chunk ? left : chunk, pe);
}

// Bytes 1..251 by position (a period prime to every power of two, so a misplaced chunk shows); 0
// is the poison, which no pattern byte equals.
__device__ __forceinline__ std::byte patternByte(std::size_t i) {
  return static_cast<std::byte>(i % 251 + 1);
}

__global__ void fillPatternKernel(std::byte *buffer, std::size_t size) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < size;
       i += std::size_t{gridDim.x} * blockDim.x)
    buffer[i] = patternByte(i);
}

// pe < 0: buffer is private memory of this PE; else pe's copy of a symmetric buffer.
__global__ void poisonKernel(std::byte *buffer, std::size_t size, int pe) {
  std::byte *target = pe < 0 ? buffer : dev::symm_at(buffer, pe);
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < size;
       i += std::size_t{gridDim.x} * blockDim.x)
    target[i] = std::byte{0};
}

__global__ void countMismatchesKernel(const std::byte *buffer, std::size_t size, int pe,
                                      unsigned long long *mismatches) {
  const std::byte *target = pe < 0 ? buffer : dev::symm_at(buffer, pe);
  unsigned long long wrong = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < size;
       i += std::size_t{gridDim.x} * blockDim.x)
    wrong += target[i] != patternByte(i);
  if (wrong != 0) atomicAdd(mismatches, wrong);
}

// The grid of the helper kernels: memory-bound grid-stride loops.
constexpr int kHelperBlocks = 1024;
constexpr int kHelperThreads = 256;

// The smallest chunk worth a block: one 16-byte access per thread. Fewer, fuller blocks for small
// sizes; the whole grid from threads * 16 * blocks bytes up.
std::size_t chunkBytes(std::size_t size, int blocks, int threads) {
  const std::size_t min_chunk = static_cast<std::size_t>(threads) * 16;
  const std::size_t per_block = (size + blocks - 1) / blocks;
  // A multiple of 256 bytes keeps every chunk as aligned as the buffers (16-byte vectors).
  return std::max(min_chunk, (per_block + 255) / 256 * 256);
}

enum class Path { Memcpy, Sm, CopyEngine };

const char *pathVariant(Path path) {
  switch (path) {
    case Path::Memcpy: return "path=memcpy";
    case Path::Sm: return "path=sm";
    case Path::CopyEngine: return "path=ce";
  }
  return "?";
}

class PutBandwidth {
 public:
  PutBandwidth(std::byte *dest, std::size_t max_size, int blocks, int threads)
      : dest_(dest), source_(max_size), reference_(max_size), mismatches_(1), blocks_(blocks),
        threads_(threads) {
    fillPatternKernel<<<kHelperBlocks, kHelperThreads, 0, stream_.get()>>>(source_.get(), max_size);
    gpu::check_launch("fillPatternKernel");
    stream_.synchronize();
  }

  void enqueue(Path path, std::size_t size) {
    switch (path) {
      case Path::Memcpy:
        gpu::check(cudaMemcpyAsync(reference_.get(), source_.get(), size, cudaMemcpyDeviceToDevice,
                                   stream_.get()),
                   "cudaMemcpyAsync");
        break;
      case Path::Sm: {
        const std::size_t chunk = chunkBytes(size, blocks_, threads_);
        const auto grid = static_cast<unsigned>((size + chunk - 1) / chunk);
        putBlocksKernel<<<grid, threads_, 0, stream_.get()>>>(dest_, source_.get(), size, chunk, kTarget);
        gpu::check_launch("putBlocksKernel");
        break;
      }
      case Path::CopyEngine:
        tdist::cuda::putmem_on_stream(dest_, source_.get(), size, kTarget, stream_.get());
        break;
    }
  }

  // Poison the destination, copy once, compare: the figures below are for copies that arrive.
  void check(Path path, std::size_t size) {
    std::byte *target = path == Path::Memcpy ? reference_.get() : dest_;
    const int pe = path == Path::Memcpy ? -1 : kTarget;
    poisonKernel<<<kHelperBlocks, kHelperThreads, 0, stream_.get()>>>(target, size, pe);
    gpu::check_launch("poisonKernel");
    enqueue(path, size);
    gpu::check(cudaMemsetAsync(mismatches_.get(), 0, sizeof(unsigned long long), stream_.get()),
               "cudaMemsetAsync");
    countMismatchesKernel<<<kHelperBlocks, kHelperThreads, 0, stream_.get()>>>(target, size, pe,
                                                                              mismatches_.get());
    gpu::check_launch("countMismatchesKernel");
    stream_.synchronize();
    if (unsigned long long wrong = mismatches_.read(); wrong != 0)
      throw std::runtime_error(std::string("cuda-put-bw ") + pathVariant(path) + ": " +
                               std::to_string(wrong) + " of " + std::to_string(size) +
                               " bytes wrong after one copy");
  }

  // iters copies back to back on the stream between two events; GB/s of bytes moved.
  double time(Path path, std::size_t size, long iters) {
    timer_.start(stream_.get());
    for (long i = 0; i < iters; ++i) enqueue(path, size);
    timer_.stop(stream_.get());
    return static_cast<double>(size) * static_cast<double>(iters) / timer_.seconds() / 1e9;
  }

 private:
  std::byte *dest_;
  gpu::Stream stream_;
  gpu::DeviceBuffer<std::byte> source_;
  gpu::DeviceBuffer<std::byte> reference_;
  gpu::DeviceBuffer<unsigned long long> mismatches_;
  gpu::EventTimer timer_;
  int blocks_;
  int threads_;
};

std::vector<std::size_t> putSizes(const Options &options) {
  std::vector<std::size_t> sizes;
  for (std::size_t size = options.min_size; size <= options.max_size; size *= options.size_factor)
    sizes.push_back(size);
  return sizes;
}

std::vector<double> ratios(const std::vector<double> &numerator, const std::vector<double> &denominator) {
  std::vector<double> out;
  for (std::size_t i = 0; i < numerator.size(); ++i) out.push_back(numerator[i] / denominator[i]);
  return out;
}

}  // namespace

void runCudaPutBandwidth(const Options &options, Reporter &reporter) {
  if (shmem::n_pes() < 2) throw std::invalid_argument("cuda-put-bw needs at least 2 PEs");
  const int device = gpu::useBackendDevice();
  const bool origin = shmem::my_pe() == kOrigin;
  const int blocks = options.gpu_blocks > 0 ? options.gpu_blocks : 2 * gpu::multiprocessorCount(device);
  auto *dest = static_cast<std::byte *>(tdist::allocate(options.max_size, 4096));

  if (origin) {
    std::printf("# cuda-put-bw: PE %d -> PE %d, SM copies by up to %d blocks x %d threads\n", kOrigin,
                kTarget, blocks, options.gpu_threads);
    PutBandwidth bandwidth(dest, options.max_size, blocks, options.gpu_threads);
    constexpr Path kPaths[] = {Path::Memcpy, Path::Sm, Path::CopyEngine};
    for (std::size_t size : putSizes(options)) {
      const long iters = gpuPutIterations(options, size);
      for (Path path : kPaths) {
        bandwidth.check(path, size);
        for (long i = warmupIterations(options, iters); i > 0; --i) bandwidth.enqueue(path, size);
      }
      // The three alternate repeat by repeat, so that each ratio compares the same minute.
      std::vector<double> gbps[3];
      for (int r = 0; r < options.repeats; ++r)
        for (Path path : kPaths) gbps[static_cast<int>(path)].push_back(bandwidth.time(path, size, iters));
      auto add = [&](const std::string &variant, Unit unit, const std::vector<double> &samples) {
        reporter.add(Result{.case_name = "cuda-put-bw", .variant = variant, .pes = shmem::n_pes(),
                            .size = size, .iters = iters, .repeats = options.repeats, .unit = unit,
                            .summary = summarize(samples)});
      };
      for (Path path : kPaths) add(pathVariant(path), Unit::GigabytesPerSecond, gbps[static_cast<int>(path)]);
      const auto &memcpy_gbps = gbps[static_cast<int>(Path::Memcpy)];
      add("ratio=sm/memcpy", Unit::Ratio, ratios(gbps[static_cast<int>(Path::Sm)], memcpy_gbps));
      add("ratio=ce/memcpy", Unit::Ratio, ratios(gbps[static_cast<int>(Path::CopyEngine)], memcpy_gbps));
    }
  }
  // PE 1 only owns the destination; it waits here until PE 0 is done with it.
  shmem::barrier_all();
  tdist::deallocate(dest);
}

}  // namespace tdist::bench
