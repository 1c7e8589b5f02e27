// kernels/cuda/collectives_body.cuh - AllGather, ReduceScatter and AllReduce on the cuda backend.
//
// Compiled twice (collectives.cu says why): in namespace TDIST_COLLECTIVES_FLAVOR, by
// collectives_traced.cu with the device trace's hooks and by collectives_untraced.cu without.
//
// Every body only enqueues work on the context's stream (kernels, copies through the copy engine
// and the runtime's stream forms) and returns: no host synchronisation, no host access to the
// heap, so a call can be captured in a CUDA graph and replayed (the epoch is the device's:
// kernels/cuda/common.cuh). Reductions sum every element in PE order 0, 1, ..., n-1 in f32 and
// round once.
//
// The algorithms (n PEs, me = this PE, B blocks; a block's slice is its 1/B of a range):
//   all_gather, SM:   announce entry; wait for every peer's entry (its output is free);
//                     push_slice: each block stores its slice of the input into every PE's output
//                     block `me`, starting with its own; notify data[me][block]; wait for
//                     data[src][block] of every source.
//   all_gather, CE:   one small kernel announces and waits for entry; then the copy engine copies
//                     the input into every PE's output block `me`, chunk_bytes a copy; a second
//                     small kernel signals data[me][0] to every peer and waits for theirs.
//   reduce_scatter, SM: announce/wait entry (every input is ready); pull_and_reduce: each block
//                     loads its slice of block `me` of every PE's input (PE order) and stores the
//                     sum into the output; notify_done to every peer (its input is read); wait for
//                     every peer's done (nobody reads this PE's input any more), then return.
//   reduce_scatter, CE: entry; per round, the copy engine pulls a chunk of block `me` from every
//                     peer into this PE's local staging, and a kernel sums the staging rows (and
//                     the PE's own input) in PE order into the output; done as above.
//   all_reduce one-shot: no entry round trip after a one-shot. Every PE owns two buffers per
//                     source in every PE's scratch (parities of the epoch). enter (below), push_slice
//                     into every peer's buffer[parity][me], notify data[me][block], wait for every
//                     source's block, reduce_slice over (own input, buffers of the others) in PE
//                     order into the output; the last block records the call's epoch as the
//                     last one-shot of its parity. Inputs larger than a buffer run in rounds, a
//                     call each.
//                     REUSE PROTOCOL: call e writes parity p = e & 1, and every PE records alike
//                     the epoch of its last one-shot call of each parity (own slot
//                     kSlotLastOneShot + p). If call e - 1 was a one-shot (L[p ^ 1] == e - 1),
//                     this PE finished it, so it saw every peer's data of e - 1: every peer's
//                     e - 1 kernel was running, and (stream order) every earlier kernel of that
//                     peer had completed, its reads of the buffers of parity p (at call L[p] <=
//                     e - 2) included. What a peer may still read of this PE's writes is the
//                     buffers of parity p ^ 1, e - 1's, which call e does not write. So call e
//                     needs no wait before it writes: a fast PE runs one one-shot call ahead of
//                     a slow one, and can never be two ahead (it would have waited for the slow
//                     PE's data of the call between). After any other call (a GEMM, MoE, ring,
//                     ... that may still read its scratch on a slow peer) the one-shot enters by
//                     the entry handshake of every other body (common.cuh). Nothing is sent
//                     that its receiver does not wait for within the call.
//   all_reduce ring:  entry; PE 0 starts each chunk's sum (f32) in PE 1's scratch, PE p adds its
//                     own values to PE p-1's partial and passes it on, PE n-1 rounds the total into
//                     its output, and the totals go on round the ring n-1 -> 0 -> 1 -> ... -> n-2
//                     into the outputs: the PE-order sum of every other algorithm. A block per
//                     chunk, two signals per chunk; rounds of chunks when the scratch's peer-written
//                     half or the data slots are fewer than the chunks.
//   all_reduce two-shot: announce/wait entry (inputs ready, outputs free); each PE owns part `me`
//                     of the elements; reduce_part: each block loads its slice of part `me` from
//                     every PE's input (PE order), sums, and stores the result into every PE's
//                     output (itself first); notify data[me][block]; wait for every part's slice.
//                     A PE's input is read by peers until they signal it, and a PE waits for every
//                     signal, so its input is free when its kernel ends; in place is safe (part j
//                     is read and then written only by PE j's same thread).
// Waiting blocks spin on SMs: every grid is at most this PE's share of the GPU (host::smShare, the
// SMs over the PEs that drive it), so that with several PEs on one GPU (MPS) every PE's blocks are
// resident at once, and no block waits on another block of its own PE.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <string>

