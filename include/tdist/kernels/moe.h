// tdist/kernels/moe.h - all-to-all for mixture-of-experts: dispatch tokens to the PEs that hold
// their experts, and combine the experts' outputs back, weighted, at the tokens' PEs.
//
// E experts, E / n_pes on each PE (PE p holds experts p*E/n_pes ..). Each token goes to top_k
// experts. Counts differ per PE and per expert; every PE learns how many rows it receives.
#pragma once

#include <cstdint>
#include <vector>

#include "tdist/kernels/context.h"

#pragma GCC visibility push(default)

namespace tdist::kernels {

struct MoeConfig {
  int experts = 0;           // E: a positive multiple of n_pes
  int top_k = 1;             // 1 .. 16, the columns of topk_ids / topk_weights
  int capacity = 0;          // rows of recv per PE: an upper bound of the rows it may receive
  int programs = 0;          // cpu: programs; cuda: blocks (0 = auto)
};

// What a dispatch delivered to this PE: recv rows are grouped by local expert, then by source
// PE, then in the source's token order; counts[e * n_pes + src] rows for local expert e from src.
struct DispatchLayout {
  std::vector<std::int32_t> counts;   // local experts x n_pes
  std::vector<std::int64_t> offsets;  // first recv row of each (local expert, src), same shape
  std::int64_t rows = 0;              // total rows received
};

// x: [T, H] this PE's tokens (f32 or bf16); topk_ids: [T, top_k] int32 in 0 .. E-1;
// recv: [capacity, H] on the heap, same dtype. Collective. T may differ between PEs (and be 0).
DispatchLayout moe_dispatch(Context &ctx, const Tensor &x, const Tensor &topk_ids, Tensor &recv,
                            const MoeConfig &config);

// expert_out: [capacity, H], rows in the layout of the dispatch that `layout` describes;
// topk_weights: [T, top_k] f32; out: [T, H]: out[t] = sum over k (in k order) of
// topk_weights[t, k] * the expert output of (t, k). Collective; same T, top_k as the dispatch.
void moe_combine(Context &ctx, const Tensor &expert_out, const DispatchLayout &layout, const Tensor &topk_ids,
                 const Tensor &topk_weights, Tensor &out, const MoeConfig &config);

}  // namespace tdist::kernels

#pragma GCC visibility pop
