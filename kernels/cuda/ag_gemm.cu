// kernels/cuda/ag_gemm.cu - AllGather + GEMM on the cuda backend (the cuda body of
// tdist::kernels::all_gather_gemm), in two strategies.
//
// Decomposed: cuBLASLt GEMMs per chunk on the call's stream and copy-engine transfers on a side
// stream, ordered by stream memory operations on the context's signals (gemm_steps.h):
//   side stream  announce_ready (this PE's gathered buffer may be written), then per peer q in the
//                order q = me-1, me-2, ... (the order in which each consumer wants us): wait_ready(q),
//                push_shard: every chunk of our A rows into q's gathered buffer (copy engine), each
//                followed by its SET-epoch signal on q.
//   main stream  mma_own: our own rows x B at once, no wait; then per source PE me+1, me+2, ... and
//                per chunk: wait_chunk (GE epoch), mma_chunk (those gathered rows x B), the chunks
//                alternating between a second compute stream and the main one.
// Fused: one persistent GEMM whose tile scheduler waits for the rows a tile reads (below).
//
// No host synchronisation: every call only enqueues work, so it can be captured in a CUDA graph.
// The lane of a stream (stream_lane.h) is made at the first call on it: make that one outside a
// capture. Plans of new shapes (cublaslt_plan.h) are host-only and may be made while capturing;
// the first call of a shape outside a capture also times the heuristic's first few algorithms (on
// a private stream) and keeps the fastest, so make one call of each shape before capturing it.
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/gemm_steps.h"
#include "tdist/error.h"
#include "tdist/shmem.h"

