// kernels/cuda/gemm_rs.cu - GEMM + ReduceScatter on the cuda backend (the cuda body of
// tdist::kernels::gemm_reduce_scatter), in two strategies.
//
// Decomposed (gemm_steps.h):
//   main stream  per owner q = me+1, me+2, ... (ring order, own block last) and per chunk: mma_partial
//                (a's rows of q's block x b, f32) into a send buffer; then mma_own into our own
//                receive slot; then per chunk: wait_partials (every PE's) and reduce_chunk (PE order
//                0..n-1, f32 accumulation, one rounding).
//   side stream  announce_ready (our receive slots may be written), then per partial: notify_owner,
//                the push of the send buffer into q's receive slot [src = me] with a SET-epoch signal.
// Fused: one persistent GEMM storing partial tiles into their owners (below).
// Both sum the partials with the library's deterministic reduction (common.cuh, reduce_vectors):
// every element of c is PE 0's partial + PE 1's + ... in f32, rounded once to c's dtype.
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/gemm_rs_reduce.cuh"
#include "kernels/cuda/gemm_steps.h"
#include "tdist/error.h"
#include "tdist/shmem.h"

namespace tdist::kernels::cuda {
namespace {

namespace dev = tdist::device;
using namespace gemm;
using shmem::Cmp;

constexpr const char *kKernel = "tdist::kernels::gemm_reduce_scatter";

// ---- GEMM + ReduceScatter, fused -----------------------------------------------------------------
//   main stream  enter_and_reset: zero this PE's tile flags (only peers' GEMMs set them, each after
//                seeing our entry), announce entry, wait for every peer's; then ONE persistent GEMM
//                (fused_gemm.h, gemmBf16ToOwners) whose batches are the owners' blocks, from owner
//                me+1 on (our own last): the epilogue stores each f32 partial tile straight into its
//                owner's receive slot [src = me] (TMA stores into the peer's heap), and once they
//                have landed sets the owner's flag of (me, tile); then reduce_tiles: each tile of our
//                block, once every peer's flag of it is set, is the n partials summed in PE order in
//                f32 and rounded once into c, the decomposed strategy's reduction.
// Scratch: the n receive slots of [M / n_pes, N] f32, as decomposed, then n x tiles flag words.

#if TDIST_KERNELS_HAVE_CUTLASS
__global__ void enter_and_reset(std::uint64_t *slot0, detail::SlotMap map, std::uint64_t *flags, int count) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) reinterpret_cast<volatile std::uint64_t *>(flags)[i] = 0;
  __syncthreads();
  __threadfence_system();  // the zeros before the entry that lets peers set them
  detail::announce_and_wait_entry(slot0, map, detail::call_epoch(slot0));
}

// 1024 threads per block: enough loads in flight for a memory-bound sum on the few SMs the grid
// may take.
constexpr int kReduceTileThreads = 1024;

// Each tile of our block, once every peer's flag of it is set: the n partials summed in PE order
// into c (N is a multiple of 8 on this path, the tiles' columns multiples of 256, the slots
// 16-byte aligned: whole vectors of four f32).
template <class Out>
__global__ void __launch_bounds__(kReduceTileThreads)
    reduce_tiles(Out *out, const float *partial, std::size_t slot_stride, std::uint64_t *flags, std::uint64_t *slot0,
                 int n_pes, int me, std::int64_t rows, std::int64_t n, int tiles_n, int tiles) {
  const std::uint64_t epoch = detail::call_epoch(slot0);
  for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += static_cast<int>(gridDim.x)) {
    for (int p = threadIdx.x; p < n_pes; p += blockDim.x)
      if (p != me) dev::signal_wait_until(flags + static_cast<std::size_t>(p) * tiles + tile, Cmp::GE, epoch);
    __syncthreads();
    const std::int64_t r0 = static_cast<std::int64_t>(tile / tiles_n) * fused::kTileM;
    const std::int64_t c0 = static_cast<std::int64_t>(tile % tiles_n) * fused::kTileN;
    const std::int64_t tile_rows = rows - r0 < fused::kTileM ? rows - r0 : fused::kTileM;
    const std::int64_t tile_cols = n - c0 < fused::kTileN ? n - c0 : fused::kTileN;
    reducePartialTile(out, partial, slot_stride, n_pes, n, r0, c0, tile_rows, tile_cols);
    __syncthreads();  // the next tile's waits start after every thread is done with this one
  }
}

