// kernels/cpu/collectives.cpp - AllGather, ReduceScatter and AllReduce on the cpu backend:
// programs are fibers of tdist::launch, one per chunk (up to config.programs), moving data with
// put-with-signal; every PE starts with its own block and goes round the ring from there.
//
// Signals. A signal per (source PE, chunk): the source writes the epoch (SET) with its data,
// the receiver waits for that epoch or a later one; nothing is reset.
// Buffer reuse. Every call ends with a barrier, so no PE starts its next call (and writes into a
// peer's scratch or output, or into a slot) while a slow one still reads this call's. When the
// scratch or the signal slots are too few for a whole tensor, a call runs in rounds, each a
// piece of every block, separated by the same barrier, each round with an epoch of its own
// (the context's next one: every PE takes the same number, so contexts stay in step).
// Determinism. Every element is summed in PE order 0, 1, ..., n - 1 in f32 (starting from PE
// 0's value, not from 0), and rounded to the storage type once.
#include <algorithm>
#include <vector>

#include "kernels/bodies.h"
#include "kernels/cpu/bfloat16.h"
#include "tdist/dl.h"
#include "tdist/launch.h"
#include "tdist/shmem.h"

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
  const std::int64_t by_slots = ctx.maxSignals() / slots_per_chunk;
  if (by_slots == 0) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": the context has " +
                                             std::to_string(ctx.maxSignals()) + " signal slots; it needs at least " +
                                             std::to_string(slots_per_chunk));
  }
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

// Runs round(r, epoch) for every round, a barrier after each: the call's end barrier after the
// last one (see the top of the file).
template <class Round>
void inRounds(Context &ctx, const Rounds &rounds, std::uint64_t epoch, Round &&round) {
  for (std::int64_t r = 0; r < rounds.count; ++r) {
    if (r > 0) epoch = ctx.nextEpoch();
    round(r, epoch);
    if (r + 1 < rounds.count) shmem::barrier_all();
  }
  shmem::barrier_all();
}

// Runs chunk(c) for c in 0 .. chunks-1 over a grid of programs.
template <class Chunk>
void overChunks(std::int64_t chunks, int configured_programs, Chunk &&chunk) {
  if (chunks == 0) return;
  const int programs = programsFor(configured_programs, chunks);
  launch(Grid{programs}, [&] {
    for (std::int64_t c = dl::program_id(); c < chunks; c += programs) chunk(c);
  });
}

void signalWait(Context &ctx, int slot, std::uint64_t epoch) {
  shmem::signal_wait_until<std::uint64_t>(ctx.slot(slot), shmem::Cmp::GE, epoch);
}

