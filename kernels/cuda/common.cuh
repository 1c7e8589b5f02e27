// kernels/cuda/common.cuh - what the cuda bodies of the collectives and the MoE all-to-all share:
// the device epoch of a call, the map of the context's signal slots and scratch, f32 accumulation
// of f32/bf16/f16 vectors, and the host side's stream, grid and launch checks.
//
// THE DEVICE EPOCH. A body enqueues work and returns; a CUDA graph captured from it replays the
// same kernel arguments every time. An epoch baked into the arguments would make every replay
// after the first see its waits satisfied by the previous replay's signals. So the epoch a kernel
// writes and waits for is read on the device: this PE's epoch words (only this PE touches them)
// hold the epoch of the last finished call; every kernel of a call uses e = that + 1, and the
// last kernel of the call stores e there when it is done (finish_call). There is a word per
// block (kMaxBlocks, packed from slot 0): block b reads word b and, at its end, stores e into
// word b only, so no block of a call can see the epoch move under it before it has read it, and
// no block needs to know that the others are done (the next kernel starts after all of them).
// Block 0 also stores e into the words of the blocks the grid does not have, so that every word
// holds e for the next call, whatever its grid. Grids with more blocks, and kernels whose end
// must run once after every block (the one-shot's record of its parity), count arrivals instead;
// the last block stores e into every word. Every PE runs
// the same calls in the same order, so every PE's e is the same for the same call, eager or
// replayed. The host's `epoch` argument is not used on cuda. The slots must start at zero (the
// context allocates them zeroed), and they are the library's: nothing else may write them.
//
// THE ENTRY PROTOCOL. No call writes into a peer's scratch, slots or output before that peer has
// finished every earlier call on the context: a body first announces entry[me] = e to every peer
// from its stream (so after everything earlier on it, the GEMMs' side streams joined back), and
// waits for entry[q] >= e before its first write into q (announce_and_wait_entry; the GEMMs'
// announce_entry and wait_slots). Every write of epoch e into a peer therefore happens after that
// peer reached call e, which also makes a stray write of a later epoch into a slot that another
// kernel uses impossible while that kernel still waits there. And every write into a peer is
// one that the peer waits for within the same call, so it has landed before that peer finishes
// the call: no write of a call is still in flight once every PE has finished it (a Context can
// free its memory after synchronising). The one exception to the entry handshake is the
// one-shot all-reduce directly after a one-shot (collectives_body.cuh, REUSE PROTOCOL): its
// previous call waited for every peer's data, so every peer has begun that call and finished all
// before it, and only the other parity's buffers can still be in use.
//
// THE SLOT MAP (slot_map.h). Each slot of a peer-written range has ONE writer PE for every kernel
// that uses it, and it is SET, never reset, to the epoch of the call that writes it; a waiter in
// call e waits for >= e. A write of a later epoch comes from a writer that has finished call e
// (its stream is ordered), so it never releases a waiter early. B = the data slots per source, as
// many as the context's slots leave (at most kMaxBlocks; it bounds the blocks of a collective
// kernel).
//   kSlotEpoch .. +3 (kMaxBlocks packed words), kSlotArrivals, kSlotLastOneShot+{0,1}: this
//     PE's own words (see above, and the one-shot's REUSE PROTOCOL in collectives_body.cuh);
//   entry[src]       : src's stream has reached call e: everything it did before is finished,
//                      so its inputs are ready and its outputs/scratch may be written;
//   data[src][block] : src's block `block` has finished its part of call e toward this PE (the
//                      ring: data[prev][2c] and [2c + 1], chunk c's partial and total);
//   moe_counts[src]  : src's expert histogram has arrived (moe.cu);
//   moe_done[src]    : src has finished reading this PE's expert_out (moe_combine);
//   moe_rows[src][local expert] : src's rows for that expert have arrived (moe_dispatch).
// The GEMM bodies (ag_gemm.cu, gemm_rs.cu) use entry[] and, counted from the top of the slots, their arrivals.
//
// THE SCRATCH MAP (ctx.scratch(), S bytes):
//   [0, S/2)          written by peers: the one-shot buffers (2 parities x n sources) and the
//                     ring's f32 partials;
//   [S/2, S/2 + S/16) MoE counts, written by peers (n rows of E + 1 int32); they stay there until
//                     the next dispatch, and moe_combine reads them;
//   [S/2 + S/16, S)   local staging: written only by this PE (its kernels and copy engine).
// The GEMM bodies use the whole scratch (gathered rows, partials), after the entry handshake.
// Calls whose data exceed their part run in rounds, each a kernel with its own epoch.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/checks.h"
#include "kernels/context_state.h"
#include "kernels/cuda/slot_map.h"
#include "tdist/cuda.h"
#include "tdist/device/shmem.cuh"
#include "tdist/error.h"
#include "tdist/kernels/context.h"