#include "kernels/backend.h"
#include "kernels/checks.h"
#include "kernels/cuda/collectives_flavors.h"
#include "kernels/cuda/common.cuh"
#include "tdist/cuda.h"
#include "tdist/device/shmem.cuh"

namespace tdist::kernels::cuda::TDIST_COLLECTIVES_FLAVOR {
namespace {

namespace dev = tdist::device;
using detail::Acc;
using detail::SlotMap;
using detail::Span;
using detail::slotAt;
using shmem::Cmp;
using shmem::SignalOp;

// ---- thresholds (measured on one H200, 2 PEs under MPS, docs/BENCHMARKS.md) -----------------------

// Engine::Auto: all_gather takes the copy engine from this many bytes of each PE's input on, SMs
// below (bf16: SMs 13.5 us against 21.5 at 4 MiB, the copy engine 48.6 against 52.4 at 16 MiB and
// 0.82x the SMs' time at 256 MiB). reduce_scatter stays on SMs at every size: its copy-engine path
// stages the peers' blocks and reduces them in a second pass, 1.24-2.4x the SM kernel's time from
// 64 KiB to 256 MiB.
constexpr std::size_t kAllGatherCopyEngineFrom = 16u << 20;
// The copy-engine paths move at least this much a copy, whatever config.chunk_bytes says: a copy
// costs microseconds to start (256 KiB copies made a 64 MiB all_gather of 2 PEs take 2.3-3 ms on
// an H200, 30x one copy's time), and nothing waits on a piece of them.
constexpr std::size_t kCopyEngineMinPiece = 64u << 20;
constexpr std::size_t kReduceScatterCopyEngineFrom = ~std::size_t{0};
// Grids when config.programs = 0: a block per this much work, 1 .. kMaxBlocks.
constexpr std::size_t kAllReduceBytesPerBlock = 16u << 10;
constexpr std::size_t kMoveBytesPerBlock = 64u << 10;

// ---- kernels ------------------------------------------------------------------------------------

// Stores that one thread makes of a reduced vector or element into PE pe's copy of dest.
template <class T>
__device__ __forceinline__ void store_vec(T *dest, std::int64_t index, uint4 raw, int pe) {
  *reinterpret_cast<uint4 *>(dev::symm_at(dest + index, pe)) = raw;
}
template <class T>
__device__ __forceinline__ void store_one(T *dest, std::int64_t index, T value, int pe) {
  *dev::symm_at(dest + index, pe) = value;
}

// Thread 0, after the block's stores: data[me][block] = epoch on every peer. A release store
// after the barrier is enough: bar.sync orders the block's stores before thread 0's, and a release
// at system scope is cumulative, so a peer that acquires the signal sees them all (a fence.sc.sys
// before it measured 0.5 us a call on an H200, for nothing).
__device__ __forceinline__ void notify_peers(std::uint64_t *slot0, SlotMap map, std::uint64_t epoch) {
  __syncthreads();
  const int me = dev::rank();
  const int n = dev::num_ranks();
  if (threadIdx.x == 0) {
    for (int k = 1; k < n; ++k) {
      dev::signal_op(slotAt(slot0, map.data(me, blockIdx.x)), epoch, SignalOp::Set, (me + k) % n);
    }
  }
}

// Every peer's data[src][block] >= epoch (thread t waits for PE t).
__device__ __forceinline__ void wait_sources(std::uint64_t *slot0, SlotMap map, std::uint64_t epoch) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  for (int pe = threadIdx.x; pe < n; pe += blockDim.x) {
    if (pe != me) dev::signal_wait_until(slotAt(slot0, map.data(pe, blockIdx.x)), Cmp::GE, epoch);
  }
  __syncthreads();
}

__global__ void __launch_bounds__(detail::kThreads)
    all_gather_sm(const std::byte *input, std::byte *output, std::size_t bytes, std::uint64_t *slot0, SlotMap map) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const std::uint64_t epoch = detail::call_epoch(slot0);
  detail::announce_and_wait_entry(slot0, map, epoch);
  // push_slice: own output first, then the next PEs round the ring (each PE starts on its own).
  Span slice = detail::piece(static_cast<std::int64_t>(bytes), gridDim.x, blockIdx.x, 16);
  for (int k = 0; k < n; ++k) {
    dev::putmem_block(output + static_cast<std::size_t>(me) * bytes + slice.lo, input + slice.lo,
                      static_cast<std::size_t>(slice.size()), (me + k) % n);
  }
  notify_peers(slot0, map, epoch);
  wait_sources(slot0, map, epoch);
  detail::finish_call(slot0, epoch);
}

