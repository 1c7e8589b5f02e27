// cuda-gemm-cutlass: a persistent, warp-specialized bf16 GEMM for sm_90a built on CUTLASS/CuTe
// (TMA loads into a multi-stage shared-memory pipeline, wgmma, a producer warpgroup and two
// cooperative consumer warpgroups, the persistent tile scheduler), against cuBLASLt on the same
// shapes, side by side in one run: the first step of the tile-centric fused GEMMs, whose tile
// scheduler and epilogue will wait on and raise the device library's signals.
//
// PE 0 alone; bf16 in, f32 accumulation, bf16 out, row-major A [M, K], B [K, N], C [M, N], for
// M 4096 and 8192 x N 8192 and 14336, K 8192. The inputs are small integers, so both GEMMs'
// outputs are exact and must be equal element for element (checked once per shape before the
// timing). RESULT lines: variant=cutlass / cublaslt per shape, and ratio=cutlass/cublaslt (the
// throughput of CUTLASS over cuBLASLt's, repeat by repeat).
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "cuda/device_gemm.h"
#include "cuda/gpu.cuh"
#include "tdist/shmem.h"

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/util/packed_stride.hpp"

namespace tdist::bench {
namespace {

namespace shmem = tdist::shmem;
using namespace cute;

// ---- the kernel: CUTLASS's sm90 collectives, our choice of tile, cluster and schedule ----------

using Element = cutlass::bfloat16_t;
using Accumulator = float;
using Layout = cutlass::layout::RowMajor;
constexpr int kAlignment = 128 / cutlass::sizeof_bits<Element>::value;  // 16-byte TMA accesses
using TileShape = Shape<_128, _256, _64>;    // one CTA's tile of C, K step
using ClusterShape = Shape<_2, _1, _1>;      // two CTAs share each B tile's TMA multicast

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, Accumulator, Accumulator, Element, Layout, kAlignment,
    Element, Layout, kAlignment, cutlass::epilogue::TmaWarpSpecializedCooperative>::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, Layout, kAlignment, Element, Layout, kAlignment,
    Accumulator, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;

using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue,
                                                    cutlass::gemm::PersistentScheduler>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

void checkCutlass(cutlass::Status status, const char *what) {
  if (status != cutlass::Status::kSuccess)
    throw std::runtime_error(std::string("cuda-gemm-cutlass: ") + what + ": " + cutlassGetStatusString(status));
}

// C = A x B through CUTLASS, its workspace kept from the first call of a shape.
class CutlassGemm {
 public:
  CutlassGemm(long m, long n, long k, const Element *a, const Element *b, Element *c, cudaStream_t stream)
      : stream_(stream) {
    using StrideA = typename Gemm::GemmKernel::StrideA;
    using StrideB = typename Gemm::GemmKernel::StrideB;
    using StrideC = typename Gemm::GemmKernel::StrideC;
    using StrideD = typename Gemm::GemmKernel::StrideD;
    const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
    cutlass::KernelHardwareInfo hw;
    hw.device_id = gpu::useBackendDevice();
    hw.sm_count = gpu::multiprocessorCount(hw.device_id);
    typename Gemm::Arguments arguments{
        cutlass::gemm::GemmUniversalMode::kGemm,
        {M, N, K, 1},
        {a, cutlass::make_cute_packed_stride(StrideA{}, make_shape(M, K, 1)), b,
         cutlass::make_cute_packed_stride(StrideB{}, make_shape(N, K, 1))},
        {{1.0f, 0.0f}, c, cutlass::make_cute_packed_stride(StrideC{}, make_shape(M, N, 1)), c,
         cutlass::make_cute_packed_stride(StrideD{}, make_shape(M, N, 1))},
        hw};
    checkCutlass(gemm_.can_implement(arguments), "can_implement");
    const std::size_t bytes = Gemm::get_workspace_size(arguments);
    if (bytes > 0) gpu::check(cudaMalloc(&workspace_, bytes), "cudaMalloc(workspace)");
    checkCutlass(gemm_.initialize(arguments, workspace_, stream_), "initialize");
  }
  ~CutlassGemm() { cudaFree(workspace_); }
  CutlassGemm(const CutlassGemm &) = delete;
  CutlassGemm &operator=(const CutlassGemm &) = delete;
  void run() { checkCutlass(gemm_.run(stream_), "run"); }

 private:
  Gemm gemm_;
  void *workspace_ = nullptr;
  cudaStream_t stream_;
};

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
    data[i] = Element(static_cast<float>(static_cast<int>((h >> 13) % 5u) - 2));
  }
}

