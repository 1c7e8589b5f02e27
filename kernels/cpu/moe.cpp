// kernels/cpu/moe.cpp - the MoE all-to-all on the cpu backend.
//
// Both calls start with exchange_counts: every PE counts its (token, k) pairs per expert and
// pushes that row to every PE's scratch (with a signal per source), so every PE holds the
// whole matrix count[src][expert] and computes every PE's recv layout, the same everywhere:
// recv rows grouped by local expert, then source PE, then token order, then k. A PE that
// would receive more rows than config.capacity, or a topk_ids value outside 0 .. E-1, is then
// known to every PE, and every PE throws the same error.
// dispatch: each PE writes its rows into the owners' recv at those offsets (a program per
// destination, starting with itself), then signals the owner.
// combine: each PE reads back (getmem) the expert output rows of its own (t, k) from their
// owners and sums topk_weights[t, k] * row in k order in f32, rounding once.
// Signals: slots [0, n) carry the counts, [n, 2n) dispatch's rows; the epoch, never reset.
// Buffer reuse: the next call's entry handshake (kernels/checks.h) is through only once every
// PE has finished this one, so no PE's next call overwrites counts a slow PE still reads.
// dispatch only pushes, and each PE waits for every row pushed to it: it returns without a
// barrier. combine pulls the owners' expert_out, so it ends with a barrier: no owner returns
// (and lets its caller write expert_out) before every PE has read its rows.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cpu/bodies.h"
#include "kernels/checks.h"
#include "kernels/cpu/bfloat16.h"
#include "tdist/dl.h"
#include "tdist/launch.h"
#include "tdist/shmem.h"

namespace tdist::kernels::cpu {
namespace {

constexpr std::int64_t kDefaultMaxPrograms = 64;

template <class F>
auto byDtype(DType dtype, F &&body) {
  switch (dtype) {
    case DType::BF16: return body(BFloat16{});
    case DType::F32: break;
    default: throw Error(ErrorCode::Internal, std::string("kernels: no cpu MoE body for dtype ") + dtypeName(dtype));
  }
  return body(float{});
}

// The count matrix of every PE, and the recv layout it implies for every owner.
struct Counts {
  int n = 0, experts = 0, local = 0;
  std::vector<std::int64_t> count;  // [src][expert]
  std::vector<std::int64_t> bad;    // [src]: topk_ids values outside 0 .. E-1
  std::vector<std::int64_t> offset; // [owner][local expert][src]: first recv row on the owner
  std::vector<std::int64_t> rows;   // [owner]

  std::int64_t of(int src, int expert) const { return count[std::size_t(src) * experts + expert]; }
  std::int64_t offsetOf(int owner, int l, int src) const {
    return offset[(std::size_t(owner) * local + l) * n + src];
  }
};

// exchange_counts: this PE's row to every PE (itself first), then every PE's row.
Counts exchangeCounts(Context &ctx, const char *kernel, const Tensor &topk_ids, int experts, std::uint64_t epoch) {
  const int me = shmem::my_pe(), n = shmem::n_pes();
  const std::size_t row = static_cast<std::size_t>(experts) + 1;  // the counts, then the bad ids
  if (ctx.scratchBytes() < n * row * sizeof(std::int64_t)) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": the context has " +
                                             std::to_string(ctx.scratchBytes()) + " bytes of scratch; it needs " +
                                             std::to_string(n * row * sizeof(std::int64_t)));
  }
  std::vector<std::int64_t> mine(row, 0);
  const auto *ids = topk_ids.as<const std::int32_t>();
  for (std::int64_t i = 0; i < topk_ids.numel(); ++i) {
    if (ids[i] >= 0 && ids[i] < experts) ++mine[ids[i]];
    else ++mine[experts];
  }
  auto *table = static_cast<std::int64_t *>(ctx.scratch());
  for (int j = 0; j < n; ++j) {
    shmem::putmem_signal<std::uint64_t>(table + me * row, mine.data(), row * sizeof(std::int64_t), ctx.slot(me),
                                        epoch, shmem::SignalOp::Set, (me + j) % n);
  }
  Counts counts;
  counts.n = n;
  counts.experts = experts;
  counts.local = experts / n;
  counts.count.resize(std::size_t(n) * experts);
  counts.bad.resize(n);
  for (int src = 0; src < n; ++src) {
    shmem::signal_wait_until<std::uint64_t>(ctx.slot(src), shmem::Cmp::GE, epoch);
    std::copy_n(table + src * row, experts, counts.count.begin() + std::size_t(src) * experts);
    counts.bad[src] = table[src * row + experts];
  }
  counts.offset.resize(std::size_t(n) * counts.local * n);
  counts.rows.assign(n, 0);
  for (int owner = 0; owner < n; ++owner) {
    std::int64_t next = 0;
    for (int l = 0; l < counts.local; ++l) {
      for (int src = 0; src < n; ++src) {
        counts.offset[(std::size_t(owner) * counts.local + l) * n + src] = next;
        next += counts.of(src, owner * counts.local + l);
      }
    }
    counts.rows[owner] = next;
  }
  return counts;
}

