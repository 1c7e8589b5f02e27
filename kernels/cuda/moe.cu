// kernels/cuda/moe.cu - the MoE all-to-all on the cuda backend: dispatch tokens' rows into the
// experts' owners' recv, combine the experts' outputs back, weighted, at the tokens' PEs.
//
// E experts, El = E / n on each PE; entry (t, k) of topk_ids names expert g, owned by PE g / El
// as its local expert g % El. On every PE recv rows are grouped by local expert, then by source
// PE, then in the source's (t, k) order.
//
// moe_dispatch, three kernels and one host synchronisation:
//   plan (one block):   announce and wait for every peer's entry (its recv and count row are
//                       free); count this PE's rows per expert (and its ids outside 0 .. E-1);
//                       publish_counts: the E + 1 counts into row `me` of every PE's count matrix
//                       (scratch), then moe_counts[me]; wait for every source's counts; now every
//                       PE holds the whole n x E matrix and computes ON THE DEVICE where its rows
//                       go: base[g] (the first row of (g % El, me) on owner g / El, -1 when that
//                       owner would receive more than `capacity` rows) and pos[i] (the rank of
//                       entry i among this PE's entries for the same expert, in (t, k) order; one
//                       warp, __match_any_sync) into local staging.
//   scatter (E blocks): block g copies, a warp a row, every row of this PE for expert g into its
//                       owner's recv, then fences and signals moe_rows[me][g % El] there.
//   arrive (one block): wait for moe_rows[src][el] of every source and local expert.
//   Then the host copies the count matrix back and synchronises the stream ONCE: DispatchLayout is
//   a host value, so moe_dispatch cannot be captured in a CUDA graph (moe_combine can). The host
//   checks every PE's counts alike (every PE has the same matrix), so ids out of range or an
//   owner over capacity throw on every PE; the device skipped those rows.
// moe_combine, pulling rows back (the owners' expert_out are read where they are):
//   plan (one block):   announce and wait for entry (every owner's expert_out is ready); base
//                       and pos again, from the count matrix, which stays in the scratch until
//                       the next dispatch (that dispatch's count writes wait for this PE's entry,
//                       so they come after this combine); `layout` must be the latest dispatch's.
//   gather (warps):     a warp a token: out[t] = sum over k, in k order, of w[t, k] * the row of
//                       (t, k) read from its owner, in f32 (rounded product, rounded sum), rounded
//                       once to the dtype.
//   leave (one block):  notify_done to every owner (its expert_out is read), wait for every
//                       reader's done, finish the call.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda/bodies.h"
#include "kernels/checks.h"
#include "kernels/cuda/common.cuh"
#include "tdist/cuda.h"
#include "tdist/device/shmem.cuh"

