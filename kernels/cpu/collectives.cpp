// kernels/cpu/collectives.cpp - AllGather, ReduceScatter and AllReduce on the cpu backend:
// each chunk's work is a few steps (push, wait and reduce, ...), moving data with
// put-with-signal; every PE starts with its own block and goes round the ring from there. With
// one launch worker per PE (cores / PEs, TDIST_WORKERS) the steps run inline on the calling
// thread, every chunk's first step before any chunk's second, and so on; with more, programs
// are fibers of tdist::launch, one per chunk (up to config.programs), each running its chunks'
// steps in turn. Where every PE is alone on its node, a large f32 two-shot all_reduce and a large
// all_gather run on the runtime's team collectives instead (onTeamCollectives below).
//
// Signals. A signal per (source PE, chunk): the source writes the epoch (SET) with its data,
// the receiver waits for that epoch or a later one; nothing is reset.
// Buffer reuse. The entry handshake (kernels/checks.h) is through only once every PE has
// finished its previous call on the context, so no PE writes into a peer's scratch, output or
// slots while a slow one still reads the previous call's. Nothing of a call happens on a PE's
// memory after that PE returns: every body only pushes (blocking puts, complete on return; to a
// peer of another node non-blocking ones, which the call's closing quiet completes), and each PE
// waits for everything pushed to it. When the scratch or the signal slots are too
// few for a whole tensor, a call runs in rounds, each a piece of every block, separated by a
// barrier, each round with an epoch of its own (the context's next one: every PE takes the
// same number, so contexts stay in step).
// Determinism. Every element is summed in PE order 0, 1, ..., n - 1 in f32 (starting from PE
// 0's value, not from 0), and rounded to the storage type once.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "kernels/checks.h"
#include "kernels/context_state.h"
#include "kernels/cpu/bodies.h"
#include "kernels/cpu/bfloat16.h"
#include "tdist/dl.h"
#include "tdist/error.h"
#include "tdist/launch.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "tdist/trace.h"

namespace tdist::kernels::cpu {
namespace {

constexpr int kDefaultMaxPrograms = 64;

template <class F>
void byDtype(DType dtype, F &&body) {
  switch (dtype) {
    case DType::F32: return body(float{});
    case DType::BF16: return body(BFloat16{});
    case DType::F16: return body(Float16{});
    default: throw Error(ErrorCode::Internal, std::string("kernels: no cpu body for dtype ") + dtypeName(dtype));
  }
}

// Rounds of chunks: a round covers `per_round` elements of every block (chunks_per_round
// chunks of `chunk` elements), as many as the scratch and the signal slots hold.
struct Rounds {
  std::int64_t chunk = 1;
  std::int64_t chunks_per_round = 1;
  std::int64_t per_round = 0;
  std::int64_t count = 0;

