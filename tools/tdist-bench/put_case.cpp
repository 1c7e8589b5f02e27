#include <cstring>
#include <stdexcept>
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

// Keeps the compiler from dropping copies into a buffer that nothing reads.
void keepWritten(void *buffer) { asm volatile("" : : "r"(buffer) : "memory"); }

double gigabytesPerSecond(std::size_t size, long iters, double seconds) {
  return static_cast<double>(size) * static_cast<double>(iters) / seconds / 1e9;
}

// Times `repeats` rounds of `iters` calls of op after `warmup` untimed ones; one GB/s sample
// per round.
template <class Op>
Result timeBandwidth(const char *case_name, std::size_t size, long iters, long warmup,
                     const Options &options, Op op) {
  for (long i = 0; i < warmup; ++i) op();
  std::vector<double> samples;
  long vcsw = 0, ivcsw = 0;
  for (int r = 0; r < options.repeats; ++r) {
    Stopwatch watch;
    watch.start();
    for (long i = 0; i < iters; ++i) op();
    watch.stop();
    samples.push_back(gigabytesPerSecond(size, iters, watch.seconds()));
    vcsw += watch.voluntarySwitches();
    ivcsw += watch.involuntarySwitches();
  }
  double total_iters = static_cast<double>(iters) * options.repeats;
  return Result{.case_name = case_name, .variant = {}, .pes = shmem::n_pes(), .size = size, .iters = iters,
                .repeats = options.repeats, .unit = Unit::GigabytesPerSecond,
                .summary = summarize(samples), .vcsw_per_iter = vcsw / total_iters,
                .ivcsw_per_iter = ivcsw / total_iters};
}

}  // namespace

void runPut(const Options &options, Reporter &reporter) {
  if (shmem::n_pes() < 2) throw std::invalid_argument("put needs at least 2 PEs");
  const bool origin = shmem::my_pe() == 0;
  auto *dest = static_cast<std::byte *>(tdist::allocate(options.max_size));
  // Private buffers, touched now so that no repeat pays for page faults.
  std::vector<std::byte> source(origin ? options.max_size : 0, std::byte{1});
  std::vector<std::byte> copy(origin ? options.max_size : 0, std::byte{0});
  shmem::barrier_all();

  for (std::size_t size : putSizes(options)) {
    const long iters = putIterations(options, size);
    const long warmup = warmupIterations(options, iters);
    if (origin) {
      reporter.add(timeBandwidth("memcpy", size, iters, warmup, options, [&] {
        std::memcpy(copy.data(), source.data(), size);
        keepWritten(copy.data());
      }));
    }
    shmem::barrier_all();
    if (origin) {
      reporter.add(timeBandwidth("put", size, iters, warmup, options, [&] {
        shmem::putmem(dest, source.data(), size, 1);
        shmem::quiet();
      }));
    }
    shmem::barrier_all();
  }
  tdist::deallocate(dest);
}

std::size_t heapBytesNeeded(const Options &options, int n_pes) {
  std::size_t bytes = 4u << 20;  // signals, sample exchange, allocator slack
  bytes += static_cast<std::size_t>(n_pes) * options.repeats * sizeof(double);
  for (Case c : options.cases)
    if (c == Case::Put) bytes += options.max_size;
  return (bytes + (1u << 20) - 1) & ~std::size_t((1u << 20) - 1);
}

}  // namespace tdist::bench
