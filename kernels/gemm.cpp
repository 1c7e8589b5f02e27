// kernels/gemm.cpp - the public entry points of the overlap GEMMs: AllGather + GEMM and
// GEMM + ReduceScatter. Each resolves its config's Auto fields (kernels/tuning.cpp), checks its
// tensors and config on this PE, agrees with every PE on the call (the context, every tensor's
// heap offset, dtype and shape, every field of the resolved config) and runs the context's
// backend's body (kernels/entry.h).
#include "tdist/kernels/gemm.h"

#include <climits>
#include <cstdint>
#include <string>

#include "kernels/backend.h"
#include "kernels/checks.h"
#include "kernels/entry.h"
#include "tdist/error.h"
#include "tdist/kernels/tuning.h"
#include "tdist/runtime.h"

namespace tdist::kernels {
namespace {

constexpr const char *kAllGatherGemm = "tdist::kernels::all_gather_gemm";
constexpr const char *kGemmReduceScatter = "tdist::kernels::gemm_reduce_scatter";

[[noreturn]] void invalid(const char *kernel, const std::string &message) {
  throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": " + message);
}

std::string shapeText(const Tensor &t) {
  std::string text = "[";
  for (std::size_t d = 0; d < t.shape.size(); ++d) text += (d ? ", " : "") + std::to_string(t.shape[d]);
  return text + "]";
}

// A GEMM extent must fit the int of BLAS.
void requireBlasExtent(const char *kernel, const char *what, std::int64_t extent) {
  if (extent > INT_MAX) invalid(kernel, std::string(what) + " = " + std::to_string(extent) + " exceeds " + std::to_string(INT_MAX));
}

// The call's signature: the context, every tensor (by heap offset, dtype and shape) and every
// config field (checks.h). Every PE must pass the same config: on the cpu the tiling of GEMM +
// ReduceScatter lays out its scratch and its signals.
void addConfig(detail::CallSignature &s, const AllGatherGemmConfig &config) {
  const auto &[chunks_per_pe, tile_m, tile_n, programs, strategy, producer_sms, tile_raster, tile_swizzle] = config;
  s.add("config.chunks_per_pe", chunks_per_pe);
  s.add("config.tile_m", tile_m);
  s.add("config.tile_n", tile_n);
  s.add("config.programs", programs);
  s.add("config.strategy", static_cast<int>(strategy));
  s.add("config.producer_sms", producer_sms);
  s.add("config.tile_raster", static_cast<int>(tile_raster));
  s.add("config.tile_swizzle", tile_swizzle);
}
void addConfig(detail::CallSignature &s, const GemmReduceScatterConfig &config) {
  const auto &[chunks_per_pe, tile_m, tile_n, programs, strategy] = config;
  s.add("config.chunks_per_pe", chunks_per_pe);
  s.add("config.tile_m", tile_m);
  s.add("config.tile_n", tile_n);
  s.add("config.programs", programs);
  s.add("config.strategy", static_cast<int>(strategy));
}

// The checks every config makes (the limits of tdist/kernels/gemm.h).
template <class Config>
void requireConfig(const char *kernel, const Config &config) {
  detail::requireRange(kernel, "chunks_per_pe", config.chunks_per_pe, 1, 64);
  detail::requireRange(kernel, "tile_m", config.tile_m, 1, 4096);
  detail::requireRange(kernel, "tile_n", config.tile_n, 1, 4096);
  detail::requireRange(kernel, "programs", config.programs, 0, 1024);
  detail::requireRange(kernel, "strategy", static_cast<int>(config.strategy), 0, 2);
}

// The context's scratch as the gathered A, [n_pes * m_local, K] of a's dtype (its size is checked
// before any body runs; an `a` of another rank fails its check first, and gets an empty tensor).
Tensor scratchGathered(Context &ctx, const Tensor &a) {
  Tensor gathered;
  gathered.data = ctx.scratch();
  gathered.dtype = a.dtype;
  if (a.shape.size() == 2) {
    gathered.shape = {a.shape[0] * nPes(), a.shape[1]};
    gathered.strides = {a.shape[1], 1};
  }
  return gathered;
}

}  // namespace