  std::int64_t chunksIn(std::int64_t round, std::int64_t block) const {
    const std::int64_t left = std::min(per_round, block - round * per_round);
    return (left + chunk - 1) / chunk;
  }
};

// block: the elements of the largest block; scratch_per_block: the elements of scratch each
// block's round may use (-1: none needed); slots_per_chunk: signal slots a chunk takes.
Rounds planRounds(const char *kernel, const Context &ctx, std::int64_t block, std::size_t element_bytes,
                  std::size_t chunk_bytes, std::int64_t scratch_per_block, int slots_per_chunk) {
  Rounds rounds;
  rounds.chunk = std::max<std::int64_t>(1, static_cast<std::int64_t>(chunk_bytes / element_bytes));
  if (block == 0) return rounds;
  if (scratch_per_block >= 0) {
    if (scratch_per_block == 0) {
      throw Error(ErrorCode::InvalidParam,
                  std::string(kernel) + ": the context's scratch of " + std::to_string(ctx.scratchBytes()) +
                      " bytes cannot hold one element of every PE; it needs at least " +
                      std::to_string(element_bytes * static_cast<std::size_t>(slots_per_chunk)) + " bytes");
    }
    rounds.chunk = std::min(rounds.chunk, scratch_per_block);
  }
  // At least 1: the entry point checked the slots of one chunk (the table's slots, backend.cpp).
  const std::int64_t by_slots = ctx.maxSignals() / slots_per_chunk;
  const std::int64_t by_scratch = scratch_per_block >= 0 ? scratch_per_block / rounds.chunk : by_slots;
  const std::int64_t needed = (block + rounds.chunk - 1) / rounds.chunk;
  rounds.chunks_per_round = std::max<std::int64_t>(1, std::min({by_slots, by_scratch, needed}));
  rounds.per_round = rounds.chunks_per_round * rounds.chunk;
  rounds.count = (block + rounds.per_round - 1) / rounds.per_round;
  return rounds;
}

int programsFor(int configured, std::int64_t chunks) {
  const std::int64_t most = configured > 0 ? configured : kDefaultMaxPrograms;
  return static_cast<int>(std::max<std::int64_t>(1, std::min(most, chunks)));
}

// Runs round(r, epoch) for every round, a barrier between rounds (none after the last: the
// next call's handshake orders it, see the top of the file).
template <class Round>
void inRounds(Context &ctx, const Rounds &rounds, std::uint64_t epoch, Round &&round) {
  for (std::int64_t r = 0; r < rounds.count; ++r) {
    if (r > 0) {
      shmem::barrier_all();
      epoch = nextEpoch(ctx);
    }
    round(r, epoch);
  }
}

// The workers a launch of this PE gets by default (tdist/launch.h: TDIST_WORKERS, else cores /
// PEs on this host; every PE of the cpu backend is on this host).
int launchWorkers() {
  if (const char *text = std::getenv("TDIST_WORKERS")) {
    char *end = nullptr;
    const long workers = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && workers > 0) return static_cast<int>(workers);
  }
  long pes = shmem::n_pes();
  if (const char *text = std::getenv("TDIST_LOCAL_PES")) {
    char *end = nullptr;
    const long local = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && local > 0) pes = local;
  }
  return static_cast<int>(std::max<long>(1, std::thread::hardware_concurrency() / pes));
}

// Runs steps(c)... for c in 0 .. chunks-1. Inline when one worker would run the programs
// anyway (a launch costs 15-40 us here, docs/BENCHMARKS.md): first step of every chunk, then the
// second of every chunk, ...; so a chunk's wait never holds back another chunk's push, as a
// fiber that yields in its wait would not either. Otherwise over a grid of programs, program p
// running every step of chunks p, p + P, ... A step may only wait for earlier steps (of any
// chunk, on any PE) and for the same step of other PEs.
template <class... Steps>
void overChunks(std::int64_t chunks, int configured_programs, Steps &&...steps) {
  if (chunks == 0) return;
  const int programs = programsFor(configured_programs, chunks);
  if (programs == 1 || launchWorkers() == 1) {
    const auto run = [&](auto &step) {
      for (std::int64_t c = 0; c < chunks; ++c) step(c);
    };
    (run(steps), ...);
    return;
  }
  launch(Grid{programs}, [&] {
    for (std::int64_t c = dl::program_id(); c < chunks; c += programs) (steps(c), ...);
  });
}

void signalWait(Context &ctx, int slot, std::uint64_t epoch) {
  trace::Span span(trace::Category::Wait, "wait_chunk", slot);
  shmem::signal_wait_until<std::uint64_t>(ctx.slot(slot), shmem::Cmp::GE, epoch);
}

// The cpu backend's network engine sends a put with a signal of up to this many bytes as one
// message, which a blocking put hands over at once (docs/RUNTIME.md, "A put with a signal as one
// message"); a larger one waits for its atomic's reply. The two limits are the same.
constexpr std::size_t kOneMessageBytes = std::size_t{64} << 10;