// The copy-engine paths' two ends, one block: enter (announce, wait) and leave (notify, wait,
// finish the call). The copies between them are the stream's, so they are done before leave runs.
__global__ void ce_enter(std::uint64_t *slot0, SlotMap map) {
  detail::announce_and_wait_entry(slot0, map, detail::call_epoch(slot0));
}

__global__ void ce_leave(std::uint64_t *slot0, SlotMap map) {
  const std::uint64_t epoch = detail::call_epoch(slot0);
  notify_peers(slot0, map, epoch);  // blockIdx.x = 0: data[me][0]
  wait_sources(slot0, map, epoch);
  detail::finish_call(slot0, epoch);
}

template <class T>
__global__ void __launch_bounds__(detail::kThreads)
    reduce_scatter_sm(const T *input, T *output, std::int64_t block_numel, bool vectorized, std::uint64_t *slot0,
                      SlotMap map) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const std::uint64_t epoch = detail::call_epoch(slot0);
  detail::announce_and_wait_entry(slot0, map, epoch);
  // pull_and_reduce: block `me` of every PE's input, this block's slice of it.
  Span slice = detail::piece(block_numel, gridDim.x, blockIdx.x, Acc<T>::kN);
  const T *mine = input + static_cast<std::int64_t>(me) * block_numel + slice.lo;
  T *out = output + slice.lo;
  detail::reduce_span<T, T>(
      slice.size(), n, vectorized, [&](int pe) { return dev::symm_at(mine, pe); },
      [&](std::int64_t i, uint4 raw) { store_vec(out, i, raw, me); },
      [&](std::int64_t i, T v) { store_one(out, i, v, me); });
  // notify_done: this block has read its slice of every peer's input.
  notify_peers(slot0, map, epoch);
  wait_sources(slot0, map, epoch);
  detail::finish_call(slot0, epoch);
}

// One round of the copy-engine reduce_scatter: staging holds `count` elements of every peer
// (row pe at pe * row_stride; this PE's own row is its input).
template <class T>
__global__ void __launch_bounds__(detail::kThreads)
    reduce_staged(const T *own, const T *staging, std::int64_t row_stride, T *output, std::int64_t count,
                  bool vectorized) {
  const int me = dev::rank();
  Span slice = detail::piece(count, gridDim.x, blockIdx.x, Acc<T>::kN);
  T *out = output + slice.lo;
  detail::reduce_span<T, T>(
      slice.size(), dev::num_ranks(), vectorized,
      [&](int pe) { return (pe == me ? own : staging + pe * row_stride) + slice.lo; },
      [&](std::int64_t i, uint4 raw) { store_vec(out, i, raw, me); },
      [&](std::int64_t i, T v) { store_one(out, i, v, me); });
}