namespace tdist::kernels::cuda::detail {

// ---- the slot map (slot_map.h) -----------------------------------------------------------------

constexpr int kThreads = 512;   // threads of a collective block
constexpr std::size_t kSlotWords = kSlotBytes / sizeof(std::uint64_t);

// A slot of this PE (peers' copies through symm_at / signal_op's pe argument).
__host__ __device__ inline std::uint64_t *slotAt(std::uint64_t *slot0, int index) {
  return slot0 + static_cast<std::size_t>(index) * kSlotWords;
}

// ---- the scratch map ----------------------------------------------------------------------------

struct ScratchMap {
  std::byte *base = nullptr;
  std::size_t bytes = 0;
  std::byte *oneShot() const { return base; }
  std::size_t oneShotBytes() const { return (bytes / 2) & ~std::size_t{255}; }
  std::byte *moeCounts() const { return base + oneShotBytes(); }
  std::size_t moeCountsBytes() const { return (bytes / 16) & ~std::size_t{255}; }
  std::byte *staging() const { return moeCounts() + moeCountsBytes(); }
  std::size_t stagingBytes() const { return (bytes - oneShotBytes() - moeCountsBytes()) & ~std::size_t{255}; }
};

// ---- the device epoch -----------------------------------------------------------------------------

// This block's epoch word (a grid of more than kMaxBlocks blocks counts arrivals, and its blocks
// past the last word read word 0, which no block of such a grid stores before all have arrived).
__device__ __forceinline__ volatile std::uint64_t *epoch_word(std::uint64_t *slot0) {
  const unsigned b = blockIdx.x < static_cast<unsigned>(kMaxBlocks) ? blockIdx.x : 0u;
  return reinterpret_cast<volatile std::uint64_t *>(slotAt(slot0, kSlotEpoch)) + b;
}

// The epoch of the call this kernel belongs to.
__device__ __forceinline__ std::uint64_t call_epoch(std::uint64_t *slot0) { return *epoch_word(slot0) + 1; }

// Epoch words from .. kMaxBlocks - 1 = epoch, from every thread of the block (one coalesced store
// of the first warp; a loop of one thread cost 0.1-0.3 us a call on an H200).
__device__ __forceinline__ void store_epoch_words(std::uint64_t *slot0, std::uint64_t epoch, int from) {
  volatile std::uint64_t *words = reinterpret_cast<volatile std::uint64_t *>(slotAt(slot0, kSlotEpoch));
  for (int k = from + static_cast<int>(threadIdx.x); k < kMaxBlocks; k += static_cast<int>(blockDim.x)) words[k] = epoch;
}

// The end of the last kernel of a call, from every thread of every block: the last block to
// arrive runs last_block() (every thread of it; peers' data read by any block is read by then),
// then records the call's epoch as finished. The arrival count and the epoch words are this PE's
// own, read only by its own later kernels: GPU scope is enough for the count (a system-scope
// atomic measured 0.7 us a call on an H200) and the kernel boundary orders the epoch's plain
// stores before the next kernel's loads; a grid of one block needs no count at all.
template <class LastBlock>
__device__ __forceinline__ void finish_call(std::uint64_t *slot0, std::uint64_t epoch, LastBlock &&last_block) {
  __shared__ int is_last;
  __syncthreads();
  if (threadIdx.x == 0) {
    if (gridDim.x == 1) {
      is_last = 1;
    } else {
      std::uint64_t before =
          device::ptx::atomic_fetch_add(slotAt(slot0, kSlotArrivals), std::uint64_t{1}, device::ptx::Scope::Gpu);
      is_last = before + 1 == gridDim.x;
    }
  }
  __syncthreads();
  if (!is_last) return;
  last_block();
  __syncthreads();
  if (threadIdx.x == 0) *reinterpret_cast<volatile std::uint64_t *>(slotAt(slot0, kSlotArrivals)) = 0;
  store_epoch_words(slot0, epoch, 0);
}

// The same without a last-block step: each block stores its own word (no count, no atomic: an
// H200 measured the count's atomic on the critical path of every multi-block call).
__device__ __forceinline__ void finish_call(std::uint64_t *slot0, std::uint64_t epoch) {
  if (gridDim.x > static_cast<unsigned>(kMaxBlocks)) {
    finish_call(slot0, epoch, [] {});
    return;
  }
  __syncthreads();  // every thread of the block has read its epoch
  if (threadIdx.x == 0) *epoch_word(slot0) = epoch;
  if (blockIdx.x == 0) store_epoch_words(slot0, epoch, static_cast<int>(gridDim.x));
}

// entry[me] = epoch on PE pe, and the wait for entry[src] >= epoch. Both relaxed: the entry
// publishes nothing that this kernel wrote. What a peer reads after it (this PE's inputs) and
// what it may then overwrite (this PE's outputs and scratch, read by earlier calls) belong to
// kernels and copies that finished before this kernel began, and a kernel boundary orders
// those. A release store and an acquire poll cost 0.5 us a call more on an H200
// (docs/BENCHMARKS.md), on a step that every call takes. Formally a peer that reads this PE's
// input after the relaxed entry has no happens-before edge to what a third PE wrote into that
// input in the previous call (its release, this PE's acquire, the kernel boundary, then relaxed
// accesses); in practice the data sits in the owner's L2, the point of coherence, and neither
// peer loads nor L1 contents survive a kernel boundary in the reader's caches.
__device__ __forceinline__ void announce_entry_to(std::uint64_t *slot0, SlotMap map, std::uint64_t epoch, int pe) {
  device::ptx::store_relaxed(device::symm_at(slotAt(slot0, map.entry(device::rank())), pe), epoch,
                             device::detail::scope());
}

__device__ __forceinline__ void wait_entry(std::uint64_t *slot0, SlotMap map, std::uint64_t epoch, int src) {
  device::detail::wait_word<std::uint64_t, device::detail::Poll::Relaxed>(
      slotAt(slot0, map.entry(src)), shmem::Cmp::GE, epoch, "tdist::device::signal_wait_until");
}

// Block 0 tells every peer that this PE has reached the call; every block then waits until every
// peer has (thread t waits for PE t).
__device__ __forceinline__ void announce_and_wait_entry(std::uint64_t *slot0, SlotMap map, std::uint64_t epoch) {
  const int me = device::rank();
  const int n = device::num_ranks();
  for (int pe = threadIdx.x; pe < n; pe += blockDim.x) {
    if (blockIdx.x == 0 && pe != me) announce_entry_to(slot0, map, epoch, pe);
  }
  for (int pe = threadIdx.x; pe < n; pe += blockDim.x) {
    if (pe != me) wait_entry(slot0, map, epoch, pe);
  }
  __syncthreads();
}

// ---- elements and f32 accumulation ------------------------------------------------------------

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }

template <class T>
__device__ __forceinline__ T from_f32(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return __float2half_rn(v);
  }
}

// One 16-byte vector of T, accumulated in f32.
template <class T>
struct Acc {
  static constexpr int kN = 16 / sizeof(T);
  float v[kN];
};

// Every element of a to `start`.
template <class T>
__device__ __forceinline__ void acc_fill(Acc<T> &a, float start) {
#pragma unroll
  for (int i = 0; i < Acc<T>::kN; ++i) a.v[i] = start;
}

template <class T>
__device__ __forceinline__ void acc_zero(Acc<T> &a) {
  acc_fill(a, 0.0f);
}

// a += the vector raw (16 bytes of T), scaled.
template <class T>
__device__ __forceinline__ void acc_add_raw(Acc<T> &a, uint4 raw, float scale = 1.0f) {
  const T *e = reinterpret_cast<const T *>(&raw);
#pragma unroll
  for (int i = 0; i < Acc<T>::kN; ++i) {
    // Rounded product, then rounded sum: never contracted into an FMA, as the host reference.
    a.v[i] = scale == 1.0f ? __fadd_rn(a.v[i], to_f32(e[i])) : __fadd_rn(a.v[i], __fmul_rn(scale, to_f32(e[i])));
  }
}

// a += the vector at p (16-byte aligned), scaled.
template <class T>
__device__ __forceinline__ void acc_add(Acc<T> &a, const T *p, float scale = 1.0f) {
  acc_add_raw<T>(a, *reinterpret_cast<const uint4 *>(p), scale);
}