namespace tdist::kernels::cuda {
namespace {

namespace dev = tdist::device;
using detail::Acc;
using detail::SlotMap;
using detail::slotAt;
using shmem::Cmp;
using shmem::SignalOp;

constexpr int kPlanThreads = 1024;
constexpr int kRowThreads = 256;
constexpr int kMaxExperts = 12287;  // E + 1 int32 counters in 48 KiB of shared memory
constexpr int kMaxPrograms = 1024;

// What both plans compute, in this PE's local staging.
struct Plan {
  std::int32_t *pos = nullptr;   // [T * top_k]
  std::int32_t *base = nullptr;  // [E]
};

struct Shape {
  std::int64_t tokens = 0;  // T
  int top_k = 1;
  int experts = 0;          // E
  int local_experts = 0;    // El
  int capacity = 0;
};

// Every thread of the one block. counts: the n x (E + 1) matrix (row = source PE); counter: E
// ints of shared memory.
__device__ void plan_rows(const std::int32_t *counts, const std::int32_t *ids, Shape shape, Plan plan,
                          std::int32_t *counter) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const int row = shape.experts + 1;
  // base: rows of owner g / El before (g % El, me): every earlier local expert, then earlier sources.
  for (int g = threadIdx.x; g < shape.experts; g += blockDim.x) {
    const int owner = g / shape.local_experts;
    const int local = g % shape.local_experts;
    std::int64_t total = 0;
    std::int64_t before = 0;
    for (int e = 0; e < shape.local_experts; ++e) {
      for (int src = 0; src < n; ++src) {
        std::int64_t c = counts[src * row + owner * shape.local_experts + e];
        total += c;
        if (e < local || (e == local && src < me)) before += c;
      }
    }
    plan.base[g] = total > shape.capacity ? -1 : static_cast<std::int32_t>(before);
    counter[g] = 0;
  }
  __syncthreads();
  // pos: rank among this PE's entries of the same expert, in (t, k) order; one warp, 32 at a time.
  if (threadIdx.x < 32) {
    const unsigned lane = threadIdx.x;
    const std::int64_t entries = shape.tokens * shape.top_k;
    for (std::int64_t first = 0; first < entries; first += 32) {
      const std::int64_t i = first + lane;
      int g = i < entries ? ids[i] : -1;
      const bool valid = g >= 0 && g < shape.experts;
      if (!valid) g = -1;
      const unsigned peers = __match_any_sync(0xffffffffu, g);
      const unsigned rank = __popc(peers & ((1u << lane) - 1u));
      const int start = valid ? counter[g] : 0;
      __syncwarp();
      if (valid) {
        plan.pos[i] = start + static_cast<std::int32_t>(rank);
        if (lane == static_cast<unsigned>(__ffs(peers) - 1)) counter[g] = start + __popc(peers);
      } else if (i < entries) {
        plan.pos[i] = -1;
      }
      __syncwarp();
    }
  }
  __syncthreads();
}

__global__ void __launch_bounds__(kPlanThreads)
    dispatch_plan(const std::int32_t *ids, Shape shape, std::int32_t *counts, Plan plan, std::uint64_t *slot0,
                  SlotMap map) {
  extern __shared__ std::int32_t histogram[];  // E + 1: the last counts ids outside 0 .. E-1
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const std::uint64_t epoch = detail::call_epoch(slot0);
  const int row = shape.experts + 1;
  // announce, wait for every peer's entry: its recv and its count row are free
  detail::announce_and_wait_entry(slot0, map, epoch);
  // count_rows (order does not matter for counts: shared-memory atomics)
  for (int g = threadIdx.x; g < row; g += blockDim.x) histogram[g] = 0;
  __syncthreads();
  const std::int64_t entries = shape.tokens * shape.top_k;
  for (std::int64_t i = threadIdx.x; i < entries; i += blockDim.x) {
    int g = ids[i];
    atomicAdd(&histogram[g >= 0 && g < shape.experts ? g : shape.experts], 1);
  }
  __syncthreads();
  // publish_counts into row `me` of every PE's matrix, own first
  for (int k = 0; k < n; ++k) {
    dev::putmem_block(counts + static_cast<std::size_t>(me) * row, histogram, sizeof(std::int32_t) * row, (me + k) % n);
  }
  if (threadIdx.x == 0) {
    dev::fence();
    for (int k = 1; k < n; ++k) dev::signal_op(slotAt(slot0, map.moeCounts(me)), epoch, SignalOp::Set, (me + k) % n);
  }
  // wait_counts of every source
  for (int pe = threadIdx.x; pe < n; pe += blockDim.x) {
    if (pe != me) dev::signal_wait_until(slotAt(slot0, map.moeCounts(pe)), Cmp::GE, epoch);
  }
  __syncthreads();
  plan_rows(counts, ids, shape, plan, histogram);
}

__global__ void __launch_bounds__(kRowThreads)
    dispatch_scatter(const std::byte *x, const std::int32_t *ids, Shape shape, std::size_t row_bytes, Plan plan,
                     std::byte *recv, std::uint64_t *slot0, SlotMap map) {
  const int me = dev::rank();
  const std::uint64_t epoch = detail::call_epoch(slot0);
  const unsigned lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int warps = blockDim.x / 32;
  const std::int64_t entries = shape.tokens * shape.top_k;
  // Each block starts on its own experts: block b takes experts b, b + grid, ...
  for (int g = blockIdx.x; g < shape.experts; g += gridDim.x) {
    const int owner = g / shape.local_experts;
    const std::int32_t base = plan.base[g];
    for (std::int64_t first = static_cast<std::int64_t>(warp) * 32; first < entries;
         first += static_cast<std::int64_t>(warps) * 32) {
      const std::int64_t i = first + lane;
      unsigned hits = __ballot_sync(0xffffffffu, i < entries && ids[i] == g);
      while (hits != 0 && base >= 0) {
        const int j = __ffs(hits) - 1;
        hits &= hits - 1;
        const std::int64_t entry = first + j;
        const std::int64_t token = entry / shape.top_k;
        const std::int64_t at = static_cast<std::int64_t>(base) + plan.pos[entry];
        dev::putmem_warp(recv + static_cast<std::size_t>(at) * row_bytes, x + static_cast<std::size_t>(token) * row_bytes,
                         row_bytes, owner);
      }
    }
    // notify_owner: this PE's rows for (owner's local expert g % El) are there.
    __syncthreads();
    if (threadIdx.x == 0) {
      dev::fence();
      dev::signal_op(slotAt(slot0, map.moeRows(me, g % shape.local_experts, shape.local_experts)), epoch,
                     SignalOp::Set, owner);
    }
  }
}

__global__ void dispatch_arrive(Shape shape, std::uint64_t *slot0, SlotMap map) {
  const int n = dev::num_ranks();
  const std::uint64_t epoch = detail::call_epoch(slot0);
  for (int k = threadIdx.x; k < n * shape.local_experts; k += blockDim.x) {
    dev::signal_wait_until(slotAt(slot0, map.moeRows(k / shape.local_experts, k % shape.local_experts,
                                                      shape.local_experts)),
                           Cmp::GE, epoch);
  }
  detail::finish_call(slot0, epoch);
}

__global__ void __launch_bounds__(kPlanThreads)
    combine_plan(const std::int32_t *ids, Shape shape, const std::int32_t *counts, Plan plan, std::uint64_t *slot0,
                 SlotMap map) {
  extern __shared__ std::int32_t counter[];
  detail::announce_and_wait_entry(slot0, map, detail::call_epoch(slot0));
  plan_rows(counts, ids, shape, plan, counter);
}

template <class T>
__global__ void __launch_bounds__(kRowThreads)
    combine_gather(const T *expert_out, const std::int32_t *ids, const float *weights, Shape shape, std::int64_t hidden,
                   bool vectorized, Plan plan, T *out) {
  const unsigned lane = threadIdx.x % 32;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  constexpr int kN = Acc<T>::kN;
  const std::int64_t vectors = vectorized ? hidden / kN : 0;
  for (std::int64_t t = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; t < shape.tokens; t += warps) {
    // The rows of token t, in k order (nullptr: an entry the dispatch skipped).
    auto row_of = [&](int k) -> const T * {
      const std::int64_t entry = t * shape.top_k + k;
      const int g = ids[entry];
      if (g < 0 || g >= shape.experts || plan.base[g] < 0) return nullptr;
      const std::int64_t at = static_cast<std::int64_t>(plan.base[g]) + plan.pos[entry];
      return dev::symm_at(expert_out + at * hidden, g / shape.local_experts);
    };
    for (std::int64_t v = lane; v < vectors; v += 32) {
      Acc<T> a;
      detail::acc_zero(a);
      for (int k = 0; k < shape.top_k; ++k) {
        const T *row = row_of(k);
        if (row != nullptr) detail::acc_add<T>(a, row + v * kN, weights[t * shape.top_k + k]);
      }
      *reinterpret_cast<uint4 *>(out + t * hidden + v * kN) = detail::acc_pack(a);
    }
    for (std::int64_t h = vectors * kN + lane; h < hidden; h += 32) {
      float a = 0.0f;
      for (int k = 0; k < shape.top_k; ++k) {
        const T *row = row_of(k);
        if (row != nullptr) a = __fadd_rn(a, __fmul_rn(weights[t * shape.top_k + k], detail::to_f32(row[h])));
      }
      out[t * hidden + h] = detail::from_f32<T>(a);
    }
  }
}

__global__ void combine_leave(std::uint64_t *slot0, SlotMap map) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const std::uint64_t epoch = detail::call_epoch(slot0);
  // notify_done: the gather kernel before this one has read every owner's rows.
  if (threadIdx.x == 0) {
    dev::fence();
    for (int k = 1; k < n; ++k) dev::signal_op(slotAt(slot0, map.moeDone(me)), epoch, SignalOp::Set, (me + k) % n);
  }
  for (int pe = threadIdx.x; pe < n; pe += blockDim.x) {
    if (pe != me) dev::signal_wait_until(slotAt(slot0, map.moeDone(pe)), Cmp::GE, epoch);
  }
  detail::finish_call(slot0, epoch);
}