template <class T>
__global__ void __launch_bounds__(detail::kThreads)
    all_reduce_one_shot(const T *input, T *output, std::int64_t numel, T *buffers, std::int64_t buffer_numel,
                        std::uint64_t *slot0, SlotMap map) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const std::uint64_t epoch = detail::call_epoch(slot0);
  const int parity = static_cast<int>(epoch & 1);
  // buffers[parity][src]: where src's input lands on every PE.
  auto buffer = [&](int src) { return buffers + (static_cast<std::int64_t>(parity) * n + src) * buffer_numel; };
  Span slice = detail::piece(numel, gridDim.x, blockIdx.x, Acc<T>::kN);

  // enter: the fast path when the previous call was a one-shot (see REUSE PROTOCOL), else the
  // entry handshake of every other body.
  const std::uint64_t other =
      *reinterpret_cast<volatile std::uint64_t *>(slotAt(slot0, detail::kSlotLastOneShot + (parity ^ 1)));
  if (!(epoch > 1 && other == epoch - 1)) detail::announce_and_wait_entry(slot0, map, epoch);
  // push_slice into every peer's buffer[parity][me], starting with the next PE.
  for (int k = 1; k < n; ++k) {
    dev::putmem_block(buffer(me) + slice.lo, input + slice.lo, static_cast<std::size_t>(slice.size()) * sizeof(T),
                      (me + k) % n);
  }
  notify_peers(slot0, map, epoch);
  wait_sources(slot0, map, epoch);
  // reduce_slice in PE order: this PE's own input, the others' buffers.
  T *out = output + slice.lo;
  detail::reduce_span<T, T>(
      slice.size(), n, true, [&](int pe) { return (pe == me ? input : buffer(pe)) + slice.lo; },
      [&](std::int64_t i, uint4 raw) { store_vec(out, i, raw, me); },
      [&](std::int64_t i, T v) { store_one(out, i, v, me); });
  // Once every block has read: this call is the last one-shot of its parity.
  detail::finish_call(slot0, epoch, [&] {
    if (threadIdx.x == 0) {
      *reinterpret_cast<volatile std::uint64_t *>(slotAt(slot0, detail::kSlotLastOneShot + parity)) = epoch;
    }
  });
}

template <class T>
__global__ void __launch_bounds__(detail::kThreads)
    all_reduce_two_shot(const T *input, T *output, std::int64_t numel, std::uint64_t *slot0, SlotMap map) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const std::uint64_t epoch = detail::call_epoch(slot0);
  detail::announce_and_wait_entry(slot0, map, epoch);
  // reduce_part: this block's slice of part `me`, from every PE's input, to every PE's output.
  Span part = detail::piece(numel, n, me, Acc<T>::kN);
  Span slice = detail::piece(part.size(), gridDim.x, blockIdx.x, Acc<T>::kN);
  const std::int64_t first = part.lo + slice.lo;
  const T *in = input + first;
  T *out = output + first;
  detail::reduce_span<T, T>(
      slice.size(), n, true, [&](int pe) { return dev::symm_at(in, pe); },
      [&](std::int64_t i, uint4 raw) {
        for (int k = 0; k < n; ++k) store_vec(out, i, raw, (me + k) % n);
      },
      [&](std::int64_t i, T v) {
        for (int k = 0; k < n; ++k) store_one(out, i, v, (me + k) % n);
      });
  notify_peers(slot0, map, epoch);
  wait_sources(slot0, map, epoch);
  detail::finish_call(slot0, epoch);
}

// One round of the ring: block b carries chunk b (`chunk` elements from `first`) round the ring.
// Its two signals come from the previous PE: data[prev][2b] (the partial sum is in this PE's
// scratch) and data[prev][2b + 1] (the rounded total is in this PE's output).
template <class T>
__global__ void __launch_bounds__(detail::kThreads)
    all_reduce_ring(const T *input, T *output, std::int64_t numel, std::int64_t chunk, float *partials,
                    std::uint64_t *slot0, SlotMap map) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const int prev = (me + n - 1) % n;
  const int next = (me + 1) % n;
  const std::uint64_t epoch = detail::call_epoch(slot0);
  detail::announce_and_wait_entry(slot0, map, epoch);  // the next PE's scratch and output are free
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * chunk;
  const std::int64_t length = first < numel ? (numel - first < chunk ? numel - first : chunk) : 0;
  const T *in = input + first;
  T *out = output + first;
  float *received = partials + static_cast<std::int64_t>(blockIdx.x) * chunk;  // written by prev
  auto wait_prev = [&](int which) {
    if (threadIdx.x == 0) dev::signal_wait_until(slotAt(slot0, map.data(prev, 2 * blockIdx.x + which)), Cmp::GE, epoch);
    __syncthreads();
  };
  auto notify_next = [&](int which) {
    __syncthreads();
    if (threadIdx.x == 0) {  // the release is cumulative (notify_peers)
      dev::signal_op(slotAt(slot0, map.data(me, 2 * blockIdx.x + which)), epoch, SignalOp::Set, next);
    }
  };
  if (length > 0) {
    // add_own: PE 0 starts the sum with its own values; every later PE adds its own to its
    // predecessor's partial, in f32.
    if (me > 0) wait_prev(0);
    auto partial = [&](std::int64_t i) {
      return me == 0 ? detail::to_f32(in[i]) : __fadd_rn(received[i], detail::to_f32(in[i]));
    };
    if (me + 1 < n) {
      // pass_partial into the next PE's scratch; then wait_total, which the previous PE puts
      // into this PE's output.
      float *theirs = dev::symm_at(received, next);
      for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) theirs[i] = partial(i);
      notify_next(0);
      wait_prev(1);
    } else {
      for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) out[i] = detail::from_f32<T>(partial(i));
    }
    // pass_total on round the ring, n-1 -> 0 -> 1 -> ... -> n-2.
    if (n > 1 && next != n - 1) {
      __syncthreads();
      T *theirs = dev::symm_at(out, next);
      for (std::int64_t i = threadIdx.x; i < length; i += blockDim.x) theirs[i] = out[i];
      notify_next(1);
    }
  }
  detail::finish_call(slot0, epoch);
}

