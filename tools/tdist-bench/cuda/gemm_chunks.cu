// cuda-gemm-chunks: what splitting one bf16 GEMM into chunks costs on one GPU, the price of the
// decomposed overlap of kernels/cuda/ag_gemm.cu and gemm_rs.cu, planned as they plan theirs
// (kernels/cuda/cublaslt_plan.h, chunk_bounds.h). One cuBLASLt GEMM of the whole shape against the same
// product as 2, 4 and 8 GEMMs of row chunks (as AllGather+GEMM and GEMM+ReduceScatter issue them),
// of column chunks, and of a 2-D grid; each with cuBLASLt's first heuristic choice or with the
// fastest of its first few algorithms for that chunk shape; and row chunks on two streams in turn
// (split=rows-2s, rows-tuned-2s), as kernels/cuda/ag_gemm.cu issues AllGather+GEMM's chunks, so that
// one GEMM's last wave overlaps the next one's first.
//
// RESULT lines: case=cuda-gemm-chunks m= n= k= chunks= split= efficiency= ... median_us=: the time
// of the whole product per iteration, and its efficiency = the whole GEMM's time (fastest algorithm)
// over the chunks' time, repeat by repeat in the same run (the median of those ratios).
#include <cublasLt.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "cases.h"
#include "cuda/gpu.cuh"
#include "kernels/cuda/chunk_bounds.h"
#include "kernels/cuda/cublaslt_plan.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::bench {
namespace {

namespace shmem = tdist::shmem;
namespace lt = tdist::kernels::cuda::lt;  // the bodies' cuBLASLt plans: the same descriptors and workspace

constexpr int kCandidates = 8;  // algorithms tried per chunk shape
constexpr long kDefaultIters = 10;
constexpr std::int64_t kK = 8192;
constexpr std::int64_t kMs[] = {4096, 8192};
constexpr std::int64_t kNs[] = {8192, 14336};
constexpr int kChunkCounts[] = {2, 4, 8};

// Values in [-1, 1) from a hash of the index: no two rows alike, nothing that a GEMM could skip.
__global__ void fillKernel(__nv_bfloat16 *data, std::size_t count, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    data[i] = __float2bfloat16_rn(static_cast<float>(h & 0xffff) / 32768.0f - 1.0f);
  }
}

// One GEMM of the product: C[r0:r1, c0:c1] = A[r0:r1, :] x B[:, c0:c1], row-major A [M, K],
// B [K, N], C [M, N], through the column-major C^T = B^T A^T.
struct Piece {
  std::int64_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
};

// A chunk shape's plan (lt::Plan: descriptors and the heuristic's first kCandidates algorithms,
// best first) and `fastest`, the index of the candidate that timed fastest on its own.
struct Matmul {
  std::unique_ptr<lt::Plan> plan;
  int fastest = 0;
};