template <class T>
__device__ __forceinline__ uint4 acc_pack(const Acc<T> &a) {
  uint4 raw;
  T *e = reinterpret_cast<T *>(&raw);
#pragma unroll
  for (int i = 0; i < Acc<T>::kN; ++i) e[i] = from_f32<T>(a.v[i]);
  return raw;
}

// The kN results of an Acc<In> as Out, in one vector store: 16 bytes (uint4) when Out is In,
// else kN * sizeof(Out) bytes (f32 partials to bf16: 8).
template <class T, int kN>
struct alignas(kN * sizeof(T)) Pack {
  T e[kN];
};

template <class Out, class In>
__device__ __forceinline__ auto acc_pack_as(const Acc<In> &a) {
  if constexpr (std::is_same_v<Out, In>) {
    return acc_pack(a);
  } else {
    Pack<Out, Acc<In>::kN> packed;
#pragma unroll
    for (int i = 0; i < Acc<In>::kN; ++i) packed.e[i] = from_f32<Out>(a.v[i]);
    return packed;
  }
}

// Elements [lo, hi) of a range of `count` cut into `parts` pieces at multiples of `align`.
struct Span {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  __host__ __device__ std::int64_t size() const { return hi - lo; }
};

__host__ __device__ inline Span piece(std::int64_t count, int parts, int index, std::int64_t align) {
  std::int64_t units = (count + align - 1) / align;
  std::int64_t lo = align * (units * index / parts);
  std::int64_t hi = align * (units * (index + 1) / parts);
  if (lo > count) lo = count;
  if (hi > count) hi = count;
  return Span{lo, hi};
}

// THE DETERMINISTIC REDUCTION of the library's cuda bodies (the collectives, GEMM +
// ReduceScatter's partials): `vectors` vectors of Acc<In>::kN elements of n sources, each summed
// in PE order 0, 1, ..., n-1 in f32 from `start`, rounded once to Out, and handed to
// store(offset, packed) (acc_pack_as<Out>). Vector v of source pe is the kN elements at
// source(pe) + offset_of(v) (16-byte aligned); its result goes to `offset_of(v)` of the output.
// This block's threads take vectors threadIdx.x, + blockDim.x, ...
//
// A reduction is bound by memory, and one load of 16 bytes in flight per thread keeps too few
// bytes in flight for the 32 blocks of a PE to fill HBM or NVLink (docs/BENCHMARKS.md). So a
// thread loads kLoadsInFlight vectors before it adds any: for 2, 4 and 8 PEs (a compile-time
// count) 16 / n vectors of every source; for other counts 4 vectors of two sources at a time.
// Every element is still summed in PE order.
//
// `start`: 0 for the collectives, as their host references; -0.0f, the identity of IEEE addition
// (+0 is not: +0 + -0 = +0), for a sum that equals PE 0's value plus the others, bit for bit.
constexpr int kLoadsInFlight = 16;

// The vectors' offsets of a contiguous range: vector v is elements kN v ...
template <class In>
struct Contiguous {
  __device__ __forceinline__ std::int64_t operator()(std::int64_t v) const { return v * Acc<In>::kN; }
};