// A chunk to a peer with its signal. To a peer through the network (another node) a chunk larger
// than a message is put non-blocking, so that pushes to several peers, and the waits after them,
// share their round trips; the call's end waits for them (settled() below). `source` must then
// live until the call returns: a step's temporary passes `lasting` false and is put blocking.
void putWithSignal(Context &ctx, void *dest, const void *source, std::size_t bytes, int slot, std::uint64_t epoch,
                   int pe, bool lasting = true) {
  trace::Span span(trace::Category::Move, "push_chunk", slot, pe);
  if (lasting && bytes > kOneMessageBytes && detail::throughNetwork(pe)) {
    shmem::putmem_signal_nbi<std::uint64_t>(dest, source, bytes, ctx.slot(slot), epoch, shmem::SignalOp::Set, pe);
    detail::ContextAccess::state(ctx).network_puts_posted = true;
  } else {
    shmem::putmem_signal<std::uint64_t>(dest, source, bytes, ctx.slot(slot), epoch, shmem::SignalOp::Set, pe);
  }
}

// The end of a call: its non-blocking puts complete, so that nothing reads its tensors after it
// returns. Every peer waited for what it was sent, so this waits only for the last replies.
void settled(Context &ctx) {
  bool &posted = detail::ContextAccess::state(ctx).network_puts_posted;
  if (posted) shmem::quiet();
  posted = false;
}

// out[i] = sum over src = 0 .. n-1 of source(src)[i], for i in 0 .. length-1: in f32, in PE
// order (PE 0's value first, then + PE 1's, ...), rounded once; a block of elements at a time,
// every source's whole block in turn, so that the inner loops vectorize.
template <class T, class Source>
void sumInPeOrder(int n, std::int64_t length, Source &&source, T *out) {
  trace::Span span(trace::Category::Compute, "reduce");
  constexpr std::int64_t kBlock = 1024;
  // On the heap: a program's stack is small, and a call may run on one (kernels run as fibers).
  std::vector<float> acc(static_cast<std::size_t>(std::min(kBlock, length)));
  // The loops are SIMD loops (kernels/CMakeLists.txt builds with -fopenmp-simd): at -O2 GCC's
  // cost model leaves loops that need an alias check scalar, and the sum ran at a third of the
  // speed of memory (a 256 KiB all_reduce on 2 PEs spent 58% of its time here, one float a step).
  float *const sum = acc.data();
  for (std::int64_t first = 0; first < length; first += kBlock) {
    const std::int64_t count = std::min(kBlock, length - first);
    const T *from = source(0) + first;
#pragma omp simd
    for (std::int64_t i = 0; i < count; ++i) sum[i] = load(from[i]);
    for (int src = 1; src < n; ++src) {
      from = source(src) + first;
#pragma omp simd
      for (std::int64_t i = 0; i < count; ++i) sum[i] += load(from[i]);
    }
    T *const to = out + first;
#pragma omp simd
    for (std::int64_t i = 0; i < count; ++i) to[i] = store<T>(sum[i]);
  }
}

// ---- AllGather ----------------------------------------------------------------------------

template <class T>
void allGatherTyped(Context &ctx, const Tensor &input, Tensor &output, const AllGatherConfig &config,
                    std::uint64_t epoch) {
  const int me = shmem::my_pe(), n = shmem::n_pes();
  const std::int64_t numel = input.numel();
  const T *in = input.as<const T>();
  T *out = output.as<T>();
  const Rounds rounds = planRounds("tdist::kernels::all_gather", ctx, numel, sizeof(T), config.chunk_bytes, -1, n);
  const auto slot = [&](int src, std::int64_t c) { return static_cast<int>(src * rounds.chunks_per_round + c); };
  inRounds(ctx, rounds, epoch, [&](std::int64_t r, std::uint64_t e) {
    const auto push_chunk = [&](std::int64_t c) {
      const std::int64_t first = r * rounds.per_round + c * rounds.chunk;
      const std::size_t bytes = std::min(rounds.chunk, numel - first) * sizeof(T);
      // Own block first (j = 0), then the peers after this PE.
      for (int j = 0; j < n; ++j) {
        putWithSignal(ctx, out + me * numel + first, in + first, bytes, slot(me, c), e, (me + j) % n);
      }
    };
    // wait_chunk: every source's copy of this chunk has arrived.
    const auto wait_chunk = [&](std::int64_t c) {
      for (int j = 0; j < n; ++j) signalWait(ctx, slot((me + j) % n, c), e);
    };
    overChunks(rounds.chunksIn(r, numel), config.programs, push_chunk, wait_chunk);
  });
}