namespace tdist::kernels::cuda {
namespace {

namespace dev = tdist::device;
using namespace gemm;
using shmem::SignalOp;

constexpr const char *kKernel = "tdist::kernels::all_gather_gemm";

#if TDIST_KERNELS_HAVE_CUTLASS
static_assert(fused::kMaxChunks == kMaxChunksPerPe);

// ---- AllGather + GEMM, fused ---------------------------------------------------------------------
//   main stream  enter_and_stage: announce entry, wait for every peer's (so every peer has finished
//                every earlier call: its gathered buffer may be written), and stage the call's epoch
//                in this PE's stage word; our own rows into our gathered buffer, each chunk followed
//                by the staged epoch copied into its arrival word; then ONE persistent GEMM over the
//                gathered rows (fused_gemm.h), whose scheduler starts on this PE's rows and waits,
//                tile by tile, for the chunks a tile reads; its tiles in the config's order
//                (tile_raster, tile_swizzle).
//   side stream  after enter_and_stage: every chunk of our rows into every peer's gathered buffer
//                (q = me-1, me-2, ...: each consumer's order), each followed by the staged epoch
//                copied into that PE's arrival word of (me, chunk): copies only, no kernel of ours.
// The push into a peer needs no further wait: enter_and_stage saw the peer enter this call. Nothing
// reads another PE's memory, so the call ends when our pushes are done (join) and our GEMM is.
// A copy within one GPU runs as a kernel of the driver's, on SMs: our own rows go before the GEMM,
// and where peers share the GPU (under MPS) each GEMM leaves kCopySms SMs free for their pushes.
// Without both, an H200 at 2 PEs hung: every SM held by the two GEMMs, each waiting for a copy.

// A word of this PE beside its arrival count (only this PE writes it): the epoch of the call in
// flight, where the copy engine can read it.
std::uint64_t *stageWord(Context &ctx) { return detail::slotAt(ctx.slot(0), detail::kSlotArrivals) + 1; }

__global__ void enter_and_stage(std::uint64_t *slot0, detail::SlotMap map, std::uint64_t *stage) {
  const std::uint64_t epoch = detail::call_epoch(slot0);
  detail::announce_and_wait_entry(slot0, map, epoch);
  if (threadIdx.x == 0) *stage = epoch;
}

// The SM producers of the fused AllGather + GEMM (config.producer_sms blocks beside the GEMM):
// for each peer in its consumers' order and each chunk, every block pushes its share of the
// chunk's bytes (the device library's putmem_block), fences, and counts itself done; the last
// block of a chunk resets its count (the next call's kernel comes after this one) and signals
// the chunk's arrival on that peer with the call's epoch.
struct PushPlan {
  const std::byte *mine = nullptr;  // this PE's rows of A
  std::byte *gathered = nullptr;    // the gathered buffer (symmetric)
  std::size_t row_bytes = 0;
  std::int64_t first_row = 0;       // this PE's first row in gathered
  std::uint64_t *arrival = nullptr;  // arrival word of (me, chunk 0); chunk c's is c * arrival_step words on
  std::ptrdiff_t arrival_step = 0;
  unsigned *counters = nullptr;     // one per (peer step, chunk)
  int chunks = 1;
  std::int32_t bounds[fused::kMaxChunks + 1] = {};
};

__global__ void push_chunks(std::uint64_t *slot0, PushPlan plan) {
  const int me = dev::rank(), n_pes = dev::num_ranks();
  const std::uint64_t epoch = detail::call_epoch(slot0);
  for (int s = 1; s < n_pes; ++s) {
    const int q = (me - s + n_pes) % n_pes;
    for (int ch = 0; ch < plan.chunks; ++ch) {
      const std::int64_t rows = plan.bounds[ch + 1] - plan.bounds[ch];
      if (rows == 0) continue;  // no tile reads an empty chunk: it has no signal either
      const std::size_t bytes = static_cast<std::size_t>(rows) * plan.row_bytes;
      const std::size_t per = ((bytes + gridDim.x - 1) / gridDim.x + 15) / 16 * 16;
      const std::size_t lo = blockIdx.x * per < bytes ? blockIdx.x * per : bytes;
      const std::size_t hi = lo + per < bytes ? lo + per : bytes;
      const std::size_t at = static_cast<std::size_t>(plan.bounds[ch]) * plan.row_bytes;
      if (hi > lo)
        dev::putmem_block(plan.gathered + static_cast<std::size_t>(plan.first_row) * plan.row_bytes + at + lo,
                          plan.mine + at + lo, hi - lo, q);
      dev::fence();  // this thread's stores before the count
      __syncthreads();
      if (threadIdx.x == 0) {
        unsigned *count = plan.counters + (s - 1) * plan.chunks + ch;
        if (atomicAdd(count, 1u) + 1 == gridDim.x) {
          *count = 0;
          dev::fence();
          dev::signal_op(plan.arrival + ch * plan.arrival_step, epoch, SignalOp::Set, q);
        }
      }
    }
  }
}

void allGatherGemmFused(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c, Tensor &gathered,
                        const AllGatherGemmConfig &config) {
  constexpr const char *kernel = kKernel;
  const int me = shmem::my_pe(), n_pes = shmem::n_pes();
  const int chunks = config.chunks_per_pe;
  const std::int64_t m_local = a.shape[0], k = a.shape[1], n = b.shape[1];
  const std::size_t a_row_bytes = static_cast<std::size_t>(k) * sizeof(__nv_bfloat16);
  requireDisjointSlots(kernel, ctx, n_pes, chunks);

  DeviceGuard device(tc::device());
  const Streams streams = streamsFor(ctx);
  tc::StreamSpan call_span(streams.main, Step::Call, "all_gather_gemm");
  Lane &l = *streams.lane;
  const std::vector<std::int64_t> bound = chunkBounds(m_local, chunks);
  auto *gath = static_cast<std::byte *>(gathered.data);
  const auto *mine = static_cast<const std::byte *>(a.data);
  std::uint64_t *stage = stageWord(ctx);

  enter_and_stage<<<1, 32, 0, streams.main>>>(ctx.slot(0), detail::SlotMap{n_pes}, stage);
  check_launch("enter_and_stage");
  check(cudaEventRecord(l.entry, streams.main), "cudaEventRecord");
  check(cudaStreamWaitEvent(l.side, l.entry, 0), "cudaStreamWaitEvent");
  // Our own rows on the main stream, before the GEMM (a copy within one GPU needs SMs, above);
  // the peers' by stream copies or by the SM producers.
  const int producers = n_pes > 1 ? config.producer_sms : 0;
  if (producers > 0) {
    PushPlan plan;
    plan.mine = mine;
    plan.gathered = gath;
    plan.row_bytes = a_row_bytes;
    plan.first_row = me * m_local;
    plan.arrival = arrivalSlot(ctx, chunks, me, 0);
    plan.arrival_step = -static_cast<std::ptrdiff_t>(detail::kSlotWords);  // arrival words count down
    plan.counters = l.push_counters;
    plan.chunks = chunks;
    for (int ch = 0; ch <= chunks; ++ch) plan.bounds[ch] = static_cast<std::int32_t>(bound[ch]);
    tc::StreamSpan span(l.side, Step::Move, "push_chunks_sm");
    push_chunks<<<producers, 512, 0, l.side>>>(ctx.slot(0), plan);
    check_launch("push_chunks");
  }
  for (int s = 0; s < (producers > 0 ? 1 : n_pes); ++s) {
    const int q = (me - s + n_pes) % n_pes;
    cudaStream_t on = q == me ? streams.main : l.side;
    for (int ch = 0; ch < chunks; ++ch) {
      const std::int64_t rows = bound[ch + 1] - bound[ch];
      if (rows == 0) continue;  // no tile reads an empty chunk: it has no signal either
      const std::size_t row = static_cast<std::size_t>(me * m_local + bound[ch]);
      tc::StreamSpan span(on, Step::Move, "push_chunk", q, ch);
      tc::putmem_on_stream(gath + row * a_row_bytes, mine + bound[ch] * a_row_bytes, rows * a_row_bytes, q, on);
      tc::putmem_on_stream(arrivalSlot(ctx, chunks, me, ch), stage, sizeof(std::uint64_t), q, on);
    }
  }
  const std::int64_t m = m_local * n_pes;
  if (m > 0 && n > 0) {
    fused::RowWaits waits;
    waits.arrivals = arrivalSlot(ctx, chunks, 0, 0);
    waits.arrival_step = -static_cast<std::ptrdiff_t>(detail::kSlotWords);  // arrival words count down
    waits.slot0 = ctx.slot(0);
    waits.rows_per_source = m_local;
    waits.sources = n_pes;
    waits.first = me;
    waits.chunks = chunks;
    for (int ch = 0; ch <= chunks; ++ch) waits.bounds[ch] = static_cast<std::int32_t>(bound[ch]);
    // The tile order as resolved (tdist/kernels/tuning.h): never Auto here.
    const fused::Raster raster{.along_m = config.tile_raster == GemmRaster::AlongM, .swizzle = config.tile_swizzle};
    tc::StreamSpan span(streams.main, Step::Compute, "gemm_fused");
    fused::gemmBf16(gath, b.data, c.data, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), waits,
                    std::max(2, fusedCtas(config.programs) - producers), streams.main, kernel, raster);
  }
  join(ctx, streams);
}
#endif

}  // namespace

