// kernels/cuda/gemm.cu - the cuda bodies of the overlap GEMMs (kernels/bodies.h): phase 1, a
// decomposition into cuBLASLt GEMMs per chunk on the call's stream and copy-engine transfers on a
// side stream, ordered by stream memory operations on the context's signals.
//
// AllGather + GEMM (allGatherGemm):
//   side stream  announce_ready (this PE's gathered buffer may be written), then per peer q in the
//                order q = me-1, me-2, ... (the order in which each consumer wants us): wait_ready(q),
//                push_shard: every chunk of our A rows into q's gathered buffer (copy engine), each
//                followed by its SET-epoch signal on q.
//   main stream  mma_own: our own rows x B at once, no wait; then per source PE me+1, me+2, ... and
//                per chunk: wait_chunk (GE epoch), mma_chunk (those gathered rows x B), the chunks
//                alternating between a second compute stream and the main one.
// GEMM + ReduceScatter (gemmReduceScatter):
//   main stream  per owner q = me+1, me+2, ... (ring order, own block last) and per chunk: mma_partial
//                (a's rows of q's block x b, f32) into a send buffer; then mma_own into our own
//                receive slot; then per chunk: wait_partials (every PE's) and reduce_chunk (PE order
//                0..n-1, f32 accumulation, one rounding).
//   side stream  announce_ready (our receive slots may be written), then per partial: notify_owner,
//                the push of the send buffer into q's receive slot [src = me] with a SET-epoch signal.
//
// Signals carry the device epoch of the call (kernels/cuda/common.cuh), never reset, each slot with
// one writer PE: entry[p] of the common slot map is PE p's "ready" (its buffers may be written),
// and the arrival slots, counted from the top of the context's slots, g(i) = ctx.slot(maxSignals
// - 1 - i), say g(p * chunks + c): chunk c from PE p has arrived. Signals and waits are one-block
// kernels that read the epoch on the device, so a captured graph replays correctly. Buffer reuse
// is safe by the entry handshake that every body shares: a PE announces "ready" on its side stream
// after an event of the call's stream, i.e. after every earlier call's reads of its buffers, and
// nobody writes into a peer's buffer before seeing that peer's ready for this epoch. So there is no
// barrier at the end of a call, and a fast PE is held back only where it would overwrite data still
// in use. The last kernel of a call (finish_gemm, after the join) records its epoch as finished.
//
// No host synchronisation: every call only enqueues work, so it can be captured in a CUDA graph. The
// per-process cache makes its side stream, events and workspace (cudaMalloc) at the first call on a
// stream: make that one outside a capture. Plans of new shapes (cuBLASLt descriptors, heuristic) are
// host-only and may be made while capturing; the first call of a shape outside a capture also
// times the heuristic's first few algorithms (on a private stream) and keeps the fastest, so make
// one call of each shape before capturing it.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/bodies.h"
#include "kernels/cuda/common.cuh"
#if TDIST_KERNELS_HAVE_CUTLASS
#include "kernels/cuda/fused_gemm.h"
#endif
#include "tdist/cuda.h"
#include "tdist/error.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::kernels::cuda {
namespace {

namespace tc = tdist::cuda;
using Step = tdist::trace::Category;  // of the stream spans (tc::StreamSpan) each step is
namespace dev = tdist::device;
using detail::slotAt;
using shmem::Cmp;
using shmem::SignalOp;

constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;  // cuBLASLt workspace per lane
constexpr std::size_t kBufferAlign = 256;
constexpr int kCandidates = 4;  // cuBLASLt algorithms timed per GEMM shape (docs/BENCHMARKS.md)

void check(cudaError_t status, const char *what) {
  if (status != cudaSuccess)
    throw Error(ErrorCode::Internal, std::string(what) + ": " + cudaGetErrorString(status));
}

void checkLt(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(ErrorCode::Internal, std::string(what) + ": cuBLASLt status " + std::to_string(int(status)) +
                                         " (" + cublasLtGetStatusString(status) + ")");
}

// Makes the PE's GPU current for the call and restores the caller's afterwards.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device) check(cudaSetDevice(device), "cudaSetDevice");
  }
  ~DeviceGuard() {
    int current = -1;
    if (cudaGetDevice(&current) == cudaSuccess && current != previous_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard &) = delete;
  DeviceGuard &operator=(const DeviceGuard &) = delete;

 private:
  int previous_ = 0;
};

// ---- the per-process cache -------------------------------------------------------------------
// A Context cannot hold them, so they live here, created on first use. The lanes (streams, events
// and 64 MiB of workspace each) are destroyed when the last Context is (releaseLanes), so that
// init/finalize cycles do not pile them up; the cuBLASLt handle and plans are kept for the
// process (CUDA objects must not be destroyed at static destruction, after the runtime may be gone).