// ---- ReduceScatter, and the reduce-scatter of AllReduce -----------------------------------

// Every PE pushes, for each destination PE d, its input's block for d (the elements
// [d * stride, d * stride + blockLength(d)) ) into slot [me] of d's scratch; d sums its slots in
// PE order into `reduced` (this PE's block of the result). With `gather`, each PE then pushes
// its reduced chunks to every peer's `reduced` address (the same symmetric address): two-shot.
struct ScatterReduce {
  std::int64_t stride = 0;  // elements between the blocks of consecutive PEs (0: the whole input)
  std::int64_t block = 0;   // the elements of a full block
  std::int64_t total = 0;   // the elements of the input: the last blocks may be shorter or empty
  bool gather = false;

  std::int64_t blockLength(int pe) const { return std::clamp<std::int64_t>(total - pe * stride, 0, block); }
};

template <class T>
void scatterReduce(Context &ctx, const char *kernel, const T *in, T *out, const ScatterReduce &shape,
                   std::size_t chunk_bytes, int configured_programs, std::uint64_t epoch) {
  const int me = shmem::my_pe(), n = shmem::n_pes();
  const std::int64_t scratch_per_block = static_cast<std::int64_t>(ctx.scratchBytes() / (n * sizeof(T)));
  const int slots_per_chunk = shape.gather ? 2 * n : n;
  const Rounds rounds =
      planRounds(kernel, ctx, shape.block, sizeof(T), chunk_bytes, scratch_per_block, slots_per_chunk);
  T *scratch = static_cast<T *>(ctx.scratch());
  // Slots: [0, n * chunks) for the scattered pieces, then [n * chunks, 2 n * chunks) for the
  // gathered reduced chunks.
  const auto scatter_slot = [&](int src, std::int64_t c) {
    return static_cast<int>(src * rounds.chunks_per_round + c);
  };
  const auto gather_slot = [&](int src, std::int64_t c) {
    return static_cast<int>((n + src) * rounds.chunks_per_round + c);
  };
  T *reduced = out + (shape.gather ? me * shape.stride : 0);
  inRounds(ctx, rounds, epoch, [&](std::int64_t r, std::uint64_t e) {
    const auto offset_of = [&](std::int64_t c) { return r * rounds.per_round + c * rounds.chunk; };  // in a block
    const auto length = [&](int pe, std::int64_t c) {
      return std::clamp<std::int64_t>(shape.blockLength(pe) - offset_of(c), 0, rounds.chunk);
    };
    // push_shard: this PE's own block first, then the peers after it.
    const auto push_shard = [&](std::int64_t c) {
      T *slot_of_me = scratch + me * rounds.per_round + c * rounds.chunk;
      for (int j = 0; j < n; ++j) {
        const int dst = (me + j) % n;
        if (length(dst, c) == 0) continue;
        putWithSignal(ctx, slot_of_me, in + dst * shape.stride + offset_of(c), length(dst, c) * sizeof(T),
                      scatter_slot(me, c), e, dst);
      }
    };
    // wait_shards, then reduce_tile: in PE order, whatever order they arrived in; with gather,
    // notify_peers: the reduced chunk to every peer's copy of this PE's block.
    const auto reduce_chunk = [&](std::int64_t c) {
      const std::int64_t mine = length(me, c), offset = offset_of(c);
      if (mine == 0) return;
      for (int j = 0; j < n; ++j) signalWait(ctx, scatter_slot((me + j) % n, c), e);
      sumInPeOrder<T>(n, mine, [&](int src) { return scratch + src * rounds.per_round + c * rounds.chunk; },
                      reduced + offset);
      if (!shape.gather) return;
      for (int j = 1; j < n; ++j) {
        putWithSignal(ctx, reduced + offset, reduced + offset, mine * sizeof(T), gather_slot(me, c), e,
                      (me + j) % n);
      }
    };
    // wait_tile: every peer's reduced chunk.
    const auto wait_tile = [&](std::int64_t c) {
      for (int j = 1; j < n; ++j) {
        const int src = (me + j) % n;
        if (length(src, c) > 0) signalWait(ctx, gather_slot(src, c), e);
      }
    };
    const std::int64_t chunks = rounds.chunksIn(r, shape.block);
    if (shape.gather) overChunks(chunks, configured_programs, push_shard, reduce_chunk, wait_tile);
    else overChunks(chunks, configured_programs, push_shard, reduce_chunk);
  });
}