void all_gather_gemm(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c, Tensor *gathered,
                     const AllGatherGemmConfig &config) {
  const int n_pes = nPes();
  detail::CallSignature signature;
  signature.context(ctx);
  signature.tensor("a", a);
  signature.tensor("b", b);
  signature.tensor("c", c);
  if (gathered) signature.tensor("gathered", *gathered);
  else signature.add("gathered", "scratch");
  const AllGatherGemmConfig resolved = resolved_config(ctx, a, b, config);
  addConfig(signature, resolved);
  const auto check = [&] {
    detail::requireHeapTensor(kAllGatherGemm, "a", a, 2, {DType::F32, DType::BF16});
    detail::requireHeapTensor(kAllGatherGemm, "b", b, 2, {a.dtype});
    detail::requireHeapTensor(kAllGatherGemm, "c", c, 2, {a.dtype});
    if (gathered) detail::requireHeapTensor(kAllGatherGemm, "gathered", *gathered, 2, {a.dtype});
    requireConfig(kAllGatherGemm, resolved);
    detail::requireRange(kAllGatherGemm, "producer_sms", config.producer_sms, 0, 32);
    detail::requireRange(kAllGatherGemm, "tile_raster", static_cast<int>(config.tile_raster), 0, 2);
    if (const int s = config.tile_swizzle; s != 0 && s != 1 && s != 2 && s != 4 && s != 8)
      invalid(kAllGatherGemm, "config.tile_swizzle = " + std::to_string(s) + " is not 0 (Auto), 1, 2, 4 or 8");
    const std::int64_t m_local = a.shape[0], K = a.shape[1], N = b.shape[1];
    if (b.shape[0] != K) invalid(kAllGatherGemm, "b is " + shapeText(b) + ", expected [K = " + std::to_string(K) + ", N]");
    const std::int64_t M = m_local * n_pes;
    requireBlasExtent(kAllGatherGemm, "n_pes * m_local", M);
    requireBlasExtent(kAllGatherGemm, "K", K);
    requireBlasExtent(kAllGatherGemm, "N", N);
    if (c.shape[0] != M || c.shape[1] != N) {
      invalid(kAllGatherGemm, "c is " + shapeText(c) + ", expected [n_pes * m_local = " + std::to_string(M) +
                                  ", N = " + std::to_string(N) + "]");
    }
    const std::size_t gathered_bytes = static_cast<std::size_t>(M) * K * dtypeSize(a.dtype);
    if (gathered) {
      if (gathered->shape[0] != M || gathered->shape[1] != K) {
        invalid(kAllGatherGemm, "gathered is " + shapeText(*gathered) + ", expected [n_pes * m_local = " +
                                    std::to_string(M) + ", K = " + std::to_string(K) + "]");
      }
    } else if (gathered_bytes > ctx.scratchBytes()) {
      invalid(kAllGatherGemm, "the gathered A needs " + std::to_string(gathered_bytes) +
                                  " bytes and the context's scratch has " + std::to_string(ctx.scratchBytes()) +
                                  ": pass `gathered` or a larger ContextOptions::scratch_bytes");
    }
  };
  Tensor scratch = gathered ? Tensor{} : scratchGathered(ctx, a);
  detail::runEntry(
      ctx, kAllGatherGemm, &KernelBackend::all_gather_gemm, signature, check,
      AllGatherGemmCall{.a = a, .b = b, .c = c, .gathered = gathered ? *gathered : scratch, .config = resolved});
}

void gemm_reduce_scatter(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c,
                         const GemmReduceScatterConfig &config) {
  const int n_pes = nPes();
  // k_local may differ between PEs (an uneven split of K); M, N and the config may not.
  detail::CallSignature signature;
  signature.context(ctx);
  signature.tensor("a", a, 1);
  signature.tensor("b", b, 0);
  signature.tensor("c", c);
  const GemmReduceScatterConfig resolved = resolved_config(ctx, a, b, config);
  addConfig(signature, resolved);
  const auto check = [&] {
    detail::requireHeapTensor(kGemmReduceScatter, "a", a, 2, {DType::F32, DType::BF16});
    detail::requireHeapTensor(kGemmReduceScatter, "b", b, 2, {a.dtype});
    detail::requireHeapTensor(kGemmReduceScatter, "c", c, 2, {a.dtype});
    requireConfig(kGemmReduceScatter, resolved);
    // k_local may differ between PEs (an uneven split of K); M, N and the config may not.
    const std::int64_t M = a.shape[0], k_local = a.shape[1], N = b.shape[1];
    if (b.shape[0] != k_local) {
      invalid(kGemmReduceScatter, "b is " + shapeText(b) + ", expected [k_local = " + std::to_string(k_local) + ", N]");
    }
    requireBlasExtent(kGemmReduceScatter, "M", M);
    requireBlasExtent(kGemmReduceScatter, "k_local", k_local);
    requireBlasExtent(kGemmReduceScatter, "N", N);
    if (M % n_pes != 0) {
      invalid(kGemmReduceScatter, "M = " + std::to_string(M) + " is not a multiple of n_pes = " + std::to_string(n_pes));
    }
    const std::int64_t m_block = M / n_pes;
    if (c.shape[0] != m_block || c.shape[1] != N) {
      invalid(kGemmReduceScatter, "c is " + shapeText(c) + ", expected [M / n_pes = " + std::to_string(m_block) +
                                      ", N = " + std::to_string(N) + "]");
    }
    // The owner's scratch holds one partial block [M / n_pes, N] from every PE, in f32.
    const std::size_t partial_bytes = static_cast<std::size_t>(M) * N * sizeof(float);
    if (partial_bytes > ctx.scratchBytes()) {
      invalid(kGemmReduceScatter, "the partial blocks need " + std::to_string(partial_bytes) +
                                      " bytes of scratch and the context has " + std::to_string(ctx.scratchBytes()) +
                                      ": use a larger ContextOptions::scratch_bytes");
    }
  };
  detail::runEntry(ctx, kGemmReduceScatter, &KernelBackend::gemm_reduce_scatter, signature, check,
                   GemmReduceScatterCall{.a = a, .b = b, .c = c, .config = resolved});
}

}  // namespace tdist::kernels