// What the calls on one (device, call stream) share: the side stream, the events of its fork and
// join, and the cuBLASLt workspace (per call stream, so two streams never share one workspace).
struct Lane {
  cudaStream_t side = nullptr;
  cudaStream_t alt = nullptr;       // the second compute stream: chunk GEMMs alternate with main
  cudaEvent_t alt_done = nullptr;   // alt -> main: its GEMMs are done
  cudaEvent_t entry = nullptr;      // main -> side: the call's start
  cudaEvent_t side_done = nullptr;  // side -> main: the call's end
  cudaEvent_t gemm_done[2] = {};    // main -> side: a send buffer is filled
  cudaEvent_t push_done[2] = {};    // side -> main: a send buffer may be refilled
  void *workspace = nullptr;
  void *alt_workspace = nullptr;  // cuBLASLt's workspace of the GEMMs on alt
  unsigned *push_counters = nullptr;  // the fused AllGather + GEMM's SM producers: blocks done per chunk
};

// One GEMM shape, row-major: C[rows, n] = A[rows, k] x B[k, n], with its types, leading dimensions
// and the alignments of its pointers (which the heuristic's choice depends on).
struct GemmShape {
  cudaDataType_t ab = CUDA_R_16BF;  // A and B
  cudaDataType_t cd = CUDA_R_16BF;  // C (= D)
  std::int64_t rows = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  unsigned align_a = 0, align_b = 0, align_c = 0;
  auto key() const { return std::tie(ab, cd, rows, n, k, lda, ldb, ldc, align_a, align_b, align_c); }
  bool operator<(const GemmShape &other) const { return key() < other.key(); }
};

// cuBLASLt's algorithm type is an unnamed struct, whose destructor in a std::vector nvcc 13.0's
// front end fails on (an internal error): a named wrapper avoids it.
struct Algo {
  cublasLtMatmulAlgo_t algo;
};

// A cached cuBLASLt matmul of one shape: descriptors, the heuristic's first few algorithms and the
// fastest of them (timed at the first call of the shape outside a graph capture).
struct Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t layout_a = nullptr;  // column-major view: B^T [n, k]
  cublasLtMatrixLayout_t layout_b = nullptr;  // A^T [k, rows]
  cublasLtMatrixLayout_t layout_c = nullptr;  // C^T [n, rows]
  cublasLtMatmulAlgo_t algo{};                // the one every call uses
  std::vector<Algo> candidates;               // the heuristic's first few, best first
  bool timed = false;                         // algo is the fastest candidate, as timed once
};

struct DeviceCache {
  cublasLtHandle_t handle = nullptr;
  std::map<cudaStream_t, std::unique_ptr<Lane>> lanes;
  std::map<GemmShape, std::unique_ptr<Plan>> plans;
};

std::mutex cache_mutex;
std::map<int, DeviceCache *> &deviceCaches() {
  static auto *caches = new std::map<int, DeviceCache *>();  // kept for the process
  return *caches;
}

// Callers hold cache_mutex.
DeviceCache &deviceCache(int device) {
  DeviceCache *&cache = deviceCaches()[device];
  if (cache == nullptr) {
    auto fresh = std::make_unique<DeviceCache>();
    checkLt(cublasLtCreate(&fresh->handle), "cublasLtCreate");
    cache = fresh.release();
  }
  return *cache;
}