// ---- ReduceScatter and the two-shot AllReduce by pulls ------------------------------------

// Where every PE's heap is loadable (the cpu backend maps every peer's), neither needs staging:
// once the handshake is through, every PE's input is ready, so each PE sums block me straight
// from every PE's input (PE order) into its output. The two-shot then pushes each reduced
// chunk into every peer's output; no PE returns before every peer has read its input, since a
// peer pushes its chunk only after reading that chunk of every input, and every PE waits for
// every peer's chunks. In place is safe: block q of an input is read by PE q alone, and
// overwritten (by PE q's push, or by PE q itself) only after PE q read that chunk. The
// reduce-scatter has nothing to push, so each PE tells every peer it is done reading (a signal)
// and returns once every peer is. Returns false (nothing done) where some peer's input cannot
// be loaded.
template <class T>
bool pulledScatterReduce(Context &ctx, const T *in, T *out, std::int64_t numel, std::int64_t block, bool gather,
                         std::size_t chunk_bytes, int configured_programs, std::uint64_t epoch) {
  const int me = shmem::my_pe(), n = shmem::n_pes();
  if (numel == 0) return true;
  std::vector<const T *> inputs(static_cast<std::size_t>(n));
  for (int pe = 0; pe < n; ++pe) {
    inputs[pe] = static_cast<const T *>(shmem::ptr(in, pe));
    if (inputs[pe] == nullptr) return false;
  }
  const auto block_length = [&](int pe) { return std::clamp<std::int64_t>(numel - pe * block, 0, block); };
  const Rounds rounds = planRounds(gather ? "tdist::kernels::all_reduce" : "tdist::kernels::reduce_scatter", ctx,
                                   block, sizeof(T), chunk_bytes, -1, n);
  const auto slot = [&](int src, std::int64_t c) { return static_cast<int>(src * rounds.chunks_per_round + c); };
  T *reduced = gather ? out + me * block : out;
  inRounds(ctx, rounds, epoch, [&](std::int64_t r, std::uint64_t e) {
    const auto offset_of = [&](std::int64_t c) { return r * rounds.per_round + c * rounds.chunk; };  // in a block
    const auto length = [&](int pe, std::int64_t c) {
      return std::clamp<std::int64_t>(block_length(pe) - offset_of(c), 0, rounds.chunk);
    };
    // pull_reduce: this PE's chunk of every input, summed in PE order; two-shot: notify_peers,
    // into every peer's output.
    const auto pull_reduce = [&](std::int64_t c) {
      const std::int64_t mine = length(me, c), offset = offset_of(c);
      if (mine == 0) return;
      sumInPeOrder<T>(n, mine, [&](int src) { return inputs[src] + me * block + offset; }, reduced + offset);
      if (!gather) return;
      for (int j = 1; j < n; ++j) {
        putWithSignal(ctx, reduced + offset, reduced + offset, mine * sizeof(T), slot(me, c), e, (me + j) % n);
      }
    };
    // wait_tile: every peer's reduced chunk.
    const auto wait_tile = [&](std::int64_t c) {
      for (int j = 1; j < n; ++j) {
        const int src = (me + j) % n;
        if (length(src, c) > 0) signalWait(ctx, slot(src, c), e);
      }
    };
    const std::int64_t chunks = rounds.chunksIn(r, block);
    if (gather) return overChunks(chunks, configured_programs, pull_reduce, wait_tile);
    overChunks(chunks, configured_programs, pull_reduce);
    // done_reading, then wait_done: no peer's input is read any more.
    for (int j = 1; j < n; ++j) shmem::signal_op<std::uint64_t>(ctx.slot(slot(me, 0)), e, shmem::SignalOp::Set, (me + j) % n);
    for (int j = 1; j < n; ++j) signalWait(ctx, slot((me + j) % n, 0), e);
  });
  return true;
}