// ---- host side ------------------------------------------------------------------------------------

bool copyEngineFor(int engine_value, std::size_t bytes, std::size_t from) {
  // AllGatherConfig::Engine and ReduceScatterConfig::Engine: Auto = 0, Sm = 1, CopyEngine = 2.
  if (engine_value == 0) return bytes >= from;
  return engine_value == 2;
}

void launchReduceStaged(DType dtype, const void *own, const void *staging, std::int64_t row_stride, void *output,
                        std::int64_t count, bool vectorized, int blocks, cudaStream_t stream) {
  host::withElement(dtype, "tdist::kernels::reduce_scatter", [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    reduce_staged<T><<<blocks, detail::kThreads, 0, stream>>>(static_cast<const T *>(own),
                                                             static_cast<const T *>(staging), row_stride,
                                                             static_cast<T *>(output), count, vectorized);
  });
  tdist::cuda::check_launch("tdist::kernels::reduce_scatter");
}

// Rounds of a call: `count` pieces of at most `piece` elements, each a kernel, so each with the
// device's next epoch (every PE alike).
template <class Round>
void inRounds(std::int64_t numel, std::int64_t piece, Round &&round) {
  for (std::int64_t first = 0; first < numel; first += piece) round(first, numel - first < piece ? numel - first : piece);
}

std::size_t oneShotBufferBytes(const detail::ScratchMap &scratch, int n) {
  // 2 parities x n sources in the peer-written half of the scratch, each rounded down to 256 bytes.
  return (scratch.oneShotBytes() / (2 * static_cast<std::size_t>(n))) & ~std::size_t{255};
}

template <class T>
void oneShot(Context &ctx, const T *in, T *out, std::int64_t numel, const AllReduceConfig &config, SlotMap map,
             cudaStream_t stream) {
  constexpr const char *kernel = "tdist::kernels::all_reduce";
  detail::ScratchMap scratch{static_cast<std::byte *>(ctx.scratch()), ctx.scratchBytes()};
  const std::size_t buffer_bytes = oneShotBufferBytes(scratch, map.n);
  if (buffer_bytes < 256) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": one-shot needs " +
                                             std::to_string(4 * 256 * map.n) +
                                             " bytes of scratch at least, the context has " +
                                             std::to_string(ctx.scratchBytes()) + " (ContextOptions.scratch_bytes)");
  }
  const auto buffer_numel = static_cast<std::int64_t>(buffer_bytes / sizeof(T));
  inRounds(numel, buffer_numel, [&](std::int64_t first, std::int64_t count) {
    const int blocks = host::blocksFor(config.programs, static_cast<std::size_t>(count) * sizeof(T),
                                       kAllReduceBytesPerBlock, kernel, map.blocks);
    all_reduce_one_shot<T><<<blocks, detail::kThreads, 0, stream>>>(
        in + first, out + first, count, reinterpret_cast<T *>(scratch.oneShot()), buffer_numel, ctx.slot(0), map);
    tdist::cuda::check_launch(kernel);
  });
}