Lane &lane(DeviceCache &cache, cudaStream_t main) {
  std::unique_ptr<Lane> &slot = cache.lanes[main];
  if (!slot) {
    auto fresh = std::make_unique<Lane>();
    check(cudaStreamCreateWithFlags(&fresh->side, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check(cudaStreamCreateWithFlags(&fresh->alt, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    for (cudaEvent_t *event : {&fresh->entry, &fresh->side_done, &fresh->gemm_done[0], &fresh->gemm_done[1],
                               &fresh->push_done[0], &fresh->push_done[1], &fresh->alt_done})
      check(cudaEventCreateWithFlags(event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    check(cudaMalloc(&fresh->workspace, kWorkspaceBytes), "cudaMalloc(cuBLASLt workspace)");
    check(cudaMalloc(&fresh->alt_workspace, kWorkspaceBytes), "cudaMalloc(cuBLASLt workspace)");
    const std::size_t counters = sizeof(unsigned) * 64 * static_cast<std::size_t>(shmem::n_pes());  // chunks x peers
    check(cudaMalloc(&fresh->push_counters, counters), "cudaMalloc(push counters)");
    check(cudaMemset(fresh->push_counters, 0, counters), "cudaMemset(push counters)");
    slot = std::move(fresh);
  }
  return *slot;
}

// Destroys every lane (streams, events, workspaces): when no Context is left, nothing of the
// library runs on them (every Context synchronised its stream, which joins its lanes' streams).
void destroyLanes() {
  std::lock_guard<std::mutex> hold(cache_mutex);
  for (auto &[device, cache] : deviceCaches()) {
    int previous = 0;
    if (cudaGetDevice(&previous) != cudaSuccess || cudaSetDevice(device) != cudaSuccess) continue;
    for (auto &[stream, lane] : cache->lanes) {
      for (cudaStream_t s : {lane->side, lane->alt}) {
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
      }
      for (cudaEvent_t event : {lane->entry, lane->side_done, lane->gemm_done[0], lane->gemm_done[1],
                                lane->push_done[0], lane->push_done[1], lane->alt_done})
        cudaEventDestroy(event);
      for (void *memory : {lane->workspace, lane->alt_workspace, static_cast<void *>(lane->push_counters)})
        cudaFree(memory);
    }
    cache->lanes.clear();
    cudaSetDevice(previous);
  }
  cudaGetLastError();  // a failure here leaves nothing to undo
}

unsigned alignmentOf(const void *p) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  unsigned align = 256;
  while (align > 1 && address % align != 0) align /= 2;
  return align;
}

void setPreference(cublasLtMatmulPreference_t preference, cublasLtMatmulPreferenceAttributes_t attribute,
                   const void *value, std::size_t size) {
  checkLt(cublasLtMatmulPreferenceSetAttribute(preference, attribute, value, size),
          "cublasLtMatmulPreferenceSetAttribute");
}

// Row-major C = A x B as column-major C^T = B^T A^T: cuBLASLt's (m, n, k) = (n, rows, k), its A is
// our B (ld ldb), its B our A (ld lda), its C and D our C (ld ldc). f32 accumulation
// (CUBLAS_COMPUTE_32F) for bf16 and f32 alike, f32 scales.
Plan &plan(DeviceCache &cache, const GemmShape &shape) {
  std::unique_ptr<Plan> &slot = cache.plans[shape];
  if (slot) return *slot;
  auto fresh = std::make_unique<Plan>();
  checkLt(cublasLtMatmulDescCreate(&fresh->op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t no_transpose = CUBLAS_OP_N;
  checkLt(cublasLtMatmulDescSetAttribute(fresh->op, CUBLASLT_MATMUL_DESC_TRANSA, &no_transpose, sizeof no_transpose),
          "cublasLtMatmulDescSetAttribute(TRANSA)");
  checkLt(cublasLtMatmulDescSetAttribute(fresh->op, CUBLASLT_MATMUL_DESC_TRANSB, &no_transpose, sizeof no_transpose),
          "cublasLtMatmulDescSetAttribute(TRANSB)");
  checkLt(cublasLtMatrixLayoutCreate(&fresh->layout_a, shape.ab, shape.n, shape.k, shape.ldb),
          "cublasLtMatrixLayoutCreate(B)");
  checkLt(cublasLtMatrixLayoutCreate(&fresh->layout_b, shape.ab, shape.k, shape.rows, shape.lda),
          "cublasLtMatrixLayoutCreate(A)");
  checkLt(cublasLtMatrixLayoutCreate(&fresh->layout_c, shape.cd, shape.n, shape.rows, shape.ldc),
          "cublasLtMatrixLayoutCreate(C)");

  cublasLtMatmulPreference_t preference = nullptr;
  checkLt(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  const std::uint64_t workspace = kWorkspaceBytes;
  setPreference(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
  // cuBLASLt's A is our B, its B our A.
  const std::uint32_t align_a = shape.align_b, align_b = shape.align_a, align_c = shape.align_c;
  setPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a, sizeof align_a);
  setPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b, sizeof align_b);
  setPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c, sizeof align_c);
  setPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c, sizeof align_c);
  cublasLtMatmulHeuristicResult_t results[kCandidates] = {};
  int found = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(cache.handle, fresh->op, fresh->layout_a, fresh->layout_b, fresh->layout_c,
                                     fresh->layout_c, preference, kCandidates, results, &found);
  cublasLtMatmulPreferenceDestroy(preference);
  for (int i = 0; i < found; ++i)
    if (results[i].state == CUBLAS_STATUS_SUCCESS) fresh->candidates.push_back(Algo{results[i].algo});
  if (status != CUBLAS_STATUS_SUCCESS || fresh->candidates.empty())
    throw Error(ErrorCode::NotSupported,
                "cuBLASLt has no algorithm for a GEMM of " + std::to_string(shape.rows) + "x" +
                    std::to_string(shape.n) + "x" + std::to_string(shape.k) + " (status " +
                    std::to_string(int(status)) + ")");
  fresh->algo = fresh->candidates[0].algo;
  fresh->timed = fresh->candidates.size() == 1;
  slot = std::move(fresh);
  return *slot;
}

// Times every candidate of the shape once, on operands of its own on a private stream (so the
// host waits for nothing that a peer may hold up), and keeps the fastest. Where that cannot be
// done (memory, a failed run), the heuristic's first stays. Not while capturing: then the call
// uses the cached choice or the first, and a later call outside capture times it.
void timeCandidates(DeviceCache &cache, const GemmShape &shape, Plan &p) {
  const std::size_t ab = shape.ab == CUDA_R_16BF ? 2 : 4, cd = shape.cd == CUDA_R_16BF ? 2 : 4;
  const std::size_t bytes_a = static_cast<std::size_t>(shape.rows) * shape.lda * ab;
  const std::size_t bytes_b = static_cast<std::size_t>(shape.k) * shape.ldb * ab;
  const std::size_t bytes_c = static_cast<std::size_t>(shape.rows) * shape.ldc * cd;
  cudaStream_t s = nullptr;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return;
  void *a = nullptr, *b = nullptr, *c = nullptr, *workspace = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  bool ok = cudaMallocAsync(&a, bytes_a, s) == cudaSuccess && cudaMallocAsync(&b, bytes_b, s) == cudaSuccess &&
            cudaMallocAsync(&c, bytes_c, s) == cudaSuccess &&
            cudaMallocAsync(&workspace, kWorkspaceBytes, s) == cudaSuccess &&
            cudaMemsetAsync(a, 0, bytes_a, s) == cudaSuccess && cudaMemsetAsync(b, 0, bytes_b, s) == cudaSuccess &&
            cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess;
  const float alpha = 1.0f, beta = 0.0f;
  float best = 0.0f;
  for (std::size_t i = 0; ok && i < p.candidates.size(); ++i) {
    auto run = [&] {
      return cublasLtMatmul(cache.handle, p.op, &alpha, b, p.layout_a, a, p.layout_b, &beta, c, p.layout_c, c,
                            p.layout_c, &p.candidates[i].algo, workspace, kWorkspaceBytes, s) == CUBLAS_STATUS_SUCCESS;
    };
    if (!run()) continue;  // a candidate that does not run here is skipped
    float ms = 0.0f;
    ok = cudaEventRecord(start, s) == cudaSuccess && run() && run() && run() &&
         cudaEventRecord(stop, s) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess &&
         cudaEventElapsedTime(&ms, start, stop) == cudaSuccess;
    if (ok && (best == 0.0f || ms < best)) {
      best = ms;
      p.algo = p.candidates[i].algo;
    }
  }
  for (void *buffer : {a, b, c, workspace})
    if (buffer != nullptr) cudaFreeAsync(buffer, s);
  cudaStreamSynchronize(s);
  if (start != nullptr) cudaEventDestroy(start);
  if (stop != nullptr) cudaEventDestroy(stop);
  cudaStreamDestroy(s);
  cudaGetLastError();  // a failure here only leaves the first choice
  if (!ok) p.algo = p.candidates[0].algo;
  p.timed = true;
}

// What one call of a body needs: the stream, its lane and the device's cache.
struct Streams {
  DeviceCache *cache = nullptr;
  Lane *lane = nullptr;
  cudaStream_t main = nullptr;
};

Streams streamsFor(Context &ctx) {
  Streams streams;
  streams.main = static_cast<cudaStream_t>(ctx.stream());
  std::lock_guard<std::mutex> hold(cache_mutex);
  streams.cache = &deviceCache(tc::device());
  streams.lane = &lane(*streams.cache, streams.main);
  return streams;
}

// C[rows, n] (ld ldc) = A[rows, k] (ld lda) x B[k, n] (ld ldb) on stream s; rows == 0 or n == 0
// does nothing, k == 0 clears C (cuBLASLt has no algorithm for an empty dimension).
void mma(const Streams &streams, cudaStream_t s, cudaDataType_t ab, cudaDataType_t cd, const void *a,
         std::int64_t lda, const void *b, std::int64_t ldb, void *c, std::int64_t ldc, std::int64_t rows,
         std::int64_t n, std::int64_t k) {
  if (rows == 0 || n == 0) return;
  if (k == 0) {
    const std::size_t element = cd == CUDA_R_16BF ? 2 : 4;
    check(cudaMemset2DAsync(c, static_cast<std::size_t>(ldc) * element, 0,
                                    static_cast<std::size_t>(n) * element, static_cast<std::size_t>(rows), s),
          "clearing C of a GEMM with k = 0");
    return;
  }
  const GemmShape shape{.ab = ab, .cd = cd, .rows = rows, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc,
                        .align_a = alignmentOf(a), .align_b = alignmentOf(b), .align_c = alignmentOf(c)};
  const Plan *p = nullptr;
  {
    std::lock_guard<std::mutex> hold(cache_mutex);
    Plan &chosen = plan(*streams.cache, shape);
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    if (!chosen.timed && cudaStreamIsCapturing(s, &capturing) == cudaSuccess &&
        capturing == cudaStreamCaptureStatusNone)
      timeCandidates(*streams.cache, shape, chosen);
    p = &chosen;
  }
  const float alpha = 1.0f, beta = 0.0f;
  checkLt(cublasLtMatmul(streams.cache->handle, p->op, &alpha, b, p->layout_a, a, p->layout_b, &beta, c,
                         p->layout_c, c, p->layout_c, &p->algo,
                         s == streams.lane->alt ? streams.lane->alt_workspace : streams.lane->workspace,
                         kWorkspaceBytes, s),
          "cublasLtMatmul");
}

cudaDataType_t cudaType(DType dtype) { return dtype == DType::BF16 ? CUDA_R_16BF : CUDA_R_32F; }

// Row boundaries of `chunks` chunks of `rows` rows: balanced, on multiples of 128 rows (a GEMM
// tile) where every chunk can have at least that many. Chunk c is [bound[c], bound[c + 1]).
std::vector<std::int64_t> chunkBounds(std::int64_t rows, int chunks) {
  const std::int64_t unit = rows >= 128 * std::int64_t{chunks} ? 128 : 1;
  const std::int64_t units = (rows + unit - 1) / unit;
  std::vector<std::int64_t> bound(chunks + 1);
  for (int c = 0; c <= chunks; ++c) bound[c] = std::min(rows, c * units / chunks * unit);
  bound[chunks] = rows;
  return bound;
}

std::size_t alignUp(std::size_t bytes) { return (bytes + kBufferAlign - 1) / kBufferAlign * kBufferAlign; }

// The arrival slots, counted from the top of the context's slots, g(i) = ctx.slot(maxSignals - 1 - i):
// g(p * chunks + c) says that chunk c from PE p has arrived. Below them, the entry slots of the
// common map (common.cuh), which every body uses: entry[p] is PE p's "ready" for this call.
std::uint64_t *arrivalSlot(Context &ctx, int chunks, int pe, int chunk) {
  return ctx.slot(detail::arrivalSlotIndex(ctx.maxSignals(), chunks, pe, chunk));
}

void requireSignals(const char *kernel, Context &ctx, int n_pes, int chunks) {
  const long long needed = detail::slotsForGemm(n_pes, chunks);
  if (needed > ctx.maxSignals())
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": needs " + std::to_string(needed) +
                                             " signal slots (n_pes * (chunks_per_pe + 1) + " +
                                             std::to_string(detail::kSlotEntry) + "), the context has " +
                                             std::to_string(ctx.maxSignals()) + " (ContextOptions.max_signals)");
  host::requireSlots(ctx, 2, kernel);  // 64 bytes apart
  detail::checkDisjoint(detail::slotRangesOf(detail::CallKind::Gemm, ctx.maxSignals(), n_pes, chunks),
                        ctx.maxSignals(), kernel);
}

// ---- the stream ends of a call (one-block kernels on the device epoch of common.cuh) ---------------

// Side stream, first: this PE's stream has reached the call (entry[me] = e on every peer).
__global__ void announce_entry(std::uint64_t *slot0, detail::SlotMap map) {
  const int me = dev::rank();
  const std::uint64_t epoch = detail::call_epoch(slot0);
  for (int pe = threadIdx.x; pe < dev::num_ranks(); pe += blockDim.x) {
    if (pe != me) detail::announce_entry_to(slot0, map, epoch, pe);
  }
}

// Waits until `count` slots, `stride` words apart from `first`, are at the call's epoch or past
// it, skipping number `skip` (-1: none).
__global__ void wait_slots(std::uint64_t *slot0, std::uint64_t *first, std::ptrdiff_t stride, int count, int skip) {
  const std::uint64_t epoch = detail::call_epoch(slot0);
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    if (i != skip) dev::signal_wait_until(first + i * stride, Cmp::GE, epoch);
  }
}

// After the stream's copy to pe: its signal there.
__global__ void signal_slot(std::uint64_t *slot0, std::uint64_t *slot, int pe) {
  dev::fence();
  dev::signal_op(slot, detail::call_epoch(slot0), SignalOp::Set, pe);
}

// Main stream, last: the call is finished on this PE.
__global__ void finish_gemm(std::uint64_t *slot0) { detail::finish_call(slot0, detail::call_epoch(slot0)); }

void launched(const char *kernel) { host::checkLaunch(kernel); }

// The call's stream forks to the side stream; the side stream announces this PE's buffers free to
// every peer (everything earlier on the call's stream, any reader of them, is behind the fork).
void forkAndAnnounceReady(Context &ctx, const Streams &streams, int n_pes) {
  Lane &l = *streams.lane;
  check(cudaEventRecord(l.entry, streams.main), "cudaEventRecord");
  check(cudaStreamWaitEvent(l.side, l.entry, 0), "cudaStreamWaitEvent");
  announce_entry<<<1, 32, 0, l.side>>>(ctx.slot(0), detail::SlotMap{n_pes});
  launched("announce_entry");
}

// Side stream: later pushes to q wait until q has announced its buffers free for this call.
void waitReady(Context &ctx, const Streams &streams, int q) {
  tc::StreamSpan span(streams.lane->side, Step::Wait, "wait_ready", q);
  wait_slots<<<1, 32, 0, streams.lane->side>>>(ctx.slot(0), ctx.slot(detail::SlotMap{1}.entry(q)), 0, 1, -1);
  launched("wait_slots");
}

// Stream s: `count` arrival slots of chunk ch from PE 0 on (count = 1: only PE src's), but `skip`.
void waitArrivals(Context &ctx, cudaStream_t s, int chunks, int src, int ch, int count, int skip) {
  tc::StreamSpan span(s, Step::Wait, "wait_chunk", count == 1 ? src : -1, ch);
  wait_slots<<<1, 32, 0, s>>>(ctx.slot(0), arrivalSlot(ctx, chunks, src, ch),
                              -static_cast<std::ptrdiff_t>(chunks) * static_cast<std::ptrdiff_t>(detail::kSlotWords),
                              count, skip);
  launched("wait_slots");
}

// Side stream: bytes into q's copy of dest, then chunk ch's arrival signal from this PE there.
void pushWithSignal(Context &ctx, const Streams &streams, void *dest, const void *source, std::size_t bytes,
                    int chunks, int me, int ch, int q) {
  tc::StreamSpan span(streams.lane->side, Step::Move, "push_chunk", q, ch);
  // A PE without rows (m_local = 0) has no block to send, only the signal that it sent it.
  if (bytes != 0) tc::putmem_on_stream(dest, source, bytes, q, streams.lane->side);
  signal_slot<<<1, 1, 0, streams.lane->side>>>(ctx.slot(0), arrivalSlot(ctx, chunks, me, ch), q);
  launched("signal_slot");
}

// The call's stream waits for the side stream: the call is complete when its stream is.
// Then the call's last kernel records its epoch as finished.
void join(Context &ctx, const Streams &streams) {
  check(cudaEventRecord(streams.lane->side_done, streams.lane->side), "cudaEventRecord");
  check(cudaStreamWaitEvent(streams.main, streams.lane->side_done, 0), "cudaStreamWaitEvent");
  finish_gemm<<<1, 32, 0, streams.main>>>(ctx.slot(0));
  launched("finish_gemm");
}

// ---- reduce_chunk ------------------------------------------------------------------------------
// out[i] = ((p_0[i] + p_1[i]) + p_2[i]) + ..., p_j = partial + j * slot_stride: PE order, f32, one
// rounding to the output type.

__device__ __forceinline__ void store(float *out, std::size_t i, float v) { out[i] = v; }
__device__ __forceinline__ void store(__nv_bfloat16 *out, std::size_t i, float v) { out[i] = __float2bfloat16_rn(v); }
// Four results at out + 4 i, in one 16-byte (f32) or 8-byte (bf16) store.
__device__ __forceinline__ void store4(float *out, std::size_t i, float4 v) { reinterpret_cast<float4 *>(out)[i] = v; }
__device__ __forceinline__ void store4(__nv_bfloat16 *out, std::size_t i, float4 v) {
  const __nv_bfloat162 lo = __floats2bfloat162_rn(v.x, v.y), hi = __floats2bfloat162_rn(v.z, v.w);
  uint2 packed;
  packed.x = *reinterpret_cast<const unsigned *>(&lo);
  packed.y = *reinterpret_cast<const unsigned *>(&hi);
  reinterpret_cast<uint2 *>(out)[i] = packed;
}

// Element i of the n_pes partials, slot_stride apart, summed in PE order in f32: the library's one
// deterministic reduction of GEMM partials (decomposed and fused alike).
__device__ __forceinline__ float sumInPeOrder(const float *partial, std::size_t slot_stride, int n_pes,
                                              std::size_t i) {
  float acc = partial[i];
  for (int p = 1; p < n_pes; ++p) acc += partial[p * slot_stride + i];
  return acc;
}

// The same for the four elements at partial + 4 i (16-byte loads).
__device__ __forceinline__ float4 sumInPeOrder4(const float4 *partial, std::size_t slot_stride4, int n_pes,
                                                std::size_t i) {
  float4 acc = partial[i];
  for (int p = 1; p < n_pes; ++p) {
    const float4 v = partial[p * slot_stride4 + i];
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
  return acc;
}

template <class Out>
__global__ void reduceChunkKernel(Out *out, const float *partial, std::size_t slot_stride, int n_pes,
                                  std::size_t count) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count; i += stride) {
    store(out, i, sumInPeOrder(partial, slot_stride, n_pes, i));
  }
}

// The same four elements at a time (16-byte loads, one vector store), where the pointers and the
// stride allow it.
template <class Out>
__global__ void reduceChunkKernel4(Out *out, const float4 *partial, std::size_t slot_stride4, int n_pes,
                                   std::size_t count4) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count4; i += stride) {
    store4(out, i, sumInPeOrder4(partial, slot_stride4, n_pes, i));
  }
}