// ---- AllReduce, ring ----------------------------------------------------------------------

// Partial sums pass around the ring in PE order, so the ring keeps the reduction order of
// every other algorithm: PE 0 starts each chunk's sum, PE p adds its own values to what PE
// p - 1 passed it (in f32, in scratch), and PE n - 1 rounds the total, which then goes on round
// the ring, n - 1 -> 0 -> 1 -> ... -> n - 2. Each link carries every chunk at most twice (as a
// ring does), and chunks pipeline: 3 (n - 1) steps of one chunk, not 2 (n - 1) of one block.
template <class T>
void ringAllReduce(Context &ctx, const T *in, T *out, std::int64_t numel, const AllReduceConfig &config,
                   std::uint64_t epoch) {
  const int me = shmem::my_pe(), n = shmem::n_pes();
  const int next = (me + 1) % n;
  const Rounds rounds = planRounds("tdist::kernels::all_reduce", ctx, numel, sizeof(T), config.chunk_bytes,
                                   static_cast<std::int64_t>(ctx.scratchBytes() / sizeof(float)), 2);
  float *partials = static_cast<float *>(ctx.scratch());
  const auto partial_slot = [&](std::int64_t c) { return static_cast<int>(c); };
  const auto total_slot = [&](std::int64_t c) { return static_cast<int>(rounds.chunks_per_round + c); };
  inRounds(ctx, rounds, epoch, [&](std::int64_t r, std::uint64_t e) {
    const auto first_of = [&](std::int64_t c) { return r * rounds.per_round + c * rounds.chunk; };
    const auto length_of = [&](std::int64_t c) { return std::min(rounds.chunk, numel - first_of(c)); };
    // pass_total: the total goes on round the ring unless the next PE is the one that made it.
    const auto pass_total = [&](std::int64_t c) {
      if (next == n - 1 || n == 1) return;
      putWithSignal(ctx, out + first_of(c), out + first_of(c), length_of(c) * sizeof(T), total_slot(c), e, next);
    };
    // add_own: PE 0 starts the sum; every later PE adds to its predecessor's and passes it on;
    // the last rounds the total and starts it round the ring.
    const auto add_own = [&](std::int64_t c) {
      const std::int64_t first = first_of(c), length = length_of(c);
      const float *received = partials + c * rounds.chunk;
      std::vector<float> partial(static_cast<std::size_t>(length));
      if (me > 0) signalWait(ctx, partial_slot(c), e);
      for (std::int64_t i = 0; i < length; ++i) {
        partial[i] = me == 0 ? load(in[first + i]) : received[i] + load(in[first + i]);
      }
      if (me + 1 < n) {
        putWithSignal(ctx, partials + c * rounds.chunk, partial.data(), length * sizeof(float), partial_slot(c), e,
                      next, /*lasting=*/false);
        return;
      }
      for (std::int64_t i = 0; i < length; ++i) out[first + i] = store<T>(partial[i]);
      pass_total(c);
    };
    // wait_total, then pass it on.
    const auto forward_total = [&](std::int64_t c) {
      if (me + 1 == n) return;
      signalWait(ctx, total_slot(c), e);
      pass_total(c);
    };
    overChunks(rounds.chunksIn(r, numel), config.programs, add_own, forward_total);
  });
}

}  // namespace

