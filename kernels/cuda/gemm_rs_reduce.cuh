// kernels/cuda/gemm_rs_reduce.cuh - GEMM + ReduceScatter's sum of the partials: out = p_0 + p_1 +
// ... + p_{n-1}, p_j = partial + j * slot_stride (f32, PE j's partial of this PE's block), summed
// in PE order in f32 and rounded once to Out (f32 or bf16), with the library's deterministic
// reduction (common.cuh, reduce_vectors: 16 loads in flight a thread). Every element equals PE
// 0's partial plus the others in order, bit for bit, whatever the grid. Used by the bodies
// (gemm_rs.cu) and by tdist-bench's cuda-gemm-rs-reduce, which times it.
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

// This block's share of `count` elements from partial (slot_stride apart) into out: whole vectors
// of four f32 where `vectorized` (partial 16-byte aligned, slot_stride a multiple of 4, out aligned
// to four of its elements), the rest an element at a time.
template <class Out>
__global__ void __launch_bounds__(kReducePartialsThreads)
    reduce_partials(Out *out, const float *partial, std::size_t slot_stride, int n_pes, std::int64_t count,
                    bool vectorized) {
  const detail::Span slice = detail::piece(count, gridDim.x, blockIdx.x, detail::Acc<float>::kN);
  Out *to = out + slice.lo;
  const float *from = partial + slice.lo;
  detail::reduce_span<float, Out>(
      slice.size(), n_pes, vectorized, [&](int pe) { return from + pe * slot_stride; },
      [&](std::int64_t i, auto packed) { *reinterpret_cast<decltype(packed) *>(to + i) = packed; },
      [&](std::int64_t i, Out v) { to[i] = v; }, kPartialsStart);
}

// The partials of `count` elements into out, on stream s: a grid of blocks that each take as many
// vectors as their threads keep in flight at once (common.cuh, kLoadsInFlight), at most
// kReducePartialsBlocksPerSm per SM of this GPU.
template <class Out>
void reducePartials(Out *out, const float *partial, std::size_t slot_stride, int n_pes, std::size_t count,
                    cudaStream_t s) {
  if (count == 0) return;
  constexpr int kN = detail::Acc<float>::kN;
  const bool vectorized = slot_stride % kN == 0 && reinterpret_cast<std::uintptr_t>(partial) % 16 == 0 &&
                          reinterpret_cast<std::uintptr_t>(out) % (kN * sizeof(Out)) == 0;
  const std::size_t per_thread = (n_pes == 2 || n_pes == 4 || n_pes == 8) ? detail::kLoadsInFlight / n_pes : 4;
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
