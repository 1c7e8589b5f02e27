// tdist/kernels/gemm.h - the seeds' overlap patterns: AllGather + GEMM and GEMM + ReduceScatter.
//
// Row-major, C = A x B, with A, B and C all f32 or all bf16, on every backend: products accumulate
// in f32 and every element of C is rounded to its dtype once (cpu: OpenBLAS tile GEMMs; cuda:
// cuBLASLt, or the fused strategy's own GEMM, bf16 only). Every PE starts on its own rows (the
// seeds' swizzle), so the first tiles need no communication and later ones overlap the transfers.
#pragma once

#include <string_view>

#include "tdist/kernels/context.h"

#pragma GCC visibility push(default)

namespace tdist::kernels {

// How the cuda bodies overlap the GEMM with the transfers:
//   Decomposed - chunk GEMMs (cuBLASLt) ordered behind the transfers' signals by stream waits;
//   Fused      - one persistent GEMM (bf16; the CUTLASS headers at build time) whose tile
//                scheduler starts on this PE's own rows and waits, tile by tile, for the rows a
//                tile reads (AllGather + GEMM only, so far);
//   Auto       - the tuning table's choice, else the library's (Decomposed, until the fused form
//                is measured faster).
// The cpu bodies are one tile-level form: every choice runs it.
enum class GemmStrategy : int { Auto = 0, Decomposed = 1, Fused = 2 };

// The order in which the cuda Fused GEMM's persistent CTAs take the tiles of C:
//   AlongN - consecutive tiles share their rows, so a wave needs few row chunks;
//   AlongM - consecutive tiles share their columns;
//   Auto   - the tuning table's choice, else AlongN.
// With a swizzle of s, the tiles go in groups of s across the other dimension, which share their
// loads in L2 (docs/benchmarks/kernels_cuda.md, "The fused GEMM's tile order").
enum class GemmRaster : int { Auto = 0, AlongN = 1, AlongM = 2 };

// a: this PE's rows of A, [m_local, K]; b: [K, N], the same on every PE (each PE's own copy);
// c: [n_pes * m_local, N], the full C = gather(A) x B on every PE. gathered, when given, receives
// gather(A) [n_pes * m_local, K]; otherwise the context's scratch holds it (checked for size).
// Fields at 0 or Auto are resolved when the call is made (tdist/kernels/tuning.h): from the
// context's tuning table where it has an entry for the call, else chunks_per_pe 1, tile_m 512,
// tile_n 1024, the tile order along N with swizzle 1 and the bodies' own choices of programs and
// strategy.
struct AllGatherGemmConfig {
  int chunks_per_pe = 0;   // row chunks of each PE's A, each with its own signal; 1 .. 64 (0 = Auto)
  int tile_m = 0;          // cpu: rows of C per program tile; 1 .. 4096 (0 = Auto)
  int tile_n = 0;          // cpu: columns of C per program tile; 1 .. 4096 (0 = Auto)
  int programs = 0;        // cpu: programs (0 = one per core); cuda Fused: most CTAs (0 = one per SM
                           // of this PE's share: the GPU's SMs over the PEs that drive it)
  GemmStrategy strategy = GemmStrategy::Auto;
  // cuda Fused: who moves this PE's rows to its peers. 0: stream copies (the copy engine across
  // GPUs); 1 .. 32: a kernel of that many blocks beside the GEMM (which gives up as many CTAs)
  // pushes each chunk with SM stores and signals it. The cpu body and Decomposed ignore it.
  int producer_sms = 0;
  // cuda Fused: the GEMM's tile order (above) and its swizzle, 1, 2, 4 or 8 (0 = Auto: the table's,
  // else 1). The cpu body and Decomposed ignore them.
  GemmRaster tile_raster = GemmRaster::Auto;
  int tile_swizzle = 0;
};
void all_gather_gemm(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c, Tensor *gathered = nullptr,
                     const AllGatherGemmConfig &config = {});
// A tile order by its short name, as tdist-bench's --tile-order and Python's tile_order= spell it:
// "auto" (Auto, swizzle 0), or n (AlongN) or m (AlongM) and a swizzle of 1, 2, 4 or 8 ("n1",
// "m4"). Sets config's tile_raster and tile_swizzle; false (config unchanged) for another name.
// Inline: tools that share tdist-bench's options without the library read it too.
inline bool set_tile_order(AllGatherGemmConfig &config, std::string_view name) {
  if (name == "auto") {
    config.tile_raster = GemmRaster::Auto;
    config.tile_swizzle = 0;
    return true;
  }
  if (name.size() != 2 || (name[0] != 'n' && name[0] != 'm') ||
      (name[1] != '1' && name[1] != '2' && name[1] != '4' && name[1] != '8')) {
    return false;
  }
  config.tile_raster = name[0] == 'n' ? GemmRaster::AlongN : GemmRaster::AlongM;
  config.tile_swizzle = name[1] - '0';
  return true;
}

// a: [M, k_local] (this PE's columns of A), b: [k_local, N] (this PE's rows of B);
// c: [M / n_pes, N] on PE p = rows p*M/n_pes .. of sum over PEs of a x b. M a multiple of n_pes.
struct GemmReduceScatterConfig {
  int chunks_per_pe = 0;  // row chunks of each PE's output block; 1 .. 64 (0 = Auto)
  int tile_m = 0;         // 1 .. 4096 (0 = Auto)
  int tile_n = 0;         // 1 .. 4096 (0 = Auto)
  int programs = 0;
  GemmStrategy strategy = GemmStrategy::Auto;  // cuda Fused: one GEMM storing partial tiles into their owners
};
void gemm_reduce_scatter(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c,
                         const GemmReduceScatterConfig &config = {});

}  // namespace tdist::kernels

#pragma GCC visibility pop