// The error every PE finds alike in the matrix, if any: bad ids first, then the lowest PE
// that would receive more rows than its recv holds.
std::string matrixError(const char *kernel, const Counts &counts, int experts, int capacity) {
  for (int src = 0; src < counts.n; ++src) {
    if (counts.bad[src] > 0) {
      return std::string(kernel) + ": topk_ids of PE " + std::to_string(src) + " has " +
             std::to_string(counts.bad[src]) + " values outside 0 .. " + std::to_string(experts - 1);
    }
  }
  for (int owner = 0; owner < counts.n; ++owner) {
    if (counts.rows[owner] > capacity) {
      return std::string(kernel) + ": PE " + std::to_string(owner) + " receives " +
             std::to_string(counts.rows[owner]) + " rows, more than config.capacity = " + std::to_string(capacity) +
             " (the rows of recv); raise the capacity to at least the largest count";
    }
  }
  return {};
}

// The owner's recv row of each of this PE's (t, k), in token order then k.
std::vector<std::int64_t> rowsOfMine(const Counts &counts, const std::int32_t *ids, std::int64_t pairs) {
  const int me = shmem::my_pe();
  std::vector<std::int64_t> cursor(counts.experts);
  for (int e = 0; e < counts.experts; ++e) cursor[e] = counts.offsetOf(e / counts.local, e % counts.local, me);
  std::vector<std::int64_t> rows(static_cast<std::size_t>(pairs));
  for (std::int64_t i = 0; i < pairs; ++i) rows[i] = cursor[ids[i]]++;
  return rows;
}

template <class T>
DispatchLayout dispatchTyped(Context &ctx, const Tensor &x, const Tensor &topk_ids, Tensor &recv,
                             const MoeConfig &config, std::uint64_t epoch) {
  constexpr const char *kName = "tdist::kernels::moe_dispatch";
  const int me = shmem::my_pe(), n = shmem::n_pes();
  const Counts counts = exchangeCounts(ctx, kName, topk_ids, config.experts, epoch);
  if (std::string error = matrixError(kName, counts, config.experts, config.capacity); !error.empty()) {
    throw Error(ErrorCode::InvalidParam, error);
  }
  const std::int64_t hidden = x.shape[1];
  const std::int64_t pairs = topk_ids.numel();
  const auto *ids = topk_ids.as<const std::int32_t>();
  const std::vector<std::int64_t> rows = rowsOfMine(counts, ids, pairs);
  const T *tokens = x.as<const T>();
  T *received = recv.as<T>();
  const int programs = static_cast<int>(std::min<std::int64_t>(config.programs > 0 ? config.programs : n, n));
  launch(Grid{programs}, [&] {
    for (int j = dl::program_id(); j < n; j += programs) {
      const int owner = (me + j) % n;
      // send_rows: this PE's rows for the owner's experts, into their recv rows.
      for (std::int64_t i = 0; i < pairs; ++i) {
        if (ids[i] / counts.local != owner) continue;
        shmem::putmem(received + rows[i] * hidden, tokens + (i / config.top_k) * hidden, hidden * sizeof(T), owner);
      }
      // notify_owner: the puts are complete on return, so the signal follows the rows.
      dl::notify<std::uint64_t>(ctx.slot(n + me), owner, epoch);
    }
  });
  for (int j = 0; j < n; ++j) shmem::signal_wait_until<std::uint64_t>(ctx.slot(n + (me + j) % n), shmem::Cmp::GE, epoch);

  DispatchLayout layout;
  layout.counts.resize(std::size_t(counts.local) * n);
  layout.offsets.resize(layout.counts.size());
  for (int l = 0; l < counts.local; ++l) {
    for (int src = 0; src < n; ++src) {
      layout.counts[std::size_t(l) * n + src] = static_cast<std::int32_t>(counts.of(src, me * counts.local + l));
      layout.offsets[std::size_t(l) * n + src] = counts.offsetOf(me, l, src);
    }
  }
  layout.rows = counts.rows[me];
  return layout;
}