// ---- Calls whose data came with the handshake -------------------------------------------------

// Whether this call's handshake carried every PE's input (kernels/checks.h, CARRIED BYTES).
bool carriedThisCall(const Context &ctx) {
  const auto &state = detail::ContextAccess::state(ctx);
  return state.carried_at != 0 && state.carried_at == state.handshakes;
}

// What PE src carried with its row of this call's handshake, landed before the row's signal.
const void *carriedFrom(const Context &ctx, int src) {
  const auto &state = detail::ContextAccess::state(ctx);
  const int parity = static_cast<int>(state.handshakes & 1);
  return detail::handshakeRow(state.handshake, state.handshake_row_bytes, shmem::n_pes(), parity, src) + 1;
}

// A small all_gather among peers through the network: past the verdict each PE copies the bytes
// its peers carried, and its own input, into its output's blocks.
void carriedAllGather(Context &ctx, const Tensor &input, Tensor &output) {
  const int me = shmem::my_pe(), n = shmem::n_pes();
  const std::size_t bytes = input.nbytes();
  auto *out = static_cast<std::byte *>(output.data);
  trace::Span span(trace::Category::Compute, "copy_blocks");
  for (int src = 0; src < n; ++src) {
    const void *from = src == me ? input.data : carriedFrom(ctx, src);
    std::memcpy(out + static_cast<std::size_t>(src) * bytes, from, bytes);
  }
}

// ---- Large calls across nodes on the runtime's team collectives ---------------------------

// Where every PE is alone on its node, the runtime's team reduction (tdist::shmem::reduce) moves
// a large call's data with its steps through the host channel: each member's block a step, an
// inbox part at a time, the next step sent while this one is combined, and from three members a
// reduce-scatter then an all-gather (docs/RUNTIME.md, "A large reduction as a reduce-scatter and
// an all-gather"). Through the network that is fewer round trips and copies than this file's
// puts with signals. f32, Auto, three alternating rounds (docs/RUNTIME.md, "The kernel library's
// all_reduce on the runtime's reduction"): 2 nodes of one host, 256 KiB in 134-140 us against
// 196-200, 1 MiB in 531-594 against 712-849; 3 nodes, 285-375 against 495-534 and 1,364-1,461
// against 1,755-2,066; two simulated hosts, 1 MiB in 603-632 against 1,340-1,505. Up to an inbox
// (128 KiB) it measured the same, and where PEs share nodes slower (2 nodes of 2 PEs, 256 KiB:
// 640-704 us against 394), so it is taken only above that and only there. The sum is the same:
// in f32, in PE order from PE 0's value. An all_gather likewise (fcollectmem): 256 KiB a PE in
// 106-138 us against 183-188 between 2 nodes of one host, 127-152 against 295-308 between
// simulated hosts.
constexpr std::size_t kTeamCollectiveMinBytes = std::size_t{128} << 10;

// Whether a call of `bytes` a PE runs on the runtime's team collectives: alike on every PE.
bool onTeamCollectives(const Context &ctx, std::size_t bytes) {
  return bytes > kTeamCollectiveMinBytes && detail::ContextAccess::state(ctx).network_peers && nNodes() == nPes();
}

// A whole call on a runtime collective, traced as `span`; its errors name the kernel (the
// runtime's call after it).
template <class Call>
void onTheRuntime(const char *kernel, const char *span, Call &&call) {
  trace::Span traced(trace::Category::Move, span);
  try {
    call();
  } catch (const Error &e) {
    throw Error(e.code(), std::string(kernel) + ": " + e.what());
  }
}