template <class T>
void ring(Context &ctx, const T *in, T *out, std::int64_t numel, const AllReduceConfig &config, SlotMap map,
          cudaStream_t stream) {
  constexpr const char *kernel = "tdist::kernels::all_reduce";
  detail::ScratchMap scratch{static_cast<std::byte *>(ctx.scratch()), ctx.scratchBytes()};
  // Chunks of whole 16-byte vectors of T; a round is as many chunks as the f32 partials of the
  // peer-written half of the scratch and two data slots per chunk allow (map.blocks >= 2: the
  // entry point checked the ring's slots, backend.cpp).
  const std::int64_t region = static_cast<std::int64_t>(scratch.oneShotBytes() / sizeof(float)) & ~std::int64_t{7};
  if (region < 8) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": the ring needs " + std::to_string(2 * 8 * 4) +
                                             " bytes of scratch at least (ContextOptions.scratch_bytes)");
  }
  std::int64_t chunk = static_cast<std::int64_t>(config.chunk_bytes / sizeof(T)) & ~std::int64_t{7};
  if (chunk > region) chunk = region;
  const std::int64_t chunks = (numel + chunk - 1) / chunk;
  // A block a chunk, every block waiting on its predecessor: at most this PE's share of the GPU.
  std::int64_t per_round = std::min<std::int64_t>({map.blocks / 2, region / chunk, chunks, host::smShare()});
  if (config.programs != 0 && config.programs < per_round) per_round = config.programs;
  inRounds(numel, per_round * chunk, [&](std::int64_t first, std::int64_t count) {
    const auto blocks = static_cast<int>((count + chunk - 1) / chunk);
    all_reduce_ring<T><<<blocks, detail::kThreads, 0, stream>>>(
        in + first, out + first, count, chunk, reinterpret_cast<float *>(scratch.oneShot()), ctx.slot(0), map);
    tdist::cuda::check_launch(kernel);
  });
}

}  // namespace

void allGather(Context &ctx, const AllGatherCall &call) {
  const auto &[input, output, config] = call;
  constexpr const char *kernel = "tdist::kernels::all_gather";
  const int n = nPes();
  const int me = myPe();
  const std::size_t bytes = input.nbytes();
  if (bytes == 0) return;  // the same on every PE: nothing to move, no call on the device
  const SlotMap map = host::slotMapFor(ctx, n, kernel);
  std::uint64_t *slot0 = ctx.slot(0);
  cudaStream_t stream = host::streamOf(ctx);
  if (!copyEngineFor(static_cast<int>(config.engine), bytes, kAllGatherCopyEngineFrom)) {
    int blocks = host::blocksFor(config.programs, bytes, kMoveBytesPerBlock, kernel, map.blocks);
    all_gather_sm<<<blocks, detail::kThreads, 0, stream>>>(static_cast<const std::byte *>(input.data),
                                                          static_cast<std::byte *>(output.data), bytes, slot0, map);
    tdist::cuda::check_launch(kernel);
    return;
  }
  ce_enter<<<1, 32, 0, stream>>>(slot0, map);
  tdist::cuda::check_launch(kernel);
  auto *out = static_cast<std::byte *>(output.data) + static_cast<std::size_t>(me) * bytes;
  const auto *in = static_cast<const std::byte *>(input.data);
  const std::size_t piece = config.chunk_bytes > kCopyEngineMinPiece ? config.chunk_bytes : kCopyEngineMinPiece;
  for (int k = 0; k < n; ++k) {
    const int pe = (me + k) % n;
    for (std::size_t at = 0; at < bytes; at += piece) {
      std::size_t len = bytes - at < piece ? bytes - at : piece;
      tdist::cuda::putmem_on_stream(out + at, in + at, len, pe, stream);
    }
  }
  ce_leave<<<1, 32, 0, stream>>>(slot0, map);
  tdist::cuda::check_launch(kernel);
}

