// kernels/cuda/gemm_steps.cu - the steps both overlap GEMMs take (gemm_steps.h).
#include "kernels/cuda/gemm_steps.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <string>
#include <utility>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/cublaslt_plan.h"
#include "tdist/cuda.h"
#include "tdist/error.h"
#include "tdist/shmem.h"

namespace tdist::kernels::cuda::gemm {
namespace {

namespace dev = tdist::device;
using shmem::Cmp;
using shmem::SignalOp;

constexpr std::size_t kBufferAlign = 256;

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

}  // namespace

cudaDataType_t cudaType(DType dtype) { return dtype == DType::BF16 ? CUDA_R_16BF : CUDA_R_32F; }

std::size_t alignUp(std::size_t bytes) { return (bytes + kBufferAlign - 1) / kBufferAlign * kBufferAlign; }

void mma(const Streams &streams, cudaStream_t s, cudaDataType_t ab, cudaDataType_t cd, const void *a,
         std::int64_t lda, const void *b, std::int64_t ldb, void *c, std::int64_t ldc, std::int64_t rows,
         std::int64_t n, std::int64_t k) {
  if (rows == 0 || n == 0) return;
  if (k == 0) {
    const std::size_t element = cd == CUDA_R_16BF ? 2 : 4;
    check(cudaMemset2DAsync(c, static_cast<std::size_t>(ldc) * element, 0, static_cast<std::size_t>(n) * element,
                            static_cast<std::size_t>(rows), s),
          "clearing C of a GEMM with k = 0");
    return;
  }
  const lt::GemmShape shape{.ab = ab, .cd = cd, .rows = rows, .n = n, .k = k, .lda = lda, .ldb = ldb, .ldc = ldc,
                            .align_a = lt::alignmentOf(a), .align_b = lt::alignmentOf(b),
                            .align_c = lt::alignmentOf(c)};
  const lt::PlanFor plan = lt::planFor(tc::device(), shape, s);
  lt::checkLt(lt::matmul(plan.handle, *plan.plan, plan.plan->algo, a, b, c, streams.workspaceOf(s), s),
              "cublasLtMatmul");
}

std::uint64_t *arrivalSlot(Context &ctx, int chunks, int pe, int chunk) {
  return ctx.slot(detail::arrivalSlotIndex(ctx.maxSignals(), chunks, pe, chunk));
}

void requireDisjointSlots(const char *kernel, Context &ctx, int n_pes, int chunks) {
  detail::checkDisjoint(detail::slotRangesOf(detail::CallKind::Gemm, ctx.maxSignals(), n_pes, chunks),
                        ctx.maxSignals(), kernel);
}

void forkAndAnnounceReady(Context &ctx, const Streams &streams, int n_pes) {
  Lane &l = *streams.lane;
  check(cudaEventRecord(l.entry, streams.main), "cudaEventRecord");
  check(cudaStreamWaitEvent(l.side, l.entry, 0), "cudaStreamWaitEvent");
  announce_entry<<<1, 32, 0, l.side>>>(ctx.slot(0), detail::SlotMap{n_pes});
  check_launch("announce_entry");
}

void waitReady(Context &ctx, const Streams &streams, int q) {
  tc::StreamSpan span(streams.lane->side, Step::Wait, "wait_ready", q);
  wait_slots<<<1, 32, 0, streams.lane->side>>>(ctx.slot(0), ctx.slot(detail::SlotMap{1}.entry(q)), 0, 1, -1);
  check_launch("wait_slots");
}

void waitArrivals(Context &ctx, cudaStream_t s, int chunks, int src, int ch, int count, int skip) {
  tc::StreamSpan span(s, Step::Wait, "wait_chunk", count == 1 ? src : -1, ch);
  wait_slots<<<1, 32, 0, s>>>(ctx.slot(0), arrivalSlot(ctx, chunks, src, ch),
                              -static_cast<std::ptrdiff_t>(chunks) * static_cast<std::ptrdiff_t>(detail::kSlotWords),
                              count, skip);
  check_launch("wait_slots");
}

void pushWithSignal(Context &ctx, const Streams &streams, void *dest, const void *source, std::size_t bytes,
                    int chunks, int me, int ch, int q) {
  tc::StreamSpan span(streams.lane->side, Step::Move, "push_chunk", q, ch);
  // A PE without rows (m_local = 0) has no block to send, only the signal that it sent it.
  if (bytes != 0) tc::putmem_on_stream(dest, source, bytes, q, streams.lane->side);
  signal_slot<<<1, 1, 0, streams.lane->side>>>(ctx.slot(0), arrivalSlot(ctx, chunks, me, ch), q);
  check_launch("signal_slot");
}

void join(Context &ctx, const Streams &streams) {
  check(cudaEventRecord(streams.lane->side_done, streams.lane->side), "cudaEventRecord");
  check(cudaStreamWaitEvent(streams.main, streams.lane->side_done, 0), "cudaStreamWaitEvent");
  finish(ctx, streams.main);
}

void finish(Context &ctx, cudaStream_t s) {
  finish_gemm<<<1, 32, 0, s>>>(ctx.slot(0));
  check_launch("finish_gemm");
}

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
    if (t->data != nullptr && lt::alignmentOf(t->data) < 16)
      throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": strategy Fused needs " + name +
                                               " at a 16-byte aligned address (TMA), not " +
                                               std::to_string(reinterpret_cast<std::uintptr_t>(t->data) % 16) +
                                               " bytes past one");
  }
  return true;
}

int fusedCtas(int programs) {
  const int share = host::smShare();
  return programs > 0 ? std::min(programs, share) : share;
}

}  // namespace tdist::kernels::cuda::gemm