class GemmChunks {
 public:
  GemmChunks(std::int64_t max_m, std::int64_t max_n, std::int64_t k)
      : k_(k), a_(max_m * k), b_(k * max_n), c_(max_m * max_n), workspace_(lt::kWorkspaceBytes),
        alt_workspace_(lt::kWorkspaceBytes) {
    lt::checkLt(cublasLtCreate(&handle_), "cublasLtCreate");
    gpu::check(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    gpu::check(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    fillKernel<<<1024, 256, 0, stream_.get()>>>(a_.get(), max_m * k, 0x1234u);
    gpu::check_launch("fillKernel");
    fillKernel<<<1024, 256, 0, stream_.get()>>>(b_.get(), k * max_n, 0x9876u);
    gpu::check_launch("fillKernel");
    stream_.synchronize();
  }
  ~GemmChunks() {
    matmuls_.clear();  // the plans before their handle
    cublasLtDestroy(handle_);
    cudaEventDestroy(fork_);
    cudaEventDestroy(join_);
  }
  GemmChunks(const GemmChunks &) = delete;
  GemmChunks &operator=(const GemmChunks &) = delete;

  // The shape's descriptors and candidates, tuned on first use (n = the row length of B and C).
  Matmul &matmul(const Piece &piece, std::int64_t n) {
    const lt::GemmShape shape{.ab = CUDA_R_16BF, .cd = CUDA_R_16BF, .rows = piece.r1 - piece.r0,
                              .n = piece.c1 - piece.c0, .k = k_, .lda = k_, .ldb = n, .ldc = n,
                              .align_a = lt::alignmentOf(aOf(piece)), .align_b = lt::alignmentOf(bOf(piece)),
                              .align_c = lt::alignmentOf(cOf(piece, n))};
    auto found = matmuls_.find(shape);
    if (found != matmuls_.end()) return found->second;
    Matmul &m = matmuls_[shape];
    m.plan = lt::makePlan(handle_, shape, kCandidates);
    tune(m, piece, n);
    return m;
  }

  // On the main stream, or (alt) on the second one, each with its own workspace.
  void run(const Matmul &m, int algo, const Piece &piece, std::int64_t n, bool alt = false) {
    lt::checkLt(lt::matmul(handle_, *m.plan, m.plan->candidates[algo].algo, aOf(piece), bOf(piece), cOf(piece, n),
                           alt ? alt_workspace_.get() : workspace_.get(), alt ? alt_.get() : stream_.get()),
                "cublasLtMatmul");
  }
  // The second stream starts after everything on the main one, and the main one goes on after it.
  void fork() {
    gpu::check(cudaEventRecord(fork_, stream_.get()), "cudaEventRecord");
    gpu::check(cudaStreamWaitEvent(alt_.get(), fork_, 0), "cudaStreamWaitEvent");
  }
  void join() {
    gpu::check(cudaEventRecord(join_, alt_.get()), "cudaEventRecord");
    gpu::check(cudaStreamWaitEvent(stream_.get(), join_, 0), "cudaStreamWaitEvent");
  }

  cudaStream_t stream() const { return stream_.get(); }

 private:
  const __nv_bfloat16 *aOf(const Piece &p) const { return a_.get() + p.r0 * k_; }
  const __nv_bfloat16 *bOf(const Piece &p) const { return b_.get() + p.c0; }
  __nv_bfloat16 *cOf(const Piece &p, std::int64_t n) const { return c_.get() + p.r0 * n + p.c0; }

  // Each candidate alone: 2 untimed runs, then the best of 3 timings of 3 runs each.
  void tune(Matmul &m, const Piece &piece, std::int64_t n) {
    double best = 0;
    for (int i = 0; i < static_cast<int>(m.plan->candidates.size()); ++i) {
      for (int w = 0; w < 2; ++w) run(m, i, piece, n);
      double fastest = 0;
      for (int t = 0; t < 3; ++t) {
        timer_.start(stream_.get());
        for (int r = 0; r < 3; ++r) run(m, i, piece, n);
        timer_.stop(stream_.get());
        const double seconds = timer_.seconds();
        if (t == 0 || seconds < fastest) fastest = seconds;
      }
      if (i == 0 || fastest < best) {
        best = fastest;
        m.fastest = i;
      }
    }
  }

  std::int64_t k_;
  gpu::Stream stream_, alt_;
  gpu::DeviceBuffer<__nv_bfloat16> a_, b_, c_;
  gpu::DeviceBuffer<std::byte> workspace_, alt_workspace_;
  cudaEvent_t fork_ = nullptr, join_ = nullptr;
  gpu::EventTimer timer_;
  cublasLtHandle_t handle_ = nullptr;
  std::map<lt::GemmShape, Matmul> matmuls_;
};

// A way to compute the product: its pieces, and whether each uses its shape's fastest candidate or
// the heuristic's first.
struct Variant {
  std::string split;
  int chunks = 1;
  bool tuned = true;
  std::vector<Piece> pieces;
  bool two_streams = false;  // pieces alternate between the main and a second stream
};

Variant grid(const std::string &split, int row_parts, int col_parts, bool tuned, std::int64_t m, std::int64_t n) {
  Variant v{.split = split, .chunks = row_parts * col_parts, .tuned = tuned, .pieces = {}};
  // Cut as the bodies cut their row chunks (kernels/cuda/chunk_bounds.h), columns alike.
  const auto rows = kernels::cuda::chunkBounds(m, row_parts), cols = kernels::cuda::chunkBounds(n, col_parts);
  for (int r = 0; r < row_parts; ++r)
    for (int c = 0; c < col_parts; ++c) v.pieces.push_back({rows[r], rows[r + 1], cols[c], cols[c + 1]});
  return v;
}

std::vector<Variant> variants(std::int64_t m, std::int64_t n) {
  std::vector<Variant> out;
  out.push_back(grid("whole", 1, 1, true, m, n));  // the reference: first
  out.push_back(grid("whole-heuristic", 1, 1, false, m, n));
  for (int chunks : kChunkCounts) {
    out.push_back(grid("rows", chunks, 1, false, m, n));
    out.push_back(grid("rows-tuned", chunks, 1, true, m, n));
    out.push_back(grid("rows-2s", chunks, 1, false, m, n));
    out.back().two_streams = true;
    out.push_back(grid("rows-tuned-2s", chunks, 1, true, m, n));
    out.back().two_streams = true;
    out.push_back(grid("cols-tuned", 1, chunks, true, m, n));
    if (chunks >= 4) out.push_back(grid("2d-tuned", 2, chunks / 2, true, m, n));
  }
  return out;
}

void enqueue(GemmChunks &bench, const Variant &v, std::int64_t n) {
  if (v.two_streams) bench.fork();
  for (std::size_t i = 0; i < v.pieces.size(); ++i) {
    Matmul &m = bench.matmul(v.pieces[i], n);
    bench.run(m, v.tuned ? m.fastest : 0, v.pieces[i], n, v.two_streams && i % 2 == 1);
  }
  if (v.two_streams) bench.join();
}

// Seconds per iteration of iters products back to back.
double timeVariant(GemmChunks &bench, gpu::EventTimer &timer, const Variant &v, std::int64_t n, long iters) {
  timer.start(bench.stream());
  for (long i = 0; i < iters; ++i) enqueue(bench, v, n);
  timer.stop(bench.stream());
  return timer.seconds() / static_cast<double>(iters);
}

}  // namespace

void runCudaGemmChunks(const Options &options, Reporter &reporter) {
  if (shmem::my_pe() == 0) {
    gpu::useBackendDevice();
    const long iters = options.iters > 0 ? options.iters : kDefaultIters;
    const std::int64_t max_m = *std::max_element(std::begin(kMs), std::end(kMs));
    const std::int64_t max_n = *std::max_element(std::begin(kNs), std::end(kNs));
    std::printf("# cuda-gemm-chunks: bf16 cuBLASLt (f32 accumulation), K %lld; %d candidate algorithms per "
                "chunk shape; efficiency = whole GEMM / chunks, per repeat\n",
                static_cast<long long>(kK), kCandidates);
    GemmChunks bench(max_m, max_n, kK);
    gpu::EventTimer timer;
    for (std::int64_t m : kMs) {
      for (std::int64_t n : kNs) {
        const std::vector<Variant> all = variants(m, n);
        // Tunes every chunk shape and warms the clocks up before anything is timed.
        for (const Variant &v : all)
          for (long i = std::max(1L, warmupIterations(options, iters)); i > 0; --i) enqueue(bench, v, n);
        gpu::check(cudaStreamSynchronize(bench.stream()), "cudaStreamSynchronize");
        std::vector<std::vector<double>> seconds(all.size());
        for (int r = 0; r < options.repeats; ++r)
          for (std::size_t v = 0; v < all.size(); ++v) seconds[v].push_back(timeVariant(bench, timer, all[v], n, iters));
        for (std::size_t v = 0; v < all.size(); ++v) {
          std::vector<double> us, efficiency;
          for (int r = 0; r < options.repeats; ++r) {
            us.push_back(seconds[v][r] * 1e6);
            efficiency.push_back(seconds[0][r] / seconds[v][r]);
          }
          const Summary time = summarize(us);
          const double tflops = 2.0 * m * n * kK / (time.median * 1e-6) / 1e12;
          const std::string variant = "m=" + std::to_string(m) + " n=" + std::to_string(n) +
                                      " k=" + std::to_string(kK) + " chunks=" + std::to_string(all[v].chunks) +
                                      " split=" + all[v].split + " efficiency=" +
                                      formatFixed(summarize(efficiency).median, 4) + " tflops=" + formatFixed(tflops, 1);
          reporter.add(Result{.case_name = "cuda-gemm-chunks", .variant = variant, .pes = shmem::n_pes(),
                              .size = static_cast<std::size_t>(m * n) * sizeof(__nv_bfloat16), .iters = iters,
                              .repeats = options.repeats, .unit = Unit::Microseconds, .summary = time});
        }
      }
    }
  }
  // One GPU is enough: the other PEs wait.
  shmem::barrier_all();
}

}  // namespace tdist::bench
