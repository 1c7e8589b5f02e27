// kernels/bodies.h - the per-backend bodies behind the public entry points of tdist/kernels/.
//
// An entry point (kernels/*.cpp) checks its tensors and config, agrees with every PE on the call
// (kernels/checks.h), takes the context's next epoch, and runs its backend's body: cpu in
// kernels/cpu/, cuda in kernels/cuda/ (built with the cuda backend). A body may assume what the
// entry point checked. `epoch` is this call's: signals written by it carry it, and a waiter
// accepts it or any later one, so nothing is reset between calls.
#pragma once

#include <cstdint>

#include "tdist/kernels/collectives.h"
#include "tdist/kernels/gemm.h"
#include "tdist/kernels/moe.h"

namespace tdist::kernels {

// The same bodies on each backend (kernels/cpu/*.cpp, kernels/cuda/*.cu).
namespace cpu {
void allGather(Context &ctx, const Tensor &input, Tensor &output, const AllGatherConfig &config,
               std::uint64_t epoch);
void reduceScatter(Context &ctx, const Tensor &input, Tensor &output, const ReduceScatterConfig &config,
                   std::uint64_t epoch);
void allReduce(Context &ctx, const Tensor &input, Tensor &output, AllReduceAlgorithm algorithm,
               const AllReduceConfig &config, std::uint64_t epoch);
void allGatherGemm(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c, Tensor &gathered,
                   const AllGatherGemmConfig &config, std::uint64_t epoch);
void gemmReduceScatter(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c,
                       const GemmReduceScatterConfig &config, std::uint64_t epoch);
DispatchLayout moeDispatch(Context &ctx, const Tensor &x, const Tensor &topk_ids, Tensor &recv,
                           const MoeConfig &config, std::uint64_t epoch);
void moeCombine(Context &ctx, const Tensor &expert_out, const DispatchLayout &layout, const Tensor &topk_ids,
                const Tensor &topk_weights, Tensor &out, const MoeConfig &config, std::uint64_t epoch);
}  // namespace cpu

#ifdef TDIST_KERNELS_HAVE_CUDA
namespace cuda {
void allGather(Context &ctx, const Tensor &input, Tensor &output, const AllGatherConfig &config,
               std::uint64_t epoch);
void reduceScatter(Context &ctx, const Tensor &input, Tensor &output, const ReduceScatterConfig &config,
                   std::uint64_t epoch);
void allReduce(Context &ctx, const Tensor &input, Tensor &output, AllReduceAlgorithm algorithm,
               const AllReduceConfig &config, std::uint64_t epoch);
void allGatherGemm(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c, Tensor &gathered,
                   const AllGatherGemmConfig &config, std::uint64_t epoch);
void gemmReduceScatter(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c,
                       const GemmReduceScatterConfig &config, std::uint64_t epoch);
DispatchLayout moeDispatch(Context &ctx, const Tensor &x, const Tensor &topk_ids, Tensor &recv,
                           const MoeConfig &config, std::uint64_t epoch);
void moeCombine(Context &ctx, const Tensor &expert_out, const DispatchLayout &layout, const Tensor &topk_ids,
                const Tensor &topk_weights, Tensor &out, const MoeConfig &config, std::uint64_t epoch);
// Frees what the GEMM bodies keep per (device, stream): called when the last Context is destroyed.
void releaseLanes();
}  // namespace cuda
#endif

}  // namespace tdist::kernels