template <class Out>
void reduceChunk(Out *out, const float *partial, std::size_t slot_stride, int n_pes, std::size_t count,
                 cudaStream_t s) {
  if (count == 0) return;
  constexpr int kThreads = 256;
  constexpr std::size_t kMaxBlocks = 1056;  // 8 per SM of an H200: a memory-bound grid-stride loop
  const bool vector = count % 4 == 0 && slot_stride % 4 == 0 && alignmentOf(partial) >= 16 &&
                      alignmentOf(out) >= 4 * sizeof(Out);
  const std::size_t items = vector ? count / 4 : count;
  const auto blocks = static_cast<unsigned>(std::min(kMaxBlocks, (items + kThreads - 1) / kThreads));
  if (vector)
    reduceChunkKernel4<<<blocks, kThreads, 0, s>>>(out, reinterpret_cast<const float4 *>(partial), slot_stride / 4,
                                                   n_pes, items);
  else
    reduceChunkKernel<<<blocks, kThreads, 0, s>>>(out, partial, slot_stride, n_pes, count);
  check(cudaGetLastError(), "reduceChunkKernel");
}

// ---- AllGather + GEMM, fused ---------------------------------------------------------------------
//   main stream  enter_and_stage: announce entry, wait for every peer's (so every peer has finished
//                every earlier call: its gathered buffer may be written), and stage the call's epoch
//                in this PE's stage word; our own rows into our gathered buffer, each chunk followed
//                by the staged epoch copied into its arrival word; then ONE persistent GEMM over the
//                gathered rows (fused_gemm.h), whose scheduler starts on this PE's rows and waits,
//                tile by tile, for the chunks a tile reads.
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
  std::int32_t bounds[65] = {};
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

