// kernels/cuda/gemm_rs_reduce.cuh - GEMM + ReduceScatter's sum of the partials: out = p_0 + p_1 +
// ... + p_{n-1}, p_j = partial + j * slot_stride (f32, PE j's partial of this PE's block), summed
// in PE order in f32 and rounded once to Out (f32 or bf16), with the library's deterministic
// reduction (common.cuh, reduce_vectors; 4 loads in flight a thread, the blocks interleaved).
// Every element equals PE 0's partial plus the others in order, bit for bit, whatever the grid.
// Used by the bodies (gemm_rs.cu) and by tdist-bench's cuda-gemm-rs-reduce, which times it.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/cuda/common.cuh"

namespace tdist::kernels::cuda {

constexpr int kReducePartialsThreads = 256;
// Blocks of a memory-bound loop per SM: enough to keep every SM's loads in flight.
constexpr int kReducePartialsBlocksPerSm = 8;

// The start of the sum: -0, the identity of IEEE addition, so the sum is PE 0's partial plus the
// others (common.cuh).
constexpr float kPartialsStart = -0.0f;

// Vectors a thread loads before it adds (common.cuh, reduce_vectors): 4, not the collectives' 16.
// With the blocks interleaved (below) that is the fastest measured at 2, 4 and 8 partials on an
// H200 (docs/benchmarks/cuda.md, "GEMM + ReduceScatter's partials").
constexpr int kReducePartialsLoads = 4;

// Vector v of this block, the blocks interleaved: row v / kThreads of the grid (gridDim.x *
// kThreads contiguous vectors), this block's kThreads of it. At any moment the grid reads one
// window of each partial, as a grid-stride loop does, instead of one stream per block: at 2
// partials a contiguous piece per block measured up to 1.3x slower at 32 MiB.
template <int kThreads>
struct Interleaved {
  std::int64_t row;   // vectors of a row: gridDim.x * kThreads
  std::int64_t base;  // this block's first vector in a row
  __device__ __forceinline__ std::int64_t operator()(std::int64_t v) const {
    return ((v / kThreads) * row + base + v % kThreads) * detail::Acc<float>::kN;
  }
};

// This block's share of `count` elements from partial (slot_stride apart) into out. Where
// `vectorized` (partial 16-byte aligned, slot_stride a multiple of 4, out aligned to four of its
// elements), the whole rows of the grid in vectors of four f32 (Interleaved), then the last row a
// vector a thread; the elements past the last vector (or all of them) one a thread.
template <class Out>
__global__ void __launch_bounds__(kReducePartialsThreads)
    reduce_partials(Out *out, const float *partial, std::size_t slot_stride, int n_pes, std::int64_t count,
                    bool vectorized) {
  constexpr int kN = detail::Acc<float>::kN;
  constexpr int kThreads = kReducePartialsThreads;
  auto source = [&](int pe) { return partial + pe * slot_stride; };
  auto store = [&](std::int64_t at, auto packed) { *reinterpret_cast<decltype(packed) *>(out + at) = packed; };
  const std::int64_t row = std::int64_t{gridDim.x} * kThreads;
  const std::int64_t base = std::int64_t{blockIdx.x} * kThreads;
  const std::int64_t vectors = vectorized ? count / kN : 0, rows = vectors / row;
  detail::reduce_vectors<float, Out, kReducePartialsLoads>(rows * kThreads, n_pes, source,
                                                           Interleaved<kThreads>{row, base}, store, kPartialsStart);
  if (const std::int64_t v = rows * row + base + threadIdx.x; v < vectors) {
    detail::Acc<float> a;
    detail::acc_fill(a, kPartialsStart);
    for (int pe = 0; pe < n_pes; ++pe) detail::acc_add<float>(a, source(pe) + v * kN);
    store(v * kN, detail::acc_pack_as<Out>(a));
  }
  for (std::int64_t j = vectors * kN + base + threadIdx.x; j < count; j += row) {
    float sum = kPartialsStart;
    for (int pe = 0; pe < n_pes; ++pe) sum = __fadd_rn(sum, source(pe)[j]);
    out[j] = detail::from_f32<Out>(sum);
  }
}

// The partials of `count` elements into out, on stream s: a grid of blocks that each take
// kReducePartialsLoads / n_pes vectors a thread per row (at least one), at most
// kReducePartialsBlocksPerSm per SM of this GPU.
template <class Out>
void reducePartials(Out *out, const float *partial, std::size_t slot_stride, int n_pes, std::size_t count,
                    cudaStream_t s) {
  if (count == 0) return;
  constexpr int kN = detail::Acc<float>::kN;
  const bool vectorized = slot_stride % kN == 0 && reinterpret_cast<std::uintptr_t>(partial) % 16 == 0 &&
                          reinterpret_cast<std::uintptr_t>(out) % (kN * sizeof(Out)) == 0;
  const std::size_t per_thread =
      (n_pes == 2 || n_pes == 4 || n_pes == 8) ? std::max(1, kReducePartialsLoads / n_pes) : 4;
  const std::size_t per_block = kReducePartialsThreads * (vectorized ? per_thread * kN : 1);
  const std::size_t most = static_cast<std::size_t>(kReducePartialsBlocksPerSm) * host::smCount();
  const auto blocks = static_cast<unsigned>(std::min(most, (count + per_block - 1) / per_block));
  reduce_partials<<<blocks, kReducePartialsThreads, 0, s>>>(out, partial, slot_stride, n_pes,
                                                            static_cast<std::int64_t>(count), vectorized);
  tdist::cuda::check_launch("tdist::kernels::gemm_reduce_scatter: reduce_partials");
}

// One tile of a [rows, n] block from the partials into out, by this block: rows [r0, r0 +
// tile_rows), columns [c0, c0 + tile_cols), in vectors of four (c0 and tile_cols multiples of 4,
// n a multiple of 4, partial and out aligned to four of their elements).
template <class Out>
__device__ __forceinline__ void reducePartialTile(Out *out, const float *partial, std::size_t slot_stride, int n_pes,
                                                  std::int64_t n, std::int64_t r0, std::int64_t c0,
                                                  std::int64_t tile_rows, std::int64_t tile_cols) {
  constexpr int kN = detail::Acc<float>::kN;
  const int quads = static_cast<int>(tile_cols / kN);  // 32-bit index arithmetic: a tile is small
  detail::reduce_vectors<float, Out>(
      tile_rows * quads, n_pes, [&](int pe) { return partial + pe * slot_stride; },
      [&](std::int64_t v) {
        const int r = static_cast<int>(v) / quads;
        return (r0 + r) * n + c0 + (static_cast<int>(v) - r * quads) * kN;
      },
      [&](std::int64_t at, auto packed) { *reinterpret_cast<decltype(packed) *>(out + at) = packed; },
      kPartialsStart);
}

}  // namespace tdist::kernels::cuda