template <class In, class Out, int kSources, int kLoads, class SourceOf, class OffsetOf, class Store>
__device__ __forceinline__ std::int64_t reduce_vectors_of(std::int64_t vectors, SourceOf &&source,
                                                          OffsetOf &&offset_of, Store &&store, float start) {
  constexpr int kU = kLoads / kSources > 0 ? kLoads / kSources : 1;
  const std::int64_t step = blockDim.x;
  const In *from[kSources];
#pragma unroll
  for (int pe = 0; pe < kSources; ++pe) from[pe] = source(pe);
  std::int64_t i = threadIdx.x;
  for (; i + (kU - 1) * step < vectors; i += kU * step) {
    uint4 x[kU][kSources];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const std::int64_t at = offset_of(i + u * step);
#pragma unroll
      for (int pe = 0; pe < kSources; ++pe) x[u][pe] = *reinterpret_cast<const uint4 *>(from[pe] + at);
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      Acc<In> a;
      acc_fill(a, start);
#pragma unroll
      for (int pe = 0; pe < kSources; ++pe) acc_add_raw<In>(a, x[u][pe]);
      store(offset_of(i + u * step), acc_pack_as<Out>(a));
    }
  }
  return i;
}

template <class In, class Out, class SourceOf, class OffsetOf, class Store>
__device__ __forceinline__ std::int64_t reduce_vectors_of_any(std::int64_t vectors, int n, SourceOf &&source,
                                                              OffsetOf &&offset_of, Store &&store, float start) {
  constexpr int kU = 4;
  const std::int64_t step = blockDim.x;
  std::int64_t i = threadIdx.x;
  for (; i + (kU - 1) * step < vectors; i += kU * step) {
    Acc<In> a[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) acc_fill(a[u], start);
    for (int pe = 0; pe < n; pe += 2) {
      const bool pair = pe + 1 < n;
      const In *first = source(pe);
      const In *second = pair ? source(pe + 1) : first;
      uint4 x[kU], y[kU];
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const std::int64_t at = offset_of(i + u * step);
        x[u] = *reinterpret_cast<const uint4 *>(first + at);
        if (pair) y[u] = *reinterpret_cast<const uint4 *>(second + at);
      }
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        acc_add_raw<In>(a[u], x[u]);
        if (pair) acc_add_raw<In>(a[u], y[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) store(offset_of(i + u * step), acc_pack_as<Out>(a[u]));
  }
  return i;
}

// All of this block's vectors: the unrolled loops above, then what they left, a vector at a time.
template <class In, class Out, int kLoads = kLoadsInFlight, class SourceOf, class OffsetOf, class Store>
__device__ __forceinline__ void reduce_vectors(std::int64_t vectors, int n, SourceOf &&source, OffsetOf &&offset_of,
                                               Store &&store, float start) {
  const std::int64_t step = blockDim.x;
  // i: this thread's first vector that the unrolled loops left.
  std::int64_t i = 0;
  switch (n) {
    case 2: i = reduce_vectors_of<In, Out, 2, kLoads>(vectors, source, offset_of, store, start); break;
    case 4: i = reduce_vectors_of<In, Out, 4, kLoads>(vectors, source, offset_of, store, start); break;
    case 8: i = reduce_vectors_of<In, Out, 8, kLoads>(vectors, source, offset_of, store, start); break;
    default: i = reduce_vectors_of_any<In, Out>(vectors, n, source, offset_of, store, start); break;
  }
  for (; i < vectors; i += step) {
    const std::int64_t at = offset_of(i);
    Acc<In> a;
    acc_fill(a, start);
    for (int pe = 0; pe < n; ++pe) acc_add<In>(a, source(pe) + at);
    store(at, acc_pack_as<Out>(a));
  }
}

// Sums `count` elements of n sources (source(pe): the first element of PE pe's range) with
// reduce_vectors, the vectors whole when `vectorized` (every source and every destination 16-byte
// aligned at element 0), then the tail an element at a time: store_one(index, value).
template <class In, class Out, int kLoads = kLoadsInFlight, class SourceOf, class Store, class StoreOne>
__device__ __forceinline__ void reduce_span(std::int64_t count, int n, bool vectorized, SourceOf &&source,
                                            Store &&store, StoreOne &&store_one, float start = 0.0f) {
  constexpr int kN = Acc<In>::kN;
  const std::int64_t vectors = vectorized ? count / kN : 0;
  reduce_vectors<In, Out, kLoads>(vectors, n, source, Contiguous<In>{}, store, start);
  for (std::int64_t j = vectors * kN + threadIdx.x; j < count; j += blockDim.x) {
    float a = start;
    for (int pe = 0; pe < n; ++pe) a = __fadd_rn(a, to_f32(source(pe)[j]));
    store_one(j, from_f32<Out>(a));
  }
}

}  // namespace tdist::kernels::cuda::detail