#if TDIST_KERNELS_HAVE_CUTLASS
// The persistent GEMM's CTAs: its share of the GPU's SMs (all of them, over the PEs that drive
// this GPU), or fewer when `programs` asks. Its CTAs hold their SMs while they wait for a peer's
// rows; were they more than its share, the peers' GEMMs (under MPS, several PEs on one GPU) could
// take every SM and leave none for the kernel that a peer still has to run first.
// (host::smShare leaves a few SMs free where peers share the GPU: a copy between two PEs of one
// GPU is the driver's copy kernel, not the copy engine, above; 4 measured 4% faster than 8 at 2
// PEs: 64 CTAs make whole waves of 8192 x 8192 tiles.)
int fusedCtas(int programs) {
  const int share = host::smShare();
  return programs > 0 ? std::min(programs, share) : share;
}

void allGatherGemmFused(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c, Tensor &gathered,
                        const AllGatherGemmConfig &config) {
  constexpr const char *kernel = "all_gather_gemm";
  const int me = shmem::my_pe(), n_pes = shmem::n_pes();
  const int chunks = config.chunks_per_pe;
  const std::int64_t m_local = a.shape[0], k = a.shape[1], n = b.shape[1];
  const std::size_t a_row_bytes = static_cast<std::size_t>(k) * sizeof(__nv_bfloat16);
  requireSignals(kernel, ctx, n_pes, chunks);

  DeviceGuard device(tc::device());
  const Streams streams = streamsFor(ctx);
  tc::StreamSpan call(streams.main, Step::Call, kernel);
  Lane &l = *streams.lane;
  const std::vector<std::int64_t> bound = chunkBounds(m_local, chunks);
  auto *gath = static_cast<std::byte *>(gathered.data);
  const auto *mine = static_cast<const std::byte *>(a.data);
  std::uint64_t *stage = stageWord(ctx);

  enter_and_stage<<<1, 32, 0, streams.main>>>(ctx.slot(0), detail::SlotMap{n_pes}, stage);
  launched("enter_and_stage");
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
    launched("push_chunks");
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
    tc::StreamSpan span(streams.main, Step::Compute, "gemm_fused");
    fused::gemmBf16(gath, b.data, c.data, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), waits,
                    std::max(2, fusedCtas(config.programs) - producers), streams.main, kernel);
  }
  join(ctx, streams);
}
#endif