void gemmReduceScatterFused(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c,
                            const GemmReduceScatterConfig &config) {
  constexpr const char *kernel = kKernel;
  const int me = shmem::my_pe(), n_pes = shmem::n_pes();
  const std::int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  const std::int64_t block = m / n_pes;
  requireDisjointSlots(kernel, ctx, n_pes, 1);
  const int tiles_n = static_cast<int>((n + fused::kTileN - 1) / fused::kTileN);
  const int tiles = fused::tilesOf(block, n);
  const std::size_t p_row_bytes = static_cast<std::size_t>(n) * sizeof(float);
  const std::size_t slot_bytes = static_cast<std::size_t>(block) * p_row_bytes;
  const std::size_t flags_offset = alignUp(n_pes * slot_bytes);
  const std::size_t needed = flags_offset + static_cast<std::size_t>(n_pes) * tiles * sizeof(std::uint64_t);
  if (needed > ctx.scratchBytes())
    throw Error(ErrorCode::InvalidParam,
                std::string(kernel) + ": the context's scratch holds " + std::to_string(ctx.scratchBytes()) +
                    " bytes, strategy Fused needs " + std::to_string(needed) +
                    " (n_pes f32 partials of [M / n_pes, N] and a flag per tile and PE; "
                    "ContextOptions.scratch_bytes)");
  auto *receive = static_cast<std::byte *>(ctx.scratch());
  auto *flags = reinterpret_cast<std::uint64_t *>(receive + flags_offset);

  // Our partial of owner l's block goes to PE l's receive slot [me]: the same offset in every PE's
  // heap, whose segments lie one stride apart in this PE's address space.
  void *mine_at_0 = tdist::peerPointer(receive + me * slot_bytes, 0);
  std::ptrdiff_t heap_stride = 0;
  if (n_pes > 1) {
    void *at_1 = tdist::peerPointer(receive + me * slot_bytes, 1);
    heap_stride = at_1 == nullptr || mine_at_0 == nullptr ? 0 : static_cast<std::byte *>(at_1) - static_cast<std::byte *>(mine_at_0);
  }
  for (int pe = 0; pe < n_pes; ++pe) {
    auto *at = static_cast<std::byte *>(tdist::peerPointer(receive + me * slot_bytes, pe));
    if (mine_at_0 == nullptr || at != static_cast<std::byte *>(mine_at_0) + pe * heap_stride ||
        heap_stride % 16 != 0) {
      throw Error(ErrorCode::NotSupported, std::string(kernel) +
                                               ": strategy Fused stores into every PE's heap through one "
                                               "address range; PE " + std::to_string(pe) +
                                               "'s heap is not one stride from the others here");
    }
  }

  DeviceGuard device(tc::device());
  const Streams streams = streamsFor(ctx);
  tc::StreamSpan call_span(streams.main, Step::Call, "gemm_reduce_scatter");
  enter_and_reset<<<1, 256, 0, streams.main>>>(ctx.slot(0), detail::SlotMap{n_pes}, flags, n_pes * tiles);
  check_launch("enter_and_reset");
  if (block > 0 && n > 0) {
    fused::TileNotify notify;
    notify.flags = flags;
    notify.slot0 = ctx.slot(0);
    notify.me = me;
    notify.owners = n_pes;
    notify.first_owner = (me + 1) % n_pes;
    tc::StreamSpan gemm(streams.main, Step::Compute, "gemm_fused");
    fused::gemmBf16ToOwners(a.data, b.data, static_cast<float *>(mine_at_0),
                            static_cast<std::int64_t>(heap_stride / static_cast<std::ptrdiff_t>(sizeof(float))),
                            static_cast<int>(block), static_cast<int>(n), static_cast<int>(k), notify,
                            fusedCtas(config.programs), streams.main, kernel);
    // At most the GEMM's share of blocks: they wait for peers' tiles, and where peers share this GPU
    // their GEMMs must still find their SMs.
    tc::StreamSpan reduce(streams.main, Step::Compute, "reduce_tiles");
    reduce_tiles<<<std::min(tiles, fusedCtas(0)), kReduceTileThreads, 0, streams.main>>>(
        static_cast<__nv_bfloat16 *>(c.data), reinterpret_cast<const float *>(receive),
        static_cast<std::size_t>(block) * n, flags, ctx.slot(0), n_pes, me, block, n, tiles_n, tiles);
    check_launch("reduce_tiles");
  }
  finish(ctx, streams.main);
}
#endif

