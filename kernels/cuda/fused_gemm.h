// kernels/cuda/fused_gemm.h - the tile-centric GEMM of the fused strategy: a persistent,
// warp-specialized bf16 GEMM for sm_90a (CUTLASS/CuTe collectives: TMA loads into a multi-stage
// shared-memory pipeline, wgmma, one producer and two consumer warpgroups) whose tile scheduler is
// ours (fused_gemm.cu):
//
//   - ROW ROTATION: the rows of C are `sources` blocks of `rows_per_source` rows (a block per PE
//     in AllGather + GEMM); tiles are handed out block by block, starting with block `first`
//     (this PE's own rows), then first + 1, ..., so that the first waves need nothing from a peer.
//   - ROW WAITS: before the producer warp issues the TMA loads of a tile, it waits until every
//     chunk of rows the tile reads has arrived: the arrival word of (block p, chunk c) at
//     arrivals + (p * chunks + c) * arrival_step is at least `epoch` (acquire, with the device
//     library's signal_wait_until and its deadline), then orders its TMA loads after the wait
//     (fence.proxy.async: the data came through the generic proxy, TMA reads through the async one).
//     Chunk c of a block is rows [bounds[c], bounds[c + 1]) of it.
//
// Internal to the kernel library and its benchmarks; built only where the CUTLASS headers are
// (TDIST_KERNELS_HAVE_CUTLASS).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace tdist::kernels::cuda::fused {

constexpr int kMaxChunks = 64;

struct RowWaits {
  std::uint64_t *arrivals = nullptr;  // nullptr: no waits (the GEMM alone, rotated)
  std::ptrdiff_t arrival_step = 0;    // words from one arrival word to the next
  std::uint64_t epoch = 0;            // the value every arrival word reaches (>=), unless:
  std::uint64_t *slot0 = nullptr;     // set: the call's device epoch instead (common.cuh), for graphs
  std::int64_t rows_per_source = 0;   // 0: one block of all rows (no rotation)
  int sources = 1;
  int first = 0;                      // the block whose tiles come first
  int chunks = 1;                     // 1 .. kMaxChunks
  std::int32_t bounds[kMaxChunks + 1] = {};
};

// The tile of C one CTA computes, and the GEMM's cluster.
constexpr int kTileM = 128;
constexpr int kTileN = 256;

// The order in which the persistent CTAs take the tiles: along N (consecutive tiles share their
// rows, so a wave needs few row chunks: the default) or along M, in groups of `swizzle` (1, 2, 4
// or 8) tiles across the other dimension, which share their loads in L2.
struct Raster {
  bool along_m = false;
  int swizzle = 1;
};

// C [m, n] = A [m, k] x B [k, n], bf16 row-major, f32 accumulation, on `stream`; at most
// `max_ctas` persistent CTAs (0: one per SM). k and n multiples of 8 (16-byte TMA rows).
// Throws tdist::Error with `kernel` in the message when CUTLASS refuses the problem.
__attribute__((visibility("default"))) void gemmBf16(const void *a, const void *b, void *c, int m, int n, int k,
                                                     const RowWaits &waits, int max_ctas, cudaStream_t stream,
                                                     const char *kernel, const Raster &raster = {});

// GEMM + ReduceScatter's side (fused_gemm.cu, gemm_rs.cu): the tiles of one owner's block of rows
// are a batch; the scheduler hands out the batches from owner `first_owner` on (the PE after this
// one, so that this PE's own block comes last), and after the epilogue's stores of a tile have
// landed (the TMA stores' bulk group complete, then fence.proxy.async), one thread of the
// consumers sets the owner's flag of (this PE, tile) to the call's epoch with the device
// library's signal_op. Tile t of a block is (row tile t / tiles_n, column tile t % tiles_n).
struct TileNotify {
  std::uint64_t *flags = nullptr;  // symmetric: the flag of (src, tile) is flags[src * tiles + tile]
  std::uint64_t *slot0 = nullptr;  // the call's device epoch (common.cuh)
  int me = 0;                      // this PE: the src of its flags
  int owners = 1;                  // the batches
  int first_owner = 0;
};

// Tiles of a block of `rows` rows and n columns, the unit of TileNotify's flags.
constexpr int tilesOf(std::int64_t rows, std::int64_t n) {
  return static_cast<int>(((rows + kTileM - 1) / kTileM) * ((n + kTileN - 1) / kTileN));
}

// For every owner l: D_l [m, n] f32 (ld n) at d + l * d_owner_stride elements = A_l x B, where A_l
// is rows l*m .. of a [owners * m, k] (bf16, row-major) and B [k, n] bf16 is shared; one persistent
// kernel, the tiles in the order above, each notified. k and n multiples of 8; d_owner_stride a
// multiple of 4 (16-byte TMA strides). Throws like gemmBf16.
__attribute__((visibility("default"))) void gemmBf16ToOwners(const void *a, const void *b, float *d,
                                                             std::int64_t d_owner_stride, int m, int n, int k,
                                                             const TileNotify &notify, int max_ctas,
                                                             cudaStream_t stream, const char *kernel);

}  // namespace tdist::kernels::cuda::fused
