// kernels/backend.h - the kernel library's backends: one table of bodies per backend, chosen once
// when a Context is created (kernels/context.cpp), as the runtime chooses its Backend table
// (runtime/backend.h).
//
// An entry point (kernels/entry.h) checks its tensors and config, checks that the context has
// the signal slots its body declares (KernelBody::slots), agrees with every PE on the call
// (KernelBackend::agree), and runs its body (KernelBody::run). A body may assume what the entry
// point checked. Each backend owns the epoch its signals carry: cpu, a host count per context
// (cpu::nextEpoch); cuda, the device's (kernels/cuda/common.cuh).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "kernels/checks.h"
#include "tdist/kernels/collectives.h"
#include "tdist/kernels/gemm.h"
#include "tdist/kernels/moe.h"

namespace tdist::kernels {

// One call of each kernel as its body receives it: the arguments, checked and agreed.
struct AllGatherCall {
  using Result = void;
  const Tensor &input;
  Tensor &output;
  const AllGatherConfig &config;
};
struct ReduceScatterCall {
  using Result = void;
  const Tensor &input;
  Tensor &output;
  const ReduceScatterConfig &config;
};
struct AllReduceCall {
  using Result = void;
  const Tensor &input;
  Tensor &output;
  const AllReduceConfig &config;
  AllReduceAlgorithm algorithm;  // config.algorithm, Auto resolved (the same on every PE)
};
struct AllGatherGemmCall {
  using Result = void;
  const Tensor &a;
  const Tensor &b;
  Tensor &c;
  Tensor &gathered;  // the caller's, or the context's scratch as [n_pes * m_local, K]
  const AllGatherGemmConfig &config;
};
struct GemmReduceScatterCall {
  using Result = void;
  const Tensor &a;
  const Tensor &b;
  Tensor &c;
  const GemmReduceScatterConfig &config;
};
struct MoeDispatchCall {
  using Result = DispatchLayout;
  const Tensor &x;
  const Tensor &topk_ids;
  Tensor &recv;
  const MoeConfig &config;
};
struct MoeCombineCall {
  using Result = void;
  const Tensor &expert_out;
  const DispatchLayout &layout;
  const Tensor &topk_ids;
  const Tensor &topk_weights;
  Tensor &out;
  const MoeConfig &config;
};

// A kernel of a backend: its body, the slots it takes for a call (computed after the entry
// point's checks passed, on n_pes PEs), where it has any, the bytes the call sends every peer
// with its agreement (KernelBackend::agree's `carried`; null or empty: none), and where the
// agreement is part of the call's communication (cpu: in band, and it may carry the call's data),
// the name of the call's trace span, which the entry point opens around the agreement and the
// body (null: the body opens its own, if any).
template <class Call>
struct KernelBody {
  typename Call::Result (*run)(Context &ctx, const Call &call) = nullptr;
  detail::SlotNeed (*slots)(const Call &call, int n_pes) = nullptr;
  std::span<const std::byte> (*carried)(Context &ctx, const Call &call) = nullptr;
  const char *trace_call = nullptr;
};

// A backend of the kernel library. Every member is set: each backend fills the whole table.
struct KernelBackend {
  const char *name = nullptr;  // the runtime backend it runs on (tdist::backendName())
  // The fewest slots a Context takes on n_pes PEs (tdist::kernels::minSignals()).
  int (*min_signals)(int n_pes) = nullptr;
  // After the Context's slots and scratch are allocated (collective, like them): what the backend
  // keeps in the context's state (cpu: the handshake table; cuda: the stream). `close` frees it
  // and never throws.
  void (*open)(Context &ctx, const ContextOptions &options) = nullptr;
  void (*close)(Context &ctx) = nullptr;
  // When no Context is left in the process (cuda: the GEMMs' stream lanes).
  void (*release)() = nullptr;
  // Waits until every call made on the context is complete.
  void (*synchronize)(Context &ctx) = nullptr;
  // This PE's device as a tuning table names it (tdist::kernels::tuning_device()).
  std::string (*device)() = nullptr;
  // The agreement of every PE on a call (kernels/checks.h): cpu in band, cuda on the host.
  void (*agree)(Context &ctx, const char *kernel, const detail::CallSignature &mine, int local_code,
                const std::string &local_error, std::span<const std::byte> carried) = nullptr;

  KernelBody<AllGatherCall> all_gather;
  KernelBody<ReduceScatterCall> reduce_scatter;
  KernelBody<AllReduceCall> all_reduce;
  KernelBody<AllGatherGemmCall> all_gather_gemm;
  KernelBody<GemmReduceScatterCall> gemm_reduce_scatter;
  KernelBody<MoeDispatchCall> moe_dispatch;
  KernelBody<MoeCombineCall> moe_combine;
};

// The backend of the runtime backend `name` (tdist::backendName()); throws Error(NotSupported)
// when the library has none for it.
const KernelBackend &kernelBackendFor(const std::string &name);

// The bodies of a backend, declared in its namespace (kernels/cpu/bodies.h, kernels/cuda/bodies.h)
// and defined in its files: the entries of its table.
#define TDIST_KERNEL_BODIES                                          \
  void allGather(Context &ctx, const AllGatherCall &call);                 \
  void reduceScatter(Context &ctx, const ReduceScatterCall &call);         \
  void allReduce(Context &ctx, const AllReduceCall &call);                 \
  void allGatherGemm(Context &ctx, const AllGatherGemmCall &call);         \
  void gemmReduceScatter(Context &ctx, const GemmReduceScatterCall &call); \
  DispatchLayout moeDispatch(Context &ctx, const MoeDispatchCall &call);   \
  void moeCombine(Context &ctx, const MoeCombineCall &call);

namespace cpu {
extern const KernelBackend kBackend;  // kernels/cpu/backend.cpp
}
#ifdef TDIST_KERNELS_HAVE_CUDA
namespace cuda {
extern const KernelBackend kBackend;  // kernels/cuda/backend.cpp
}
#endif

}  // namespace tdist::kernels