void putWithSignal(Context &ctx, void *dest, const void *source, std::size_t bytes, int slot, std::uint64_t epoch,
                   int pe) {
  shmem::putmem_signal<std::uint64_t>(dest, source, bytes, ctx.slot(slot), epoch, shmem::SignalOp::Set, pe);
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
    overChunks(rounds.chunksIn(r, numel), config.programs, [&](std::int64_t c) {
      const std::int64_t first = r * rounds.per_round + c * rounds.chunk;
      const std::size_t bytes = std::min(rounds.chunk, numel - first) * sizeof(T);
      // push_chunk: own block first (j = 0), then the peers after this PE.
      for (int j = 0; j < n; ++j) {
        putWithSignal(ctx, out + me * numel + first, in + first, bytes, slot(me, c), e, (me + j) % n);
      }
      // wait_chunk: every source's copy of this chunk has arrived.
      for (int j = 0; j < n; ++j) signalWait(ctx, slot((me + j) % n, c), e);
    });
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
    overChunks(rounds.chunksIn(r, shape.block), configured_programs, [&](std::int64_t c) {
      const std::int64_t offset = r * rounds.per_round + c * rounds.chunk;  // within a block
      const auto length = [&](int pe) {
        return std::clamp<std::int64_t>(shape.blockLength(pe) - offset, 0, rounds.chunk);
      };
      T *slot_of_me = scratch + me * rounds.per_round + c * rounds.chunk;
      // push_shard: this PE's own block first, then the peers after it.
      for (int j = 0; j < n; ++j) {
        const int dst = (me + j) % n;
        if (length(dst) == 0) continue;
        putWithSignal(ctx, slot_of_me, in + dst * shape.stride + offset, length(dst) * sizeof(T),
                      scatter_slot(me, c), e, dst);
      }
      const std::int64_t mine = length(me);
      if (mine > 0) {
        // wait_shards, then reduce_tile: in PE order, whatever order they arrived in.
        for (int j = 0; j < n; ++j) signalWait(ctx, scatter_slot((me + j) % n, c), e);
        for (std::int64_t i = 0; i < mine; ++i) {
          float sum = load(scratch[c * rounds.chunk + i]);
          for (int src = 1; src < n; ++src) sum += load(scratch[src * rounds.per_round + c * rounds.chunk + i]);
          reduced[offset + i] = store<T>(sum);
        }
      }
      if (!shape.gather) return;
      // notify_peers: the reduced chunk to every peer's copy of this PE's block.
      for (int j = 1; j < n && mine > 0; ++j) {
        putWithSignal(ctx, reduced + offset, reduced + offset, mine * sizeof(T), gather_slot(me, c), e,
                      (me + j) % n);
      }
      // wait_tile: every peer's reduced chunk.
      for (int j = 1; j < n; ++j) {
        const int src = (me + j) % n;
        if (length(src) > 0) signalWait(ctx, gather_slot(src, c), e);
      }
    });
  });
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
    overChunks(rounds.chunksIn(r, numel), config.programs, [&](std::int64_t c) {
      const std::int64_t first = r * rounds.per_round + c * rounds.chunk;
      const std::int64_t length = std::min(rounds.chunk, numel - first);
      float *received = partials + c * rounds.chunk;
      // add_own: PE 0 starts the sum; every later PE adds to its predecessor's.
      std::vector<float> partial(static_cast<std::size_t>(length));
      if (me > 0) signalWait(ctx, partial_slot(c), e);
      for (std::int64_t i = 0; i < length; ++i) {
        partial[i] = me == 0 ? load(in[first + i]) : received[i] + load(in[first + i]);
      }
      if (me + 1 < n) {
        // pass_partial to the next PE's scratch.
        putWithSignal(ctx, received, partial.data(), length * sizeof(float), partial_slot(c), e, next);
        // wait_total, then pass it on unless the next PE is the one that made it.
        signalWait(ctx, total_slot(c), e);
      } else {
        for (std::int64_t i = 0; i < length; ++i) out[first + i] = store<T>(partial[i]);
      }
      if (next != n - 1 && n > 1) {
        putWithSignal(ctx, out + first, out + first, length * sizeof(T), total_slot(c), e, next);
      }
    });
  });
}

}  // namespace

void allGather(Context &ctx, const Tensor &input, Tensor &output, const AllGatherConfig &config,
               std::uint64_t epoch) {
  byDtype(input.dtype, [&](auto type) { allGatherTyped<decltype(type)>(ctx, input, output, config, epoch); });
}

void reduceScatter(Context &ctx, const Tensor &input, Tensor &output, const ReduceScatterConfig &config,
                   std::uint64_t epoch) {
  byDtype(input.dtype, [&](auto type) {
    using T = decltype(type);
    const std::int64_t block = output.numel();
    const ScatterReduce shape{block, block, input.numel(), false};
    scatterReduce<T>(ctx, "tdist::kernels::reduce_scatter", input.as<const T>(), output.as<T>(), shape,
                     config.chunk_bytes, config.programs, epoch);
  });
}

void allReduce(Context &ctx, const Tensor &input, Tensor &output, AllReduceAlgorithm algorithm,
               const AllReduceConfig &config, std::uint64_t epoch) {
  byDtype(input.dtype, [&](auto type) {
    using T = decltype(type);
    const std::int64_t numel = input.numel();
    const T *in = input.as<const T>();
    T *out = output.as<T>();
    constexpr const char *kName = "tdist::kernels::all_reduce";
    switch (algorithm) {
      case AllReduceAlgorithm::Auto:
      case AllReduceAlgorithm::OneShot:
        return scatterReduce<T>(ctx, kName, in, out, ScatterReduce{0, numel, numel, false}, config.chunk_bytes,
                                config.programs, epoch);
      case AllReduceAlgorithm::TwoShot: {
        const std::int64_t n = shmem::n_pes();
        const std::int64_t block = (numel + n - 1) / n;
        return scatterReduce<T>(ctx, kName, in, out, ScatterReduce{block, block, numel, true}, config.chunk_bytes,
                                config.programs, epoch);
      }
      case AllReduceAlgorithm::Ring: return ringAllReduce<T>(ctx, in, out, numel, config, epoch);
    }
  });
}

}  // namespace tdist::kernels::cpu