// True when a GEMM call (all_gather_gemm, gemm_reduce_scatter) runs the fused strategy; throws
// when it was asked for and cannot run. k_name: what the kernel calls A's columns.
bool runsFused(GemmStrategy strategy, const char *kernel, const char *k_name, const Tensor &a, const Tensor &b,
               const Tensor &c) {
  if (strategy != GemmStrategy::Fused) return false;  // Auto: Decomposed (docs/BENCHMARKS.md)
#if !TDIST_KERNELS_HAVE_CUTLASS
  throw Error(ErrorCode::NotSupported, std::string(kernel) +
                                           ": strategy Fused needs the CUTLASS headers when tdist is built "
                                           "(scripts/setup.sh fetches them; TDIST_CUTLASS_DIR)");
#endif
  if (a.dtype != DType::BF16) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": strategy Fused takes bf16 tensors, not " +
                                             std::string(a.dtype == DType::F32 ? "f32" : "this dtype"));
  }
  if (a.shape[1] % 8 != 0 || b.shape[1] % 8 != 0) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": strategy Fused needs " + k_name +
                                             " and N multiples of 8 (16-byte rows for TMA), not " + k_name + " = " +
                                             std::to_string(a.shape[1]) + ", N = " + std::to_string(b.shape[1]));
  }
  // TMA reads A and B and (AllGather + GEMM) writes C; the reduction's vector stores write C.
  const std::pair<const char *, const Tensor *> operands[] = {{"A", &a}, {"B", &b}, {"C", &c}};
  for (const auto &[name, t] : operands) {
    if (t->data != nullptr && alignmentOf(t->data) < 16)
      throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": strategy Fused needs " + name +
                                               " at a 16-byte aligned address (TMA), not " +
                                               std::to_string(reinterpret_cast<std::uintptr_t>(t->data) % 16) +
                                               " bytes past one");
  }
  return true;
}

}  // namespace