// ---- host side ------------------------------------------------------------------------------------

struct Setup {
  Shape shape;
  std::uint64_t *slot0 = nullptr;
  SlotMap map;
  std::int32_t *counts = nullptr;  // the count matrix in the scratch
  Plan plan;
  cudaStream_t stream = nullptr;
  std::size_t plan_shared = 0;
};

Setup setUp(Context &ctx, const Tensor &topk_ids, const MoeConfig &config, const char *kernel) {
  const int n = nPes();
  Setup s;
  s.shape.tokens = topk_ids.shape.empty() ? 0 : topk_ids.shape[0];
  s.shape.top_k = config.top_k;
  s.shape.experts = config.experts;
  s.shape.local_experts = config.experts / n;
  s.shape.capacity = config.capacity;
  kernels::detail::requireRange(kernel, "experts (cuda)", config.experts, n, kMaxExperts);
  kernels::detail::requireRange(kernel, "programs (cuda: blocks)", config.programs, 0, kMaxPrograms);
  s.map = host::slotMapFor(ctx, n, kernel);
  detail::checkDisjoint(detail::slotRangesOf(detail::CallKind::Moe, ctx.maxSignals(), n, config.experts),
                        ctx.maxSignals(), kernel);
  s.slot0 = ctx.slot(0);
  detail::ScratchMap scratch{static_cast<std::byte *>(ctx.scratch()), ctx.scratchBytes()};
  const std::size_t row = static_cast<std::size_t>(config.experts) + 1;
  const std::size_t entries = static_cast<std::size_t>(s.shape.tokens) * config.top_k;
  const std::size_t pos_bytes = (entries * sizeof(std::int32_t) + 255) & ~std::size_t{255};
  if (static_cast<std::size_t>(n) * row * sizeof(std::int32_t) > scratch.moeCountsBytes() ||
      pos_bytes + static_cast<std::size_t>(config.experts) * sizeof(std::int32_t) > scratch.stagingBytes()) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": the context's scratch is too small for " +
                                             std::to_string(s.shape.tokens) + " tokens, top_k " +
                                             std::to_string(config.top_k) + " and " + std::to_string(config.experts) +
                                             " experts on the cuda backend (ContextOptions.scratch_bytes)");
  }
  s.counts = reinterpret_cast<std::int32_t *>(scratch.moeCounts());
  s.plan.pos = reinterpret_cast<std::int32_t *>(scratch.staging());
  s.plan.base = reinterpret_cast<std::int32_t *>(scratch.staging() + pos_bytes);
  s.stream = host::streamOf(ctx);
  s.plan_shared = row * sizeof(std::int32_t);
  return s;
}

}  // namespace

