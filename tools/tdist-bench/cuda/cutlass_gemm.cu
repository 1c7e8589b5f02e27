// cuda-gemm-cutlass: the fused strategy's GEMM (kernels/cuda/fused_gemm.h: CUTLASS's sm90 TMA
// warp-specialized cooperative mainloop and epilogue under the kernel library's own tile
// scheduler) against cuBLASLt on the same shapes, side by side in one run, and the cost of its
// row waits: the same GEMM with its rows in two blocks of four chunks, rotated to start on the
// second block, every arrival word already set, so that each tile's producer polls and passes.
//
// PE 0 alone; bf16 in, f32 accumulation, bf16 out, row-major A [M, K], B [K, N], C [M, N], for
// M 4096 and 8192 x N 8192 and 14336, K 8192. The inputs are small integers, so every GEMM's
// output is exact and must be equal element for element (checked once per shape and variant
// before the timing). RESULT lines: variant=ours / ours-waits-preset / cublaslt per shape,
// ratio=ours/cublaslt (throughput over cuBLASLt's, repeat by repeat) and
// ratio=waits-preset/ours (time with the waits over time without). And GEMM + ReduceScatter's
// side: the same product into f32 partials as the batch of one owner (this PE), without and with
// a notification per tile (the TMA stores' completion, then the owner's flag): variant=to-owners
// and to-owners-notify, ratio=notify/to-owners; every flag is checked set after the notified run.
// And the GEMM in the other tile orders (fused::Raster: along M, swizzles 2, 4, 8), each checked
// the same way: variant=ours-raster-<n|m><swizzle>, ratio=ours-raster-.../cublaslt.
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "cuda/device_gemm.h"
#include "cuda/gpu.cuh"
#include "kernels/cuda/fused_gemm.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::bench {
namespace {

namespace shmem = tdist::shmem;
namespace fused = tdist::kernels::cuda::fused;
using Element = __nv_bfloat16;

// ---- the case -------------------------------------------------------------------------------------

constexpr long kDefaultIters = 10;
constexpr long kK = 8192;
constexpr long kMs[] = {4096, 8192};
constexpr long kNs[] = {8192, 14336};

// Integers in -2 .. 2 from the index: every product sum of K = 8192 is exact in f32.
__global__ void fillSmallIntegers(Element *data, std::size_t count, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t h = (static_cast<std::uint32_t>(i) * 2654435761u) ^ seed;
    data[i] = __float2bfloat16(static_cast<float>(static_cast<int>((h >> 13) % 5u) - 2));
  }
}

__global__ void countDifferent(const Element *x, const Element *y, std::size_t count, unsigned long long *wrong) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    mine += __bfloat162float(x[i]) != __bfloat162float(y[i]);
  if (mine) atomicAdd(wrong, mine);
}

// The f32 partials, rounded once to bf16, against a bf16 result.
__global__ void countDifferentRounded(const float *x, const Element *y, std::size_t count, unsigned long long *wrong) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    mine += __bfloat162float(__float2bfloat16_rn(x[i])) != __bfloat162float(y[i]);
  if (mine) atomicAdd(wrong, mine);
}

__global__ void countNotEqual(const std::uint64_t *words, std::size_t count, std::uint64_t value,
                              unsigned long long *wrong) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    mine += words[i] != value;
  if (mine) atomicAdd(wrong, mine);
}

}  // namespace

// The waits of the preset variant: M rows in two blocks (as two PEs' shards) of four chunks each,
// starting on the second block; every arrival word already holds the epoch.
fused::RowWaits presetWaits(long m, std::uint64_t *arrivals) {
  fused::RowWaits w;
  w.arrivals = arrivals;
  w.arrival_step = 1;
  w.epoch = 1;
  w.sources = 2;
  w.rows_per_source = m / 2;
  w.first = 1;
  w.chunks = 4;
  for (int c = 0; c <= w.chunks; ++c) w.bounds[c] = static_cast<std::int32_t>(m / 2 / w.chunks * c);
  return w;
}