void releaseLanes() { destroyLanes(); }

// ---- AllGather + GEMM ----------------------------------------------------------------------------

void allGatherGemm(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c, Tensor &gathered,
                   const AllGatherGemmConfig &config, std::uint64_t /*epoch: the device's, common.cuh*/) {
  constexpr const char *kernel = "all_gather_gemm";
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
  requireSignals(kernel, ctx, n_pes, chunks);

  DeviceGuard device(tc::device());
  const Streams streams = streamsFor(ctx);
  tc::StreamSpan call(streams.main, Step::Call, kernel);
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

// Four columns per thread (N is a multiple of 8 on this path, the tiles' columns multiples of 256,
// the slots 16-byte aligned), 1024 threads per block: enough loads in flight for a memory-bound sum
// on the few SMs the grid may take.
constexpr int kReduceTileThreads = 1024;

template <class Out>
__global__ void __launch_bounds__(kReduceTileThreads) reduce_tiles(Out *out, const float *partial, std::size_t slot_stride, std::uint64_t *flags,
                             std::uint64_t *slot0, int n_pes, int me, std::int64_t rows, std::int64_t n, int tiles_n,
                             int tiles) {
  const std::uint64_t epoch = detail::call_epoch(slot0);
  for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += static_cast<int>(gridDim.x)) {
    for (int p = threadIdx.x; p < n_pes; p += blockDim.x)
      if (p != me) dev::signal_wait_until(flags + static_cast<std::size_t>(p) * tiles + tile, Cmp::GE, epoch);
    __syncthreads();
    const std::int64_t r0 = static_cast<std::int64_t>(tile / tiles_n) * fused::kTileM;
    const std::int64_t c0 = static_cast<std::int64_t>(tile % tiles_n) * fused::kTileN;
    const std::int64_t tile_rows = rows - r0 < fused::kTileM ? rows - r0 : fused::kTileM;
    const std::int64_t tile_cols = n - c0 < fused::kTileN ? n - c0 : fused::kTileN;
    const int quads = static_cast<int>(tile_cols / 4);  // 32-bit index arithmetic: a tile is small
    const auto *partial4 = reinterpret_cast<const float4 *>(partial);
    for (int i = static_cast<int>(threadIdx.x); i < static_cast<int>(tile_rows) * quads; i += blockDim.x) {
      const int r = i / quads;
      const std::size_t at4 = (static_cast<std::size_t>(r0 + r) * n + c0) / 4 + (i - r * quads);
      store4(out, at4, sumInPeOrder4(partial4, slot_stride / 4, n_pes, at4));
    }
    __syncthreads();  // the next tile's waits start after every thread is done with this one
  }
}