void allGather(Context &ctx, const AllGatherCall &call) {
  const auto &[input, output, config] = call;
  const std::uint64_t epoch = nextEpoch(ctx);
  if (carriedThisCall(ctx)) return carriedAllGather(ctx, input, output);
  if (onTeamCollectives(ctx, input.nbytes())) {
    // The first part of each PE's input with the agreement into the others' inboxes, the later
    // ones straight into their outputs (docs/RUNTIME.md, "A broadcast's and an fcollect's parts
    // straight into dest").
    return onTheRuntime("tdist::kernels::all_gather", "team_fcollect", [&] {
      shmem::fcollectmem(shmem::kTeamWorld, output.data, input.data, input.nbytes());
    });
  }
  byDtype(input.dtype, [&](auto type) { allGatherTyped<decltype(type)>(ctx, input, output, config, epoch); });
  settled(ctx);
}

void reduceScatter(Context &ctx, const ReduceScatterCall &call) {
  const auto &[input, output, config] = call;
  const std::uint64_t epoch = nextEpoch(ctx);
  byDtype(input.dtype, [&](auto type) {
    using T = decltype(type);
    const std::int64_t block = output.numel();
    if (pulledScatterReduce<T>(ctx, input.as<const T>(), output.as<T>(), input.numel(), block, false,
                               config.chunk_bytes, config.programs, epoch)) {
      return;
    }
    const ScatterReduce shape{block, block, input.numel(), false};
    scatterReduce<T>(ctx, "tdist::kernels::reduce_scatter", input.as<const T>(), output.as<T>(), shape,
                     config.chunk_bytes, config.programs, epoch);
  });
  settled(ctx);
}

// A small one-shot among peers through the network: past the verdict each PE sums the inputs
// its peers carried with its own, in PE order, straight into its output (in place too: a block
// is read whole before it is written). No signal slot, no scratch, no wait.
template <class T>
void carriedOneShot(Context &ctx, const T *in, T *out, std::int64_t numel) {
  const int me = shmem::my_pe();
  sumInPeOrder<T>(shmem::n_pes(), numel, [&](int src) {
    return src == me ? in : static_cast<const T *>(carriedFrom(ctx, src));
  }, out);
}

void allReduce(Context &ctx, const AllReduceCall &call) {
  const auto &[input, output, config, algorithm] = call;
  const std::uint64_t epoch = nextEpoch(ctx);
  const bool carried = carriedThisCall(ctx);
  byDtype(input.dtype, [&](auto type) {
    using T = decltype(type);
    const std::int64_t numel = input.numel();
    const T *in = input.as<const T>();
    T *out = output.as<T>();
    constexpr const char *kName = "tdist::kernels::all_reduce";
    if (carried) return carriedOneShot<T>(ctx, in, out, numel);
    switch (algorithm) {
      case AllReduceAlgorithm::Auto:
      case AllReduceAlgorithm::OneShot:
        return scatterReduce<T>(ctx, kName, in, out, ScatterReduce{0, numel, numel, false}, config.chunk_bytes,
                                config.programs, epoch);
      case AllReduceAlgorithm::TwoShot: {
        if constexpr (std::is_same_v<T, float>) {
          if (onTeamCollectives(ctx, input.nbytes())) {  // dest in place or not
            return onTheRuntime(kName, "team_reduction", [&] {
              shmem::reduce<float>(shmem::kTeamWorld, out, in, static_cast<std::size_t>(numel), shmem::ReduceOp::Sum);
            });
          }
        }
        const std::int64_t pes = shmem::n_pes();
        if (pulledScatterReduce<T>(ctx, in, out, numel, (numel + pes - 1) / pes, true, config.chunk_bytes,
                                   config.programs, epoch)) {
          return;
        }
        const std::int64_t n = shmem::n_pes();
        const std::int64_t block = (numel + n - 1) / n;
        return scatterReduce<T>(ctx, kName, in, out, ScatterReduce{block, block, numel, true}, config.chunk_bytes,
                                config.programs, epoch);
      }
      case AllReduceAlgorithm::Ring: return ringAllReduce<T>(ctx, in, out, numel, config, epoch);
    }
  });
  settled(ctx);
}

}  // namespace tdist::kernels::cpu