void reduceScatter(Context &ctx, const ReduceScatterCall &call) {
  const auto &[input, output, config] = call;
  constexpr const char *kernel = "tdist::kernels::reduce_scatter";
  const int n = nPes();
  const int me = myPe();
  const std::int64_t block_numel = output.numel();
  const std::size_t element = dtypeSize(input.dtype);
  const std::size_t block_bytes = static_cast<std::size_t>(block_numel) * element;
  if (block_numel == 0) return;
  const SlotMap map = host::slotMapFor(ctx, n, kernel);
  std::uint64_t *slot0 = ctx.slot(0);
  cudaStream_t stream = host::streamOf(ctx);
  host::requireAligned16(input.data, kernel, "input");
  host::requireAligned16(output.data, kernel, "output");
  const bool vectorized = block_bytes % 16 == 0;  // every PE's block starts 16-byte aligned
  if (!copyEngineFor(static_cast<int>(config.engine), block_bytes, kReduceScatterCopyEngineFrom)) {
    int blocks = host::blocksFor(config.programs, block_bytes, kMoveBytesPerBlock, kernel, map.blocks);
    host::withElement(input.dtype, kernel, [&](auto *tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      reduce_scatter_sm<T><<<blocks, detail::kThreads, 0, stream>>>(
          static_cast<const T *>(input.data), static_cast<T *>(output.data), block_numel, vectorized, slot0, map);
    });
    tdist::cuda::check_launch(kernel);
    return;
  }
  // Rounds of `round` elements: n staging rows of them fit this PE's local staging (written only
  // by this PE, so the rounds share the call's epoch).
  detail::ScratchMap scratch{static_cast<std::byte *>(ctx.scratch()), ctx.scratchBytes()};
  std::size_t row_bytes = scratch.stagingBytes() / static_cast<std::size_t>(n);
  const std::size_t piece = config.chunk_bytes > kCopyEngineMinPiece ? config.chunk_bytes : kCopyEngineMinPiece;
  if (row_bytes > piece) row_bytes = piece;
  row_bytes &= ~std::size_t{255};
  if (row_bytes < element) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": the context's scratch is too small for the "
                                                               "copy-engine path (ContextOptions.scratch_bytes)");
  }
  const std::int64_t round = static_cast<std::int64_t>(row_bytes / element);
  const std::int64_t row_stride = round;
  ce_enter<<<1, 32, 0, stream>>>(slot0, map);
  tdist::cuda::check_launch(kernel);
  const auto *in = static_cast<const std::byte *>(input.data);
  auto *out = static_cast<std::byte *>(output.data);
  const std::size_t mine = static_cast<std::size_t>(me) * block_bytes;
  for (std::int64_t at = 0; at < block_numel; at += round) {
    const std::int64_t count = block_numel - at < round ? block_numel - at : round;
    const std::size_t offset = static_cast<std::size_t>(at) * element;
    const std::size_t len = static_cast<std::size_t>(count) * element;
    for (int k = 1; k < n; ++k) {  // pull_chunk from the next PEs round the ring
      const int pe = (me + k) % n;
      tdist::cuda::getmem_on_stream(scratch.staging() + static_cast<std::size_t>(pe) * row_bytes, in + mine + offset,
                                    len, pe, stream);
    }
    int round_blocks = host::blocksFor(config.programs, len, kMoveBytesPerBlock, kernel);
    launchReduceStaged(input.dtype, in + mine + offset, scratch.staging(), row_stride, out + offset, count,
                       vectorized, round_blocks, stream);
  }
  ce_leave<<<1, 32, 0, stream>>>(slot0, map);  // notify_done, wait for every peer's
  tdist::cuda::check_launch(kernel);
}

void allReduce(Context &ctx, const AllReduceCall &call) {
  const auto &[input, output, config, algorithm] = call;
  constexpr const char *kernel = "tdist::kernels::all_reduce";
  const int n = nPes();
  const std::int64_t numel = input.numel();
  const std::size_t bytes = input.nbytes();
  if (numel == 0) return;
  const SlotMap map = host::slotMapFor(ctx, n, kernel);
  cudaStream_t stream = host::streamOf(ctx);
  host::requireAligned16(input.data, kernel, "input");
  host::requireAligned16(output.data, kernel, "output");
  host::withElement(input.dtype, kernel, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const auto *in = static_cast<const T *>(input.data);
    auto *out = static_cast<T *>(output.data);
    switch (algorithm) {
      case AllReduceAlgorithm::Auto:
      case AllReduceAlgorithm::OneShot: return oneShot<T>(ctx, in, out, numel, config, map, stream);
      case AllReduceAlgorithm::Ring: return ring<T>(ctx, in, out, numel, config, map, stream);
      case AllReduceAlgorithm::TwoShot: {
        const int blocks = host::blocksFor(config.programs, bytes, kAllReduceBytesPerBlock, kernel, map.blocks);
        all_reduce_two_shot<T><<<blocks, detail::kThreads, 0, stream>>>(in, out, numel, ctx.slot(0), map);
        tdist::cuda::check_launch(kernel);
        return;
      }
    }
  });
}

}  // namespace tdist::kernels::cuda::TDIST_COLLECTIVES_FLAVOR
