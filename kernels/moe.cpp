// kernels/moe.cpp - the public entry points of the MoE all-to-all: check the tensors and the
// config on this PE, agree with every PE on the call, run the context's backend's body
// (kernels/entry.h). The token count T may differ between PEs, so it is not
// part of the agreement (nor where the tensors of T rows lie); everything else is.
#include "tdist/kernels/moe.h"

#include "kernels/backend.h"
#include "kernels/checks.h"
#include "kernels/entry.h"

namespace tdist::kernels {
namespace {

constexpr long long kMaxExperts = 1 << 16;
constexpr long long kMaxTopK = 16;
constexpr long long kMaxCapacity = (1ll << 31) - 1;
constexpr long long kMaxPrograms = 1024;

void addConfig(detail::CallSignature &s, const MoeConfig &config) {
  const auto &[experts, top_k, capacity, programs] = config;
  s.add("config.experts", experts);
  s.add("config.top_k", top_k);
  s.add("config.capacity", capacity);
  s.add("config.programs", programs);
}

void requireConfig(const char *kernel, const MoeConfig &config) {
  detail::requireRange(kernel, "experts", config.experts, 1, kMaxExperts);
  if (config.experts % nPes() != 0) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": config.experts = " +
                                             std::to_string(config.experts) + " is not a multiple of n_pes = " +
                                             std::to_string(nPes()));
  }
  detail::requireRange(kernel, "top_k", config.top_k, 1, kMaxTopK);
  detail::requireRange(kernel, "capacity", config.capacity, 0, kMaxCapacity);
  detail::requireRange(kernel, "programs", config.programs, 0, kMaxPrograms);
}

void requireShape(const char *kernel, const char *what, const Tensor &t, std::int64_t rows, std::int64_t cols,
                  const char *because) {
  if (t.shape[0] != rows || t.shape[1] != cols) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": " + what + " has shape [" +
                                             std::to_string(t.shape[0]) + ", " + std::to_string(t.shape[1]) +
                                             "]; expected [" + std::to_string(rows) + ", " + std::to_string(cols) +
                                             "] (" + because + ")");
  }
}

void requireSameDtype(const char *kernel, const char *what, const Tensor &t, const char *of, const Tensor &other) {
  if (t.dtype != other.dtype) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": " + what + " has dtype " + dtypeName(t.dtype) +
                                             "; expected the dtype of " + of + ", " + dtypeName(other.dtype));
  }
}

// The layout must be one a dispatch returns on this PE: prefix sums of its counts in
// (local expert, source PE) order.
void requireLayout(const char *kernel, const DispatchLayout &layout, const MoeConfig &config) {
  const std::size_t cells = static_cast<std::size_t>(config.experts / nPes()) * nPes();
  if (layout.counts.size() != cells || layout.offsets.size() != cells) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": layout has " +
                                             std::to_string(layout.counts.size()) + " counts and " +
                                             std::to_string(layout.offsets.size()) + " offsets; expected " +
                                             std::to_string(cells) + " (local experts x n_pes) of each");
  }
  std::int64_t next = 0;
  for (std::size_t i = 0; i < cells; ++i) {
    if (layout.counts[i] < 0 || layout.offsets[i] != next) {
      throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": layout is not one of moe_dispatch: cell " +
                                               std::to_string(i) + " has count " + std::to_string(layout.counts[i]) +
                                               " at offset " + std::to_string(layout.offsets[i]) +
                                               "; expected offset " + std::to_string(next));
    }
    next += layout.counts[i];
  }
  if (layout.rows != next || next > config.capacity) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": layout has " + std::to_string(layout.rows) +
                                             " rows for counts summing to " + std::to_string(next) +
                                             " (config.capacity = " + std::to_string(config.capacity) + ")");
  }
}

}  // namespace

DispatchLayout moe_dispatch(Context &ctx, const Tensor &x, const Tensor &topk_ids, Tensor &recv,
                            const MoeConfig &config) {
  constexpr const char *kName = "tdist::kernels::moe_dispatch";
  const auto check = [&] {
    requireConfig(kName, config);
    detail::requireHeapTensor(kName, "x", x, 2, {DType::F32, DType::BF16});
    detail::requireHeapTensor(kName, "topk_ids", topk_ids, 2, {DType::I32});
    detail::requireHeapTensor(kName, "recv", recv, 2, {DType::F32, DType::BF16});
    requireSameDtype(kName, "recv", recv, "x", x);
    requireShape(kName, "topk_ids", topk_ids, x.shape[0], config.top_k, "the tokens of x by config.top_k");
    requireShape(kName, "recv", recv, config.capacity, x.shape[1], "config.capacity by the hidden size of x");
  };
  detail::CallSignature signature;  // T, the tokens, may differ between PEs
  signature.context(ctx);
  signature.tensor("x", x, 0);
  signature.tensor("topk_ids", topk_ids, 0);
  signature.tensor("recv", recv);
  addConfig(signature, config);
  return detail::runEntry(ctx, kName, &KernelBackend::moe_dispatch, signature, check,
                          MoeDispatchCall{.x = x, .topk_ids = topk_ids, .recv = recv, .config = config});
}

void moe_combine(Context &ctx, const Tensor &expert_out, const DispatchLayout &layout, const Tensor &topk_ids,
                 const Tensor &topk_weights, Tensor &out, const MoeConfig &config) {
  constexpr const char *kName = "tdist::kernels::moe_combine";
  const auto check = [&] {
    requireConfig(kName, config);
    detail::requireHeapTensor(kName, "expert_out", expert_out, 2, {DType::F32, DType::BF16});
    detail::requireHeapTensor(kName, "topk_ids", topk_ids, 2, {DType::I32});
    detail::requireHeapTensor(kName, "topk_weights", topk_weights, 2, {DType::F32});
    detail::requireHeapTensor(kName, "out", out, 2, {DType::F32, DType::BF16});
    requireSameDtype(kName, "out", out, "expert_out", expert_out);
    requireShape(kName, "expert_out", expert_out, config.capacity, out.shape[1],
                 "config.capacity by the hidden size of out");
    requireShape(kName, "topk_ids", topk_ids, out.shape[0], config.top_k, "the tokens of out by config.top_k");
    requireShape(kName, "topk_weights", topk_weights, out.shape[0], config.top_k,
                 "the tokens of out by config.top_k");
    requireLayout(kName, layout, config);
  };
  detail::CallSignature signature;  // T, the tokens, may differ between PEs; the layout is this PE's
  signature.context(ctx);
  signature.tensor("expert_out", expert_out);
  signature.tensor("topk_ids", topk_ids, 0);
  signature.tensor("topk_weights", topk_weights, 0);
  signature.tensor("out", out, 0);
  addConfig(signature, config);
  detail::runEntry(ctx, kName, &KernelBackend::moe_combine, signature, check,
                   MoeCombineCall{.expert_out = expert_out, .layout = layout, .topk_ids = topk_ids,
                                  .topk_weights = topk_weights, .out = out, .config = config});
}

}  // namespace tdist::kernels