template <class T>
void combineTyped(Context &ctx, const Tensor &expert_out, const DispatchLayout &layout, const Tensor &topk_ids,
                  const Tensor &topk_weights, Tensor &out, const MoeConfig &config, std::uint64_t epoch) {
  constexpr const char *kName = "tdist::kernels::moe_combine";
  const int me = shmem::my_pe(), n = shmem::n_pes();
  // The exchange is also the entry handshake: a PE publishes its counts only once its
  // expert_out is written, so after it every owner's rows can be read.
  const Counts counts = exchangeCounts(ctx, kName, topk_ids, config.experts, epoch);
  int code = 0;
  std::string error = matrixError(kName, counts, config.experts, config.capacity);
  for (int l = 0; l < counts.local && error.empty(); ++l) {
    for (int src = 0; src < n && error.empty(); ++src) {
      const std::int64_t expected = counts.of(src, me * counts.local + l);
      if (layout.counts[std::size_t(l) * n + src] != expected) {
        error = std::string(kName) + ": layout is not the dispatch of these topk_ids: it has " +
                std::to_string(layout.counts[std::size_t(l) * n + src]) + " rows of local expert " +
                std::to_string(l) + " from PE " + std::to_string(src) + ", the topk_ids give " +
                std::to_string(expected);
      }
    }
  }
  if (!error.empty()) code = static_cast<int>(ErrorCode::InvalidParam);
  // Every PE learns whether some PE's layout is off (and has finished reading the counts).
  detail::agreeInBand(ctx, kName, detail::CallSignature{}, code, error);

  const std::int64_t hidden = out.shape[1];
  const std::int64_t tokens = out.shape[0];
  const int top_k = config.top_k;
  const auto *ids = topk_ids.as<const std::int32_t>();
  const auto *weights = topk_weights.as<const float>();
  const std::vector<std::int64_t> rows = rowsOfMine(counts, ids, topk_ids.numel());
  const T *expert_rows = expert_out.as<const T>();
  T *combined = out.as<T>();
  if (tokens > 0) {
    const std::int64_t most = config.programs > 0 ? config.programs : kDefaultMaxPrograms;
    const int programs = static_cast<int>(std::min(most, tokens));
    launch(Grid{programs}, [&] {
      std::vector<T> fetched(static_cast<std::size_t>(hidden));
      std::vector<float> sum(static_cast<std::size_t>(hidden));
      for (std::int64_t t = dl::program_id(); t < tokens; t += programs) {
        for (int k = 0; k < top_k; ++k) {
          const std::int64_t i = t * top_k + k;
          // pull_row from the expert's owner, then weigh_row into the sum in k order.
          shmem::getmem(fetched.data(), expert_rows + rows[i] * hidden, hidden * sizeof(T), ids[i] / counts.local);
          const float w = weights[i];
          for (std::int64_t h = 0; h < hidden; ++h) {
            const float term = w * load(fetched[h]);
            sum[h] = k == 0 ? term : sum[h] + term;
          }
        }
        for (std::int64_t h = 0; h < hidden; ++h) combined[t * hidden + h] = store<T>(sum[h]);
      }
    });
  }
  // Every PE has read its rows from every owner's expert_out.
  shmem::barrier_all();
}

}  // namespace

DispatchLayout moeDispatch(Context &ctx, const MoeDispatchCall &call) {
  const auto &[x, topk_ids, recv, config] = call;
  const std::uint64_t epoch = nextEpoch(ctx);
  return byDtype(x.dtype, [&](auto type) {
    return dispatchTyped<decltype(type)>(ctx, x, topk_ids, recv, config, epoch);
  });
}

void moeCombine(Context &ctx, const MoeCombineCall &call) {
  const auto &[expert_out, layout, topk_ids, topk_weights, out, config] = call;
  const std::uint64_t epoch = nextEpoch(ctx);
  byDtype(out.dtype, [&](auto type) {
    combineTyped<decltype(type)>(ctx, expert_out, layout, topk_ids, topk_weights, out, config, epoch);
  });
}

}  // namespace tdist::kernels::cpu