__global__ void countDifferent(const Element *x, const Element *y, std::size_t count, unsigned long long *wrong) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    mine += static_cast<float>(x[i]) != static_cast<float>(y[i]);
  if (mine) atomicAdd(wrong, mine);
}

}  // namespace

void runCudaGemmCutlass(const Options &options, Reporter &reporter) {
  if (shmem::my_pe() == 0) {
    gpu::useBackendDevice();
    const long iters = options.iters > 0 ? options.iters : kDefaultIters;
    std::printf("# cuda-gemm-cutlass: bf16, f32 accumulation, K %ld; CUTLASS sm90 TMA warp-specialized "
                "cooperative persistent 128x256x64, cluster 2x1, against cuBLASLt (heuristic's first)\n",
                kK);
    gpu::Stream stream;
    const std::size_t most_a = 8192 * kK, most_b = kK * 14336, most_c = 8192 * 14336;
    gpu::DeviceBuffer<Element> a(most_a), b(most_b), c_cutlass(most_c), c_cublas(most_c);
    gpu::DeviceBuffer<unsigned long long> wrong(1);
    fillSmallIntegers<<<1024, 256, 0, stream.get()>>>(a.get(), most_a, 0x1234u);
    fillSmallIntegers<<<1024, 256, 0, stream.get()>>>(b.get(), most_b, 0x9876u);
    gpu::checkLaunch("fillSmallIntegers");
    gpu::EventTimer timer;
    for (long m : kMs) {
      for (long n : kNs) {
        CutlassGemm cutlass_gemm(m, n, kK, a.get(), b.get(), c_cutlass.get(), stream.get());
        DeviceGemm cublas(m, n, kK, DType::BF16, stream.get());
        // Checked once: both exact, so equal everywhere.
        cutlass_gemm.run();
        cublas.run(a.get(), b.get(), c_cublas.get());
        gpu::check(cudaMemsetAsync(wrong.get(), 0, sizeof(unsigned long long), stream.get()), "cudaMemsetAsync");
        countDifferent<<<1024, 256, 0, stream.get()>>>(c_cutlass.get(), c_cublas.get(), static_cast<std::size_t>(m * n),
                                                       wrong.get());
        gpu::checkLaunch("countDifferent");
        stream.synchronize();
        if (const unsigned long long bad = wrong.read(); bad != 0)
          throw std::runtime_error("cuda-gemm-cutlass: m=" + std::to_string(m) + " n=" + std::to_string(n) + ": " +
                                   std::to_string(bad) + " elements differ from cuBLASLt's");
        const auto time = [&](auto &&call) {
          timer.start(stream.get());
          for (long i = 0; i < iters; ++i) call();
          timer.stop(stream.get());
          return timer.seconds() / static_cast<double>(iters);
        };
        const auto run_cutlass = [&] { cutlass_gemm.run(); };
        const auto run_cublas = [&] { cublas.run(a.get(), b.get(), c_cublas.get()); };
        for (long i = std::max(1L, warmupIterations(options, iters)); i > 0; --i) {
          run_cutlass();
          run_cublas();
        }
        std::vector<double> us_cutlass, us_cublas, ratio;
        for (int r = 0; r < options.repeats; ++r) {
          const double s_cutlass = time(run_cutlass), s_cublas = time(run_cublas);
          us_cutlass.push_back(s_cutlass * 1e6);
          us_cublas.push_back(s_cublas * 1e6);
          ratio.push_back(s_cublas / s_cutlass);
        }
        const std::string shape = "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(kK);
        const double flop = 2.0 * m * n * kK;
        const auto add = [&](const std::string &variant, Unit unit, const std::vector<double> &samples) {
          reporter.add(Result{.case_name = "cuda-gemm-cutlass", .variant = variant, .pes = shmem::n_pes(),
                              .size = static_cast<std::size_t>(m * n) * sizeof(Element), .iters = iters,
                              .repeats = options.repeats, .unit = unit, .summary = summarize(samples)});
        };
        add("variant=cutlass " + shape + " tflops=" + formatFixed(flop / (summarize(us_cutlass).median * 1e-6) / 1e12, 1),
            Unit::Microseconds, us_cutlass);
        add("variant=cublaslt " + shape + " tflops=" + formatFixed(flop / (summarize(us_cublas).median * 1e-6) / 1e12, 1),
            Unit::Microseconds, us_cublas);
        add("ratio=cutlass/cublaslt " + shape, Unit::Ratio, ratio);
      }
    }
  }
  shmem::barrier_all();  // one GPU is enough: the other PEs wait
}

}  // namespace tdist::bench