DispatchLayout moeDispatch(Context &ctx, const MoeDispatchCall &call) {
  const auto &[x, topk_ids, recv, config] = call;
  constexpr const char *kernel = "tdist::kernels::moe_dispatch";
  const int n = nPes();
  const int me = myPe();
  Setup s = setUp(ctx, topk_ids, config, kernel);
  const std::size_t row_bytes = x.shape.size() == 2 ? static_cast<std::size_t>(x.shape[1]) * dtypeSize(x.dtype) : 0;
  const auto *ids = static_cast<const std::int32_t *>(topk_ids.data);

  dispatch_plan<<<1, kPlanThreads, s.plan_shared, s.stream>>>(ids, s.shape, s.counts, s.plan, s.slot0, s.map);
  tdist::cuda::check_launch(kernel);
  const int blocks = config.programs != 0 ? config.programs : (config.experts < kMaxPrograms ? config.experts : kMaxPrograms);
  dispatch_scatter<<<blocks, kRowThreads, 0, s.stream>>>(static_cast<const std::byte *>(x.data), ids, s.shape, row_bytes,
                                                         s.plan, static_cast<std::byte *>(recv.data), s.slot0, s.map);
  tdist::cuda::check_launch(kernel);
  dispatch_arrive<<<1, kRowThreads, 0, s.stream>>>(s.shape, s.slot0, s.map);
  tdist::cuda::check_launch(kernel);

  // The layout is a host value: the count matrix comes back, and the stream is synchronised once.
  const std::size_t row = static_cast<std::size_t>(config.experts) + 1;
  std::vector<std::int32_t> matrix(static_cast<std::size_t>(n) * row);
  tdist::cuda::check(cudaMemcpyAsync(matrix.data(), s.counts, matrix.size() * sizeof(std::int32_t),
                                     cudaMemcpyDeviceToHost, s.stream),
                     "tdist::kernels::moe_dispatch: copying the count matrix back");
  tdist::cuda::check(cudaStreamSynchronize(s.stream), "tdist::kernels::moe_dispatch: synchronising the stream");

  // Every PE holds the same matrix, so every PE throws the same error.
  for (int src = 0; src < n; ++src) {
    if (matrix[src * row + config.experts] != 0) {
      throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": topk_ids of PE " + std::to_string(src) + " has " +
                                               std::to_string(matrix[src * row + config.experts]) +
                                               " values outside 0 .. " + std::to_string(config.experts - 1));
    }
  }
  const int local = s.shape.local_experts;
  for (int owner = 0; owner < n; ++owner) {
    std::int64_t total = 0;
    for (int src = 0; src < n; ++src) {
      for (int e = 0; e < local; ++e) total += matrix[src * row + owner * local + e];
    }
    if (total > config.capacity) {
      throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": PE " + std::to_string(owner) + " receives " +
                                               std::to_string(total) + " rows, more than config.capacity = " +
                                               std::to_string(config.capacity));
    }
  }
  DispatchLayout layout;
  layout.counts.resize(static_cast<std::size_t>(local) * n);
  layout.offsets.resize(layout.counts.size());
  for (int e = 0; e < local; ++e) {
    for (int src = 0; src < n; ++src) {
      const std::size_t at = static_cast<std::size_t>(e) * n + src;
      layout.counts[at] = matrix[src * row + me * local + e];
      layout.offsets[at] = layout.rows;
      layout.rows += layout.counts[at];
    }
  }
  return layout;
}