void runCudaGemmCutlass(const Options &options, Reporter &reporter) {
  // The notified variant's flags, on the heap (collective): signal_op addresses them as PE 0's.
  const int most_tiles = fused::tilesOf(8192, 14336);
  auto *flags = static_cast<std::uint64_t *>(tdist::allocateZeroed(most_tiles, sizeof(std::uint64_t)));
  if (shmem::my_pe() == 0) {
    gpu::useBackendDevice();
    const long iters = options.iters > 0 ? options.iters : kDefaultIters;
    std::printf("# cuda-gemm-cutlass: bf16, f32 accumulation, K %ld; the fused strategy's GEMM (CUTLASS sm90 TMA "
                "warp-specialized cooperative 128x256x64, cluster 2x1, our tile scheduler) against cuBLASLt "
                "(the fastest of its heuristic's first algorithms)\n",
                kK);
    gpu::Stream stream;
    const std::size_t most_a = 8192 * kK, most_b = kK * 14336, most_c = 8192 * 14336;
    gpu::DeviceBuffer<Element> a(most_a), b(most_b), c_ours(most_c), c_preset(most_c), c_cublas(most_c);
    gpu::DeviceBuffer<float> partial(most_c);
    gpu::DeviceBuffer<unsigned long long> wrong(1);
    // The word the notified variant's call epoch comes from (zero: epoch 1).
    std::vector<std::uint64_t> zeros(64, 0);
    gpu::DeviceBuffer<std::uint64_t> epoch_slots(zeros.size());
    gpu::copyToDevice(epoch_slots.get(), zeros.data(), zeros.size() * sizeof(std::uint64_t), stream.get(),
                      "copying the epoch slots");
    std::vector<std::uint64_t> ones(8, 1);
    gpu::DeviceBuffer<std::uint64_t> arrivals(ones.size());
    gpu::copyToDevice(arrivals.get(), ones.data(), ones.size() * sizeof(std::uint64_t), stream.get(),
                      "copying the arrivals");
    fillSmallIntegers<<<1024, 256, 0, stream.get()>>>(a.get(), most_a, 0x1234u);
    fillSmallIntegers<<<1024, 256, 0, stream.get()>>>(b.get(), most_b, 0x9876u);
    gpu::check_launch("fillSmallIntegers");
    gpu::EventTimer timer;
    for (long m : kMs) {
      for (long n : kNs) {
        const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(kK);
        const fused::RowWaits none{}, preset = presetWaits(m, arrivals.get());
        const auto run_ours = [&] { fused::gemmBf16(a.get(), b.get(), c_ours.get(), M, N, K, none, 0, stream.get(), "cuda-gemm-cutlass"); };
        const auto run_preset = [&] {
          fused::gemmBf16(a.get(), b.get(), c_preset.get(), M, N, K, preset, 0, stream.get(), "cuda-gemm-cutlass");
        };
        fused::TileNotify quiet, notified;
        notified.flags = flags;
        notified.slot0 = epoch_slots.get();
        notified.me = shmem::my_pe();
        const auto to_owner = [&](const fused::TileNotify &notify) {
          // One owner, this PE: its block is every row (the offset to a peer's block is unused).
          fused::gemmBf16ToOwners(a.get(), b.get(), partial.get(), 0, M, N, K, notify, 0, stream.get(),
                                  "cuda-gemm-cutlass");
        };
        const auto run_to_owners = [&] { to_owner(quiet); };
        const auto run_notify = [&] { to_owner(notified); };
        // The other tile orders of the same GEMM (ours is along N, no swizzle): a tuning dimension.
        const fused::Raster rasters[] = {{false, 2}, {false, 4}, {false, 8}, {true, 1}, {true, 2}, {true, 4}};
        const auto raster_name = [](const fused::Raster &r) {
          return std::string(r.along_m ? "m" : "n") + std::to_string(r.swizzle);
        };
        const auto run_raster = [&](const fused::Raster &r) {
          fused::gemmBf16(a.get(), b.get(), c_preset.get(), M, N, K, none, 0, stream.get(), "cuda-gemm-cutlass", r);
        };
        DeviceGemm cublas(m, n, kK, DType::BF16, stream.get());
        const auto run_cublas = [&] { cublas.run(a.get(), b.get(), c_cublas.get()); };
        // Checked once: all exact, so equal everywhere.
        run_ours();
        run_preset();
        run_cublas();
        gpu::check(cudaMemsetAsync(flags, 0, most_tiles * sizeof(std::uint64_t), stream.get()), "cudaMemsetAsync");
        run_notify();
        gpu::check(cudaMemsetAsync(wrong.get(), 0, sizeof(unsigned long long), stream.get()), "cudaMemsetAsync");
        countDifferentRounded<<<1024, 256, 0, stream.get()>>>(partial.get(), c_cublas.get(),
                                                              static_cast<std::size_t>(m * n), wrong.get());
        countNotEqual<<<64, 256, 0, stream.get()>>>(flags, static_cast<std::size_t>(fused::tilesOf(m, n)), 1,
                                                    wrong.get());
        gpu::check_launch("countDifferentRounded");
        stream.synchronize();
        if (const unsigned long long bad = wrong.read(); bad != 0)
          throw std::runtime_error("cuda-gemm-cutlass: m=" + std::to_string(m) + " n=" + std::to_string(n) + ": " +
                                   std::to_string(bad) +
                                   " partials of to-owners-notify differ from cuBLASLt's or flags are not set");
        const auto expect_cublas = [&](const Element *c, const std::string &variant) {
          gpu::check(cudaMemsetAsync(wrong.get(), 0, sizeof(unsigned long long), stream.get()), "cudaMemsetAsync");
          countDifferent<<<1024, 256, 0, stream.get()>>>(c, c_cublas.get(), static_cast<std::size_t>(m * n), wrong.get());
          gpu::check_launch("countDifferent");
          stream.synchronize();
          if (const unsigned long long bad = wrong.read(); bad != 0)
            throw std::runtime_error("cuda-gemm-cutlass: m=" + std::to_string(m) + " n=" + std::to_string(n) + ": " +
                                     std::to_string(bad) + " elements of " + variant + " differ from cuBLASLt's");
        };
        expect_cublas(c_ours.get(), "ours");
        expect_cublas(c_preset.get(), "ours-waits-preset");
        for (const fused::Raster &r : rasters) {
          gpu::check(cudaMemsetAsync(c_preset.get(), 0, static_cast<std::size_t>(m * n) * sizeof(Element), stream.get()),
                     "cudaMemsetAsync");
          run_raster(r);
          expect_cublas(c_preset.get(), "ours-raster-" + raster_name(r));
        }
        const auto time = [&](auto &&call) {
          timer.start(stream.get());
          for (long i = 0; i < iters; ++i) call();
          timer.stop(stream.get());
          return timer.seconds() / static_cast<double>(iters);
        };
        for (long i = std::max(1L, warmupIterations(options, iters)); i > 0; --i) {
          run_ours();
          run_preset();
          run_cublas();
          run_to_owners();
          run_notify();
        }
        std::vector<double> us_ours, us_preset, us_cublas, ratio, wait_cost, us_owners, us_notify, notify_cost;
        std::vector<std::vector<double>> us_raster(std::size(rasters)), raster_ratio(std::size(rasters));
        for (int r = 0; r < options.repeats; ++r) {
          const double s_ours = time(run_ours), s_preset = time(run_preset), s_cublas = time(run_cublas);
          for (std::size_t i = 0; i < std::size(rasters); ++i) {
            const double s_raster = time([&] { run_raster(rasters[i]); });
            us_raster[i].push_back(s_raster * 1e6);
            raster_ratio[i].push_back(s_cublas / s_raster);
          }
          const double s_owners = time(run_to_owners), s_notify = time(run_notify);
          us_ours.push_back(s_ours * 1e6);
          us_preset.push_back(s_preset * 1e6);
          us_cublas.push_back(s_cublas * 1e6);
          ratio.push_back(s_cublas / s_ours);
          wait_cost.push_back(s_preset / s_ours);
          us_owners.push_back(s_owners * 1e6);
          us_notify.push_back(s_notify * 1e6);
          notify_cost.push_back(s_notify / s_owners);
        }
        const std::string shape = "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(kK);
        const double flop = 2.0 * m * n * kK;
        const auto add = [&](const std::string &variant, Unit unit, const std::vector<double> &samples) {
          reporter.add(Result{.case_name = "cuda-gemm-cutlass", .variant = variant, .pes = shmem::n_pes(),
                              .size = static_cast<std::size_t>(m * n) * sizeof(Element), .iters = iters,
                              .repeats = options.repeats, .unit = unit, .summary = summarize(samples)});
        };
        const auto tflops = [&](const std::vector<double> &us) {
          return formatFixed(flop / (summarize(us).median * 1e-6) / 1e12, 1);
        };
        add("variant=ours " + shape + " tflops=" + tflops(us_ours), Unit::Microseconds, us_ours);
        add("variant=ours-waits-preset " + shape + " tflops=" + tflops(us_preset), Unit::Microseconds, us_preset);
        add("variant=cublaslt " + shape + " tflops=" + tflops(us_cublas), Unit::Microseconds, us_cublas);
        add("ratio=ours/cublaslt " + shape, Unit::Ratio, ratio);
        for (std::size_t i = 0; i < std::size(rasters); ++i) {
          const std::string name = "ours-raster-" + raster_name(rasters[i]);
          add("variant=" + name + " " + shape + " tflops=" + tflops(us_raster[i]), Unit::Microseconds, us_raster[i]);
          add("ratio=" + name + "/cublaslt " + shape, Unit::Ratio, raster_ratio[i]);
        }
        add("ratio=waits-preset/ours " + shape, Unit::Ratio, wait_cost);
        add("variant=to-owners " + shape + " tflops=" + tflops(us_owners), Unit::Microseconds, us_owners);
        add("variant=to-owners-notify " + shape + " tflops=" + tflops(us_notify), Unit::Microseconds, us_notify);
        add("ratio=notify/to-owners " + shape, Unit::Ratio, notify_cost);
      }
    }
  }
  shmem::barrier_all();  // one GPU is enough: the other PEs wait
  tdist::deallocate(flags);
}

}  // namespace tdist::bench
