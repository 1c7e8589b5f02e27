// kernels/cuda/backend.cpp - the cuda backend's table of the kernel library (kernels/backend.h):
// bodies in kernels/cuda/*.cu, agreement on the host (calls stay capturable in a CUDA graph), the
// context's stream, and the signal slots each body takes for a call (the map of slot_map.h).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "kernels/checks.h"
#include "kernels/context_state.h"
#include "kernels/cuda/bodies.h"
#include "kernels/cuda/slot_map.h"
#include "tdist/cuda.h"
#include "tdist/error.h"

namespace tdist::kernels::cuda {
namespace {

using kernels::detail::SlotNeed;

// "7 + <rest>": the slots below the entry slots (this PE's own words), then the rest.
std::string entryPlus(const char *rest) { return std::to_string(detail::kSlotEntry) + " + " + rest; }

SlotNeed collectiveSlots(int n_pes) {
  return {detail::fewestSlotsForCollectives(n_pes), entryPlus("2 * n_pes (the entry and a data slot per source)")};
}

SlotNeed ringSlots(int n_pes) {
  return {detail::fewestSlotsForRing(n_pes), entryPlus("3 * n_pes (the entry and two data slots per source)")};
}

SlotNeed allReduceSlots(const AllReduceCall &call, int n_pes) {
  return call.algorithm == AllReduceAlgorithm::Ring ? ringSlots(n_pes) : collectiveSlots(n_pes);
}

// The entry slots and an arrival per (source PE, row chunk), fused or decomposed.
SlotNeed allGatherGemmSlots(const AllGatherGemmCall &call, int n_pes) {
  return {detail::slotsForGemm(n_pes, call.config.chunks_per_pe), entryPlus("n_pes * (chunks_per_pe + 1)")};
}

// Decomposed on more than one PE: the entry slots and an arrival per (source PE, row chunk); on
// one PE none (one GEMM into c). Fused: the entry slots (its tiles' flags are in the scratch).
// At least the cpu body's n_pes * chunks_per_pe * ceil(N / tile_n), the library's documented
// budget of a GEMM + ReduceScatter config, so that a config is refused alike on every backend.
SlotNeed gemmReduceScatterSlots(const GemmReduceScatterCall &call, int n_pes) {
  const int chunks = call.config.strategy == GemmStrategy::Fused ? 1 : call.config.chunks_per_pe;
  const long long own = call.config.strategy == GemmStrategy::Fused || n_pes > 1 ? detail::slotsForGemm(n_pes, chunks) : 0;
  const long long column_tiles = (call.b.shape[1] + call.config.tile_n - 1) / call.config.tile_n;
  const long long portable = static_cast<long long>(n_pes) * call.config.chunks_per_pe * column_tiles;
  if (own >= portable) {
    return {own, entryPlus(call.config.strategy == GemmStrategy::Fused ? "2 * n_pes" : "n_pes * (chunks_per_pe + 1)")};
  }
  return {portable, "n_pes * chunks_per_pe * ceil(N / tile_n)"};
}

// The entry slots, the counts' and the combine's "done" per source, and a slot per expert.
template <class Call>
SlotNeed moeSlots(const Call &call, int n_pes) {
  return {detail::SlotMap{n_pes}.moeSlots(call.config.experts), entryPlus("3 * n_pes + experts")};
}

void open(Context &ctx, const ContextOptions &options) {
  kernels::detail::ContextAccess::state(ctx).stream =
      options.stream != nullptr ? options.stream : static_cast<void *>(tdist::cuda::stream());
}

void synchronize(Context &ctx) {
  tdist::cuda::check(cudaStreamSynchronize(static_cast<cudaStream_t>(ctx.stream())),
                     "tdist::kernels::Context::synchronize");
}

// The GPU this PE runs on, by the name its driver gives it ("NVIDIA H200").
std::string deviceName() {
  int device = 0;
  tdist::cuda::check(cudaGetDevice(&device), "tdist::kernels::tuning_device: cudaGetDevice");
  cudaDeviceProp properties{};
  tdist::cuda::check(cudaGetDeviceProperties(&properties, device),
                     "tdist::kernels::tuning_device: cudaGetDeviceProperties");
  return properties.name;
}

}  // namespace

const KernelBackend kBackend = {
    .name = "cuda",
    .min_signals = detail::fewestSlotsForRing,
    .open = open,
    .close = [](Context &) {},
    .release = releaseLanes,
    .synchronize = synchronize,
    .device = deviceName,
    .agree = kernels::detail::agreeOnHost,
    .all_gather = {.run = allGather, .slots = [](const AllGatherCall &, int n_pes) { return collectiveSlots(n_pes); }},
    .reduce_scatter = {.run = reduceScatter,
                       .slots = [](const ReduceScatterCall &, int n_pes) { return collectiveSlots(n_pes); }},
    .all_reduce = {.run = allReduce, .slots = allReduceSlots},
    .all_gather_gemm = {.run = allGatherGemm, .slots = allGatherGemmSlots},
    .gemm_reduce_scatter = {.run = gemmReduceScatter, .slots = gemmReduceScatterSlots},
    .moe_dispatch = {.run = moeDispatch, .slots = moeSlots<MoeDispatchCall>},
    .moe_combine = {.run = moeCombine, .slots = moeSlots<MoeCombineCall>},
};

}  // namespace tdist::kernels::cuda
