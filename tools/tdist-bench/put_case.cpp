#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>


#include "cases.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::bench {
namespace {

namespace shmem = tdist::shmem;

std::vector<std::size_t> putSizes(const Options &options) {
  std::vector<std::size_t> sizes;
  for (std::size_t size = options.min_size; size <= options.max_size; size *= options.size_factor)
    sizes.push_back(size);
  return sizes;
}

// Every buffer starts on a page, so that memcpy and put copy between equally aligned buffers: a
// copy whose destination lies a few bytes past a 4 KiB multiple from its source runs at a
// fraction of the speed (loads falsely wait on earlier stores: 4K aliasing).
constexpr std::size_t kBufferAlignment = 4096;

struct FreeDeleter {
  void operator()(std::byte *p) const { std::free(p); }
};
using PrivateBuffer = std::unique_ptr<std::byte, FreeDeleter>;

PrivateBuffer privateBuffer(std::size_t bytes, std::byte fill) {
  std::size_t rounded = (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  auto *p = static_cast<std::byte *>(std::aligned_alloc(kBufferAlignment, rounded));
  if (p == nullptr) throw std::runtime_error("put: cannot allocate " + std::to_string(bytes) + " bytes");
  std::memset(p, static_cast<int>(fill), rounded);  // fault the pages in before any timing
  return PrivateBuffer(p);
}

// Keeps the compiler from dropping copies into a buffer that nothing reads.
void keepWritten(void *buffer) { asm volatile("" : : "r"(buffer) : "memory"); }

double gigabytesPerSecond(std::size_t size, long iters, double seconds) {
  return static_cast<double>(size) * static_cast<double>(iters) / seconds / 1e9;
}

// One operation's samples: a GB/s figure per timed repeat, and PE 0's context switches.
struct BandwidthSamples {
  std::vector<double> gbps;
  long vcsw = 0;
  long ivcsw = 0;

  template <class Op>
  void time(std::size_t size, long iters, Op op) {
    Stopwatch watch;
    watch.start();
    for (long i = 0; i < iters; ++i) op();
    watch.stop();
    gbps.push_back(gigabytesPerSecond(size, iters, watch.seconds()));
    vcsw += watch.voluntarySwitches();
    ivcsw += watch.involuntarySwitches();
  }

  Result result(const char *case_name, std::size_t size, long iters) const {
    const double total_iters = static_cast<double>(iters) * static_cast<double>(gbps.size());
    return Result{.case_name = case_name, .variant = {}, .pes = shmem::n_pes(), .size = size,
                  .iters = iters, .repeats = static_cast<int>(gbps.size()),
                  .unit = Unit::GigabytesPerSecond, .summary = summarize(gbps),
                  .vcsw_per_iter = vcsw / total_iters, .ivcsw_per_iter = ivcsw / total_iters};
  }
};

}  // namespace

void runPut(const Options &options, Reporter &reporter) {
  if (shmem::n_pes() < 2) throw std::invalid_argument("put needs at least 2 PEs");
  const bool origin = shmem::my_pe() == 0;
  auto *dest = static_cast<std::byte *>(tdist::allocate(options.max_size, kBufferAlignment));
  PrivateBuffer source, copy;
  if (origin) {
    source = privateBuffer(options.max_size, std::byte{1});
    copy = privateBuffer(options.max_size, std::byte{0});
  }
  shmem::barrier_all();

  for (std::size_t size : putSizes(options)) {
    if (origin) {
      const long iters = putIterations(options, size);
      auto copy_once = [&] {
        std::memcpy(copy.get(), source.get(), size);
        keepWritten(copy.get());
      };
      auto put_once = [&] {
        shmem::putmem(dest, source.get(), size, 1);
        shmem::quiet();
      };
      for (long i = warmupIterations(options, iters); i > 0; --i) {
        copy_once();
        put_once();
      }
      // memcpy and put repeats alternate, so that both see the same machine: on a shared VM the
      // speed of a small copy drifts by tens of percent between one second and the next.
      BandwidthSamples memcpy_samples, put_samples;
      for (int r = 0; r < options.repeats; ++r) {
        memcpy_samples.time(size, iters, copy_once);
        put_samples.time(size, iters, put_once);
      }
      reporter.add(memcpy_samples.result("memcpy", size, iters));
      reporter.add(put_samples.result("put", size, iters));
    }
    shmem::barrier_all();
  }
  tdist::deallocate(dest);
}

std::size_t heapBytesNeeded(const Options &options, int n_pes) {
  std::size_t bytes = 4u << 20;  // signals, sample exchange, allocator slack
  bytes += static_cast<std::size_t>(n_pes) * options.repeats * sizeof(double);
  for (Case c : options.cases)
    if (c == Case::Put || c == Case::CudaPutBw) bytes += options.max_size;
  bytes += kernelHeapBytesNeeded(options, n_pes);
  for (Case c : options.cases)
    if (c == Case::CudaRingAllReduce) bytes += 4 * (std::size_t{2} << 20) + (1u << 20);  // data, staging, signals
  for (Case c : options.cases) {
    if (c != Case::CudaAllReduceGraph) continue;
    std::size_t largest = 0;  // its context's scratch (8 n x the largest size) and two tensors
    for (std::size_t size : graphSizes(options)) largest = std::max(largest, size);
    bytes += std::max<std::size_t>(options.scratch_bytes, 8 * n_pes * largest + (16u << 20)) + 2 * largest + (8u << 20);
  }
  return (bytes + (1u << 20) - 1) & ~std::size_t((1u << 20) - 1);
}

}  // namespace tdist::bench
