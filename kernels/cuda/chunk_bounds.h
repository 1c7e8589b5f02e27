// kernels/cuda/chunk_bounds.h - how the GEMM bodies cut rows into chunks (ag_gemm.cu, gemm_rs.cu),
// and tdist-bench's cuda-gemm-chunks the same (tools/tdist-bench/cuda/gemm_chunks.cu).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tdist::kernels::cuda {

// The most chunks of a PE's rows (GEMM configs' chunks_per_pe; fused::kMaxChunks alike).
constexpr int kMaxChunksPerPe = 64;

// Rows of a GEMM tile: chunks are cut on multiples of it where every chunk can have that many.
constexpr std::int64_t kChunkUnitRows = 128;

// Row boundaries of `chunks` chunks of `rows` rows, balanced: chunk c is [bound[c], bound[c + 1]).
// A chunk may be empty (more chunks than rows); every PE cuts the same rows alike.
inline std::vector<std::int64_t> chunkBounds(std::int64_t rows, int chunks) {
  const std::int64_t unit = rows >= kChunkUnitRows * std::int64_t{chunks} ? kChunkUnitRows : 1;
  const std::int64_t units = (rows + unit - 1) / unit;
  std::vector<std::int64_t> bound(static_cast<std::size_t>(chunks) + 1);
  for (int c = 0; c <= chunks; ++c) bound[c] = std::min(rows, c * units / chunks * unit);
  bound[chunks] = rows;
  return bound;
}

}  // namespace tdist::kernels::cuda