void moeCombine(Context &ctx, const MoeCombineCall &call) {
  // The layout is not needed: the count matrix of the dispatch is still in the scratch (the top).
  const auto &[expert_out, layout, topk_ids, topk_weights, out, config] = call;
  (void)layout;
  constexpr const char *kernel = "tdist::kernels::moe_combine";
  Setup s = setUp(ctx, topk_ids, config, kernel);
  const std::int64_t hidden = out.shape.size() == 2 ? out.shape[1] : 0;
  const auto *ids = static_cast<const std::int32_t *>(topk_ids.data);
  host::requireAligned16(expert_out.data, kernel, "expert_out");
  host::requireAligned16(out.data, kernel, "out");
  const bool vectorized = (static_cast<std::size_t>(hidden) * dtypeSize(out.dtype)) % 16 == 0;

  combine_plan<<<1, kPlanThreads, s.plan_shared, s.stream>>>(ids, s.shape, s.counts, s.plan, s.slot0, s.map);
  tdist::cuda::check_launch(kernel);
  const std::int64_t warps_per_block = kRowThreads / 32;
  std::int64_t wanted = (s.shape.tokens + warps_per_block - 1) / warps_per_block;
  if (wanted < 1) wanted = 1;
  if (wanted > kMaxPrograms) wanted = kMaxPrograms;
  const int blocks = config.programs != 0 ? config.programs : static_cast<int>(wanted);
  host::withElement(out.dtype, kernel, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    combine_gather<T><<<blocks, kRowThreads, 0, s.stream>>>(
        static_cast<const T *>(expert_out.data), ids, static_cast<const float *>(topk_weights.data), s.shape, hidden,
        vectorized, s.plan, static_cast<T *>(out.data));
  });
  tdist::cuda::check_launch(kernel);
  combine_leave<<<1, 32, 0, s.stream>>>(s.slot0, s.map);
  tdist::cuda::check_launch(kernel);
}

}  // namespace tdist::kernels::cuda
