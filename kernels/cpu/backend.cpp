// kernels/cpu/backend.cpp - the cpu backend's table of the kernel library (kernels/backend.h):
// bodies in kernels/cpu/*.cpp, agreement in band through the context's handshake table
// (kernels/checks.h), and the signal slots each body takes for a call.
#include "kernels/cpu/bodies.h"

#include <cstddef>
#include <span>
#include <string>

#include "kernels/checks.h"
#include "kernels/context_state.h"
#include "kernels/tuning.h"
#include "tdist/runtime.h"

namespace tdist::kernels::cpu {
namespace {

using detail::SlotNeed;

// The collectives run in rounds of as many chunks as the slots allow: one chunk a round at least.
SlotNeed collectiveSlots(int slots_per_chunk, const char *formula) { return {slots_per_chunk, formula}; }

SlotNeed allReduceSlots(const AllReduceCall &call, int n_pes) {
  switch (call.algorithm) {
    case AllReduceAlgorithm::Ring: return collectiveSlots(2, "2 (the ring: a partial and a total)");
    case AllReduceAlgorithm::TwoShot: return collectiveSlots(2 * n_pes, "2 * n_pes");
    case AllReduceAlgorithm::Auto:
    case AllReduceAlgorithm::OneShot: break;
  }
  return collectiveSlots(n_pes, "n_pes");
}

// A signal per (source PE, row chunk) of the gathered A.
SlotNeed allGatherGemmSlots(const AllGatherGemmCall &call, int n_pes) {
  return {static_cast<long long>(n_pes) * call.config.chunks_per_pe, "n_pes * chunks_per_pe"};
}

// A signal per (source PE, row chunk, column tile) of the owner's block.
SlotNeed gemmReduceScatterSlots(const GemmReduceScatterCall &call, int n_pes) {
  const long long column_tiles = (call.b.shape[1] + call.config.tile_n - 1) / call.config.tile_n;
  return {static_cast<long long>(n_pes) * call.config.chunks_per_pe * column_tiles,
          "n_pes * chunks_per_pe * ceil(N / tile_n)"};
}

// exchange_counts' signal per source, and the combine's "done" per source (kernels/cpu/moe.cpp).
template <class Call>
SlotNeed moeSlots(const Call &, int n_pes) {
  return {2ll * n_pes, "2 * n_pes"};
}

// A small call among peers through the network sends its input with its handshake row (checks.h,
// CARRIED BYTES): one message each way instead of two. The one-shot all_reduce and the all_gather.
std::span<const std::byte> carriedInput(const Context &ctx, const Tensor &input) {
  const std::size_t bytes = input.nbytes();
  const auto &state = detail::ContextAccess::state(ctx);
  if (bytes == 0 || bytes > state.handshake_row_bytes - sizeof(detail::HandshakeRow)) return {};
  return {static_cast<const std::byte *>(input.data), bytes};
}

std::span<const std::byte> allReduceCarried(Context &ctx, const AllReduceCall &call) {
  if (call.algorithm != AllReduceAlgorithm::OneShot) return {};
  return carriedInput(ctx, call.input);
}

std::span<const std::byte> allGatherCarried(Context &ctx, const AllGatherCall &call) {
  return carriedInput(ctx, call.input);
}

void open(Context &ctx, const ContextOptions &) {
  auto &state = detail::ContextAccess::state(ctx);
  const int n = nPes();
  // Rows that carry bytes where the job has peers through the network: alike on every PE, as the
  // allocation, which is collective, must be.
  state.handshake_row_bytes = detail::handshakeRowBytes(state.network_peers, n);
  state.handshake = allocateZeroed(2 * static_cast<std::size_t>(n), state.handshake_row_bytes);
}

void close(Context &ctx) {
  auto &state = detail::ContextAccess::state(ctx);
  if (state.handshake != nullptr) deallocate(state.handshake);
  state.handshake = nullptr;
}

}  // namespace

std::uint64_t nextEpoch(Context &ctx) { return ++detail::ContextAccess::state(ctx).epoch; }

// A call runs to completion before it returns: nothing to wait for, nothing to release.
const KernelBackend kBackend = {
    .name = "cpu",
    .min_signals = [](int n_pes) { return 2 * n_pes; },
    .open = open,
    .close = close,
    .release = [] {},
    .synchronize = [](Context &) {},
    .device = detail::cpuDevice,
    .agree = detail::agreeInBand,
    .all_gather = {.run = allGather,
                   .slots = [](const AllGatherCall &, int n_pes) { return collectiveSlots(n_pes, "n_pes"); },
                   .carried = allGatherCarried,
                   .trace_call = "all_gather"},
    .reduce_scatter = {.run = reduceScatter,
                       .slots = [](const ReduceScatterCall &, int n_pes) { return collectiveSlots(n_pes, "n_pes"); },
                       .trace_call = "reduce_scatter"},
    .all_reduce = {.run = allReduce, .slots = allReduceSlots, .carried = allReduceCarried, .trace_call = "all_reduce"},
    .all_gather_gemm = {.run = allGatherGemm, .slots = allGatherGemmSlots, .trace_call = "all_gather_gemm"},
    .gemm_reduce_scatter = {.run = gemmReduceScatter, .slots = gemmReduceScatterSlots,
                            .trace_call = "gemm_reduce_scatter"},
    .moe_dispatch = {.run = moeDispatch, .slots = moeSlots<MoeDispatchCall>},
    .moe_combine = {.run = moeCombine, .slots = moeSlots<MoeCombineCall>},
};

}  // namespace tdist::kernels::cpu