// ---- GEMM + ReduceScatter ------------------------------------------------------------------------
// Determinism over speed: the partials travel in f32 and the owner sums them in PE order in a small
// kernel once they all arrived. The alternative, a ring whose every GEMM adds the partial received
// from the neighbour in its epilogue (beta = 1, C = the receive buffer), saves that kernel and half
// the bytes (bf16 partials), but sums in ring order, which differs from owner to owner, and rounds
// at every hop.
//
// Scratch: n_pes receive slots of [M / n_pes, N] f32 (slot p: PE p's partial of our block), then
// one or two send buffers of a chunk's rows [rows, N] f32, used in turn.

}  // namespace

void gemmReduceScatter(Context &ctx, const GemmReduceScatterCall &call) {
  const auto &[a, b, c, config] = call;
  constexpr const char *kernel = kKernel;
  if (runsFused(config.strategy, kernel, "K / n_pes", a, b, c)) {
#if TDIST_KERNELS_HAVE_CUTLASS
    gemmReduceScatterFused(ctx, a, b, c, config);
#endif
    return;
  }
  const int me = shmem::my_pe(), n_pes = shmem::n_pes();
  const int chunks = config.chunks_per_pe;
  const std::int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  const std::int64_t block = m / n_pes;
  const std::size_t es = dtypeSize(a.dtype);
  const cudaDataType_t type = cudaType(a.dtype);
  const auto *a_bytes = static_cast<const std::byte *>(a.data);
  const std::size_t a_row_bytes = static_cast<std::size_t>(k) * es;

  DeviceGuard device(tc::device());
  if (n_pes == 1) {  // nothing to reduce: one GEMM straight into c
    const Streams streams = streamsFor(ctx);
    tc::StreamSpan call_span(streams.main, Step::Call, "gemm_reduce_scatter");
    tc::StreamSpan gemm(streams.main, Step::Compute, "gemm_own", me);
    mma(streams, streams.main, type, type, a.data, k, b.data, n, c.data, n, m, n, k);
    finish(ctx, streams.main);
    return;
  }
  requireDisjointSlots(kernel, ctx, n_pes, chunks);

  const std::vector<std::int64_t> bound = chunkBounds(block, chunks);
  auto rowsOf = [&](int ch) { return bound[ch + 1] - bound[ch]; };  // 0: every PE skips the chunk alike
  std::int64_t max_rows = 0;
  for (int ch = 0; ch < chunks; ++ch) max_rows = std::max(max_rows, rowsOf(ch));
  const std::size_t p_row_bytes = static_cast<std::size_t>(n) * sizeof(float);
  const std::size_t slot_bytes = static_cast<std::size_t>(block) * p_row_bytes;
  const int send_buffers = (n_pes - 1) * chunks >= 2 ? 2 : 1;
  const std::size_t send_offset = alignUp(n_pes * slot_bytes);
  const std::size_t send_bytes = alignUp(static_cast<std::size_t>(max_rows) * p_row_bytes);
  const std::size_t needed = send_offset + send_buffers * send_bytes;
  if (needed > ctx.scratchBytes())
    throw Error(ErrorCode::InvalidParam,
                std::string(kernel) + ": the context's scratch holds " + std::to_string(ctx.scratchBytes()) +
                    " bytes, this call needs " + std::to_string(needed) +
                    " (n_pes f32 partials of [M / n_pes, N] and the send buffers; ContextOptions.scratch_bytes)");

  const Streams streams = streamsFor(ctx);
  tc::StreamSpan call_span(streams.main, Step::Call, "gemm_reduce_scatter");
  Lane &l = *streams.lane;
  auto *receive = static_cast<std::byte *>(ctx.scratch());  // receive slot p at p * slot_bytes
  std::byte *send[2] = {receive + send_offset, receive + send_offset + send_bytes};
  int next_buffer = 0;
  bool in_flight[2] = {false, false};

  // Main stream: the partial of q's chunk ch into the next send buffer, once its last push is done.
  auto mma_partial = [&](int q, int ch) {
    const int buffer = next_buffer;
    next_buffer = (next_buffer + 1) % send_buffers;
    if (in_flight[buffer]) check(cudaStreamWaitEvent(streams.main, l.push_done[buffer], 0), "cudaStreamWaitEvent");
    tc::StreamSpan span(streams.main, Step::Compute, "gemm_partial", q, ch);
    mma(streams, streams.main, type, CUDA_R_32F, a_bytes + (q * block + bound[ch]) * a_row_bytes, k, b.data, n,
        send[buffer], n, rowsOf(ch), n, k);
    check(cudaEventRecord(l.gemm_done[buffer], streams.main), "cudaEventRecord");
    return buffer;
  };
  // Side stream: that buffer into q's receive slot [src = me], with its signal.
  auto notify_owner = [&](int q, int ch, int buffer) {
    check(cudaStreamWaitEvent(l.side, l.gemm_done[buffer], 0), "cudaStreamWaitEvent");
    pushWithSignal(ctx, streams, receive + me * slot_bytes + bound[ch] * p_row_bytes, send[buffer],
                   rowsOf(ch) * p_row_bytes, chunks, me, ch, q);
    check(cudaEventRecord(l.push_done[buffer], l.side), "cudaEventRecord");
    in_flight[buffer] = true;
  };
  // Main stream: our own block's partial straight into our receive slot.
  auto mma_own = [&] {
    tc::StreamSpan span(streams.main, Step::Compute, "gemm_own", me);
    mma(streams, streams.main, type, CUDA_R_32F, a_bytes + me * block * a_row_bytes, k, b.data, n,
        receive + me * slot_bytes, n, block, n, k);
  };
  // Main stream: every PE's partial of chunk ch has arrived.
  auto wait_partials = [&](int ch) {
    waitArrivals(ctx, streams.main, chunks, 0, ch, n_pes, me);
  };
  // Main stream: rows of chunk ch of c = the partials summed in PE order.
  auto reduce_chunk = [&](int ch) {
    const auto *partial = reinterpret_cast<const float *>(receive + bound[ch] * p_row_bytes);
    const std::size_t count = static_cast<std::size_t>(rowsOf(ch)) * n;
    const std::size_t slot_stride = static_cast<std::size_t>(block) * n;
    tc::StreamSpan span(streams.main, Step::Compute, "reduce_chunk", me, ch);
    if (a.dtype == DType::BF16)
      reducePartials(static_cast<__nv_bfloat16 *>(c.data) + bound[ch] * n, partial, slot_stride, n_pes, count,
                     streams.main);
    else
      reducePartials(static_cast<float *>(c.data) + bound[ch] * n, partial, slot_stride, n_pes, count, streams.main);
  };

  forkAndAnnounceReady(ctx, streams, n_pes);
  for (int s = 1; s < n_pes; ++s) {  // ring order from me+1; our own block last
    const int q = (me + s) % n_pes;
    waitReady(ctx, streams, q);  // side stream, before the first push to q
    for (int ch = 0; ch < chunks; ++ch)
      if (rowsOf(ch) != 0) notify_owner(q, ch, mma_partial(q, ch));
  }
  mma_own();
  for (int ch = 0; ch < chunks; ++ch) {
    if (rowsOf(ch) == 0) continue;
    wait_partials(ch);
    reduce_chunk(ch);
  }
  join(ctx, streams);
}

}  // namespace tdist::kernels::cuda