void gemmReduceScatterFused(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c,
                            const GemmReduceScatterConfig &config) {
  constexpr const char *kernel = "gemm_reduce_scatter";
  const int me = shmem::my_pe(), n_pes = shmem::n_pes();
  const std::int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  const std::int64_t block = m / n_pes;
  requireSignals(kernel, ctx, n_pes, 1);
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
  tc::StreamSpan call(streams.main, Step::Call, kernel);
  enter_and_reset<<<1, 256, 0, streams.main>>>(ctx.slot(0), detail::SlotMap{n_pes}, flags, n_pes * tiles);
  launched("enter_and_reset");
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
    reduce_tiles<<<std::min(tiles, fusedCtas(0)), kReduceTileThreads, 0, streams.main>>>(static_cast<__nv_bfloat16 *>(c.data),
                                                  reinterpret_cast<const float *>(receive),
                                                  static_cast<std::size_t>(block) * n, flags, ctx.slot(0), n_pes, me,
                                                  block, n, tiles_n, tiles);
    launched("reduce_tiles");
  }
  finish_gemm<<<1, 32, 0, streams.main>>>(ctx.slot(0));
  launched(kernel);
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

void gemmReduceScatter(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c,
                       const GemmReduceScatterConfig &config, std::uint64_t /*epoch*/) {
  constexpr const char *kernel = "gemm_reduce_scatter";
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
    tc::StreamSpan call(streams.main, Step::Call, kernel);
    tc::StreamSpan gemm(streams.main, Step::Compute, "gemm_own", me);
    mma(streams, streams.main, type, type, a.data, k, b.data, n, c.data, n, m, n, k);
    finish_gemm<<<1, 32, 0, streams.main>>>(ctx.slot(0));
    launched(kernel);
    return;
  }
  requireSignals(kernel, ctx, n_pes, chunks);

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
  tc::StreamSpan call(streams.main, Step::Call, kernel);
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
      reduceChunk(static_cast<__nv_bfloat16 *>(c.data) + bound[ch] * n, partial, slot_stride, n_pes, count,
                  streams.main);
    else
      reduceChunk(static_cast<float *>(c.data) + bound[ch] * n, partial, slot_stride, n_pes, count, streams.main);
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