// ---- host side ----------------------------------------------------------------------------------

namespace tdist::kernels::cuda::host {

inline cudaStream_t streamOf(Context &ctx) {
  auto *s = static_cast<cudaStream_t>(ctx.stream());
  return s != nullptr ? s : tdist::cuda::stream();
}

inline void requireAligned16(const void *p, const char *kernel, const char *what) {
  if ((reinterpret_cast<std::uintptr_t>(p) & 15) != 0) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": " + what +
                                             " must start 16-byte aligned on the cuda backend");
  }
}

// The slot map of a context on n PEs: as many data slots per source as the context's slots leave
// (at most kMaxBlocks), a function of (max_signals, n) only, so every call on the context sees
// the same map. Fewer slots give collective kernels fewer blocks, never a wrong result; one block
// at least, as the entry point checked the body's slots (kernels/cuda/backend.cpp).
inline detail::SlotMap slotMapFor(const Context &ctx, int n, const char *kernel) {
  const detail::SlotMap map{n, detail::dataBlocksFor(ctx.maxSignals(), n)};
  detail::checkDisjoint(detail::slotRangesOf(detail::CallKind::Collective, ctx.maxSignals(), n, 0), ctx.maxSignals(),
                        kernel);
  return map;
}

// The blocks of one kernel that waits on peers may take on this PE: its share of the GPU's SMs,
// the SMs over the PEs that drive this GPU, less `reserve` SMs left to the driver's copy kernels
// where PEs share the GPU (a copy within one GPU runs on SMs). A waiting block holds its SM until
// every peer it waits for has run; with several PEs on one GPU (MPS) no client's blocks are
// preempted, so were one PE's grid larger than its share, the blocks of PEs that are ahead could
// take every SM and leave none for a late PE's kernel, which they wait for. A block needs at most
// one SM, so grids within their shares are all resident at once.
constexpr int kCopySms = 4;
// The SMs of this PE's GPU.
inline int smCount() {
  int sms = 0;
  tdist::cuda::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, tdist::cuda::device()),
                     "cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount)");
  return sms;
}
inline int smShare(int reserve = kCopySms) {
  const int sms = smCount();
  const int pes = tdist::cuda::pes_on_device() > 1 ? tdist::cuda::pes_on_device() : 1;
  const int share = (sms - (pes > 1 ? reserve : 0)) / pes;
  return share > 1 ? share : 1;
}

// Blocks of a kernel: config.programs (1 .. kMaxBlocks), or 0 = one per `bytes_per_block` of
// work, 1 .. kMaxBlocks.
// At most `most` (the data slots per source of the context's slot map).
// And at most this PE's share of the GPU (smShare): every such kernel waits on peers.
inline int blocksFor(int programs, std::size_t bytes, std::size_t bytes_per_block, const char *kernel,
                     int most = detail::kMaxBlocks) {
  const int share = smShare();
  if (share < most) most = share;
  if (programs != 0) {
    kernels::detail::requireRange(kernel, "programs (cuda: blocks)", programs, 0, detail::kMaxBlocks);
    return programs < most ? programs : most;
  }
  std::size_t blocks = (bytes + bytes_per_block - 1) / bytes_per_block;
  if (blocks < 1) blocks = 1;
  if (blocks > static_cast<std::size_t>(most)) blocks = static_cast<std::size_t>(most);
  return static_cast<int>(blocks);
}

// Calls f with a null pointer of the element type of `dtype`.
template <class F>
void withElement(DType dtype, const char *kernel, F &&f) {
  switch (dtype) {
    case DType::F32: f(static_cast<float *>(nullptr)); return;
    case DType::BF16: f(static_cast<__nv_bfloat16 *>(nullptr)); return;
    case DType::F16: f(static_cast<__half *>(nullptr)); return;
    default:
      throw Error(ErrorCode::NotSupported, std::string(kernel) + ": dtype " + kernels::detail::dtypeText(dtype) +
                                               " is not supported by the cuda backend (f32, bf16, f16)");
  }
}

}  // namespace tdist::kernels::cuda::host