void allGatherGemm(Context &ctx, const AllGatherGemmCall &call) {
  const auto &[a, b, c, gathered, config] = call;
  constexpr const char *kernel = kKernel;
  if (runsFused(config.strategy, kernel, "K", a, b, c)) {
#if TDIST_KERNELS_HAVE_CUTLASS
    allGatherGemmFused(ctx, a, b, c, gathered, config);
#endif
    return;
  }
  const int me = shmem::my_pe(), n_pes = shmem::n_pes();
  const int chunks = config.chunks_per_pe;
  const std::int64_t m_local = a.shape[0], k = a.shape[1], n = b.shape[1];
  const std::size_t es = dtypeSize(a.dtype);
  const std::size_t a_row_bytes = static_cast<std::size_t>(k) * es;
  const std::size_t c_row_bytes = static_cast<std::size_t>(n) * es;
  const cudaDataType_t type = cudaType(a.dtype);
  requireDisjointSlots(kernel, ctx, n_pes, chunks);

  DeviceGuard device(tc::device());
  const Streams streams = streamsFor(ctx);
  tc::StreamSpan call_span(streams.main, Step::Call, "all_gather_gemm");
  cudaStream_t side = streams.lane->side;
  const std::vector<std::int64_t> bound = chunkBounds(m_local, chunks);
  auto *gath = static_cast<std::byte *>(gathered.data);
  const auto *mine = static_cast<const std::byte *>(a.data);
  auto *out = static_cast<std::byte *>(c.data);
  auto rowsOf = [&](int ch) { return bound[ch + 1] - bound[ch]; };  // 0: every PE skips the chunk alike

  // Side stream: every chunk of our rows into q's gathered buffer, each with its signal.
  auto push_shard = [&](int q) {
    waitReady(ctx, streams, q);
    for (int ch = 0; ch < chunks; ++ch) {
      if (rowsOf(ch) == 0) continue;
      const std::size_t row = static_cast<std::size_t>(me * m_local + bound[ch]);
      pushWithSignal(ctx, streams, gath + row * a_row_bytes, mine + bound[ch] * a_row_bytes, rowsOf(ch) * a_row_bytes,
                     chunks, me, ch, q);
    }
  };
  // Main stream: our own rows x B at once, from a itself: no wait.
  auto mma_own = [&] {
    tc::StreamSpan span(streams.main, Step::Compute, "gemm_own", me);
    mma(streams, streams.main, type, type, mine, k, b.data, n, out + me * m_local * c_row_bytes, n, m_local, n, k);
  };
  // Main stream: chunk ch of src's rows, once it is in our gathered buffer.
  auto wait_chunk = [&](cudaStream_t on, int src, int ch) { waitArrivals(ctx, on, chunks, src, ch, 1, -1); };
  auto mma_chunk = [&](cudaStream_t on, int src, int ch) {
    const std::int64_t row = src * m_local + bound[ch];
    tc::StreamSpan span(on, Step::Compute, "gemm_chunk", src, ch);
    mma(streams, on, type, type, gath + row * a_row_bytes, k, b.data, n, out + row * c_row_bytes, n, rowsOf(ch), n,
        k);
  };

  forkAndAnnounceReady(ctx, streams, n_pes);
  mma_own();  // enqueued first, so that the GPU computes while the host enqueues the transfers
  // The peer that consumes our rows at its step s is me - s: each gets ours when it wants them.
  for (int s = 1; s < n_pes; ++s) push_shard((me - s + n_pes) % n_pes);
  // Our own rows in the gathered output when the caller gave one (the scratch needs none: the GEMM
  // reads them from a); last, as nothing in the call waits for them.
  if (gath != ctx.scratch() && m_local > 0) {
    tc::StreamSpan span(side, Step::Move, "copy_own_rows", me);
    check(cudaMemcpyAsync(gath + me * m_local * a_row_bytes, mine, m_local * a_row_bytes, cudaMemcpyDeviceToDevice,
                          side),
          "cudaMemcpyAsync(own rows)");
  }
  // The chunk GEMMs alternate between alt and main, first alt (main still runs mma_own): one
  // GEMM's last wave of tiles overlaps the next one's first, where a GEMM alone would leave SMs
  // idle (wave quantization). They write disjoint rows of c, and each waits for its own chunk.
  check(cudaStreamWaitEvent(streams.lane->alt, streams.lane->entry, 0), "cudaStreamWaitEvent");
  int issued = 0;
  for (int s = 1; s < n_pes; ++s) {  // swizzle: from me+1 on
    const int src = (me + s) % n_pes;
    for (int ch = 0; ch < chunks; ++ch) {
      if (rowsOf(ch) == 0) continue;
      cudaStream_t on = issued++ % 2 == 0 ? streams.lane->alt : streams.main;
      wait_chunk(on, src, ch);
      mma_chunk(on, src, ch);
    }
  }
  check(cudaEventRecord(streams.lane->alt_done, streams.lane->alt), "cudaEventRecord");
  check(cudaStreamWaitEvent(streams.main, streams.lane->alt_done, 0), "cudaStreamWaitEvent");
  join(ctx, streams);
}

}  // namespace tdist::kernels::cuda
