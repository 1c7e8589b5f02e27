// kernels/collectives.cpp - the public entry points of AllGather, ReduceScatter and AllReduce:
// resolve the config's Auto fields (kernels/tuning.cpp), check the tensors and the config on this
// PE, agree with every PE on the call with its config resolved (what the body runs: a PE that
// left a field Auto and one that set it to what Auto gives make the same call), run the context's
// backend's body (kernels/entry.h).
#include "tdist/kernels/collectives.h"

#include <cstddef>

#include "kernels/backend.h"
#include "kernels/checks.h"
#include "kernels/entry.h"
#include "tdist/kernels/tuning.h"

namespace tdist::kernels {
namespace {

constexpr long long kMinChunkBytes = 4096;
constexpr long long kMaxChunkBytes = 1ll << 30;
constexpr long long kMaxPrograms = 1024;
// The call's signature: the context, the tensors and every config field (checks.h).
void addConfig(detail::CallSignature &s, const AllGatherConfig &config) {
  const auto &[chunk_bytes, programs, engine] = config;
  s.add("config.chunk_bytes", static_cast<long long>(chunk_bytes));
  s.add("config.programs", programs);
  s.add("config.engine", static_cast<int>(engine));
}
void addConfig(detail::CallSignature &s, const ReduceScatterConfig &config) {
  const auto &[chunk_bytes, programs, engine] = config;
  s.add("config.chunk_bytes", static_cast<long long>(chunk_bytes));
  s.add("config.programs", programs);
  s.add("config.engine", static_cast<int>(engine));
}
void addConfig(detail::CallSignature &s, const AllReduceConfig &config) {
  const auto &[algorithm, chunk_bytes, programs] = config;
  s.add("config.algorithm", algorithmName(algorithm));
  s.add("config.chunk_bytes", static_cast<long long>(chunk_bytes));
  s.add("config.programs", programs);
}

void requireDtypes(const char *kernel, const Tensor &input, const Tensor &output) {
  detail::requireHeapTensor(kernel, "input", input, -1, {DType::F32, DType::BF16, DType::F16});
  detail::requireHeapTensor(kernel, "output", output, -1, {DType::F32, DType::BF16, DType::F16});
  if (output.dtype != input.dtype) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": output has dtype " + dtypeName(output.dtype) +
                                             "; expected the dtype of input, " + dtypeName(input.dtype));
  }
}

void requireNumel(const char *kernel, const char *what, const Tensor &t, std::int64_t expected,
                  const char *because) {
  if (t.numel() != expected) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": " + what + " has " + std::to_string(t.numel()) +
                                             " elements; expected " + std::to_string(expected) + " (" + because + ")");
  }
}

void requireChunking(const char *kernel, std::size_t chunk_bytes, int programs) {
  detail::requireRange(kernel, "chunk_bytes", static_cast<long long>(chunk_bytes), kMinChunkBytes, kMaxChunkBytes);
  detail::requireRange(kernel, "programs", programs, 0, kMaxPrograms);
}

template <class Config>
detail::CallSignature signatureOf(const Context &ctx, const Tensor &input, const Tensor &output,
                                  const Config &config) {
  detail::CallSignature signature;
  signature.context(ctx);
  signature.tensor("input", input);
  signature.tensor("output", output);
  addConfig(signature, config);
  return signature;
}

}  // namespace

void all_gather(Context &ctx, const Tensor &input, Tensor &output, const AllGatherConfig &config) {
  constexpr const char *kName = "tdist::kernels::all_gather";
  const AllGatherConfig resolved = resolved_config(ctx, input, config);
  const auto check = [&] {
    requireDtypes(kName, input, output);
    requireChunking(kName, resolved.chunk_bytes, resolved.programs);
    requireNumel(kName, "output", output, input.numel() * nPes(), "n_pes x the elements of input");
    // Every PE's block of output is written while every PE's input is read: a peer's block would
    // land on this PE's input before this PE sent all of it.
    const auto *in = static_cast<const std::byte *>(input.data);
    const auto *out = static_cast<const std::byte *>(output.data);
    if (input.nbytes() != 0 && in < out + output.nbytes() && out < in + input.nbytes()) {
      throw Error(ErrorCode::InvalidParam, std::string(kName) + ": input and output overlap; all_gather needs them "
                                                                "apart (each PE's output is written while every "
                                                                "PE's input is read)");
    }
  };
  detail::runEntry(ctx, kName, &KernelBackend::all_gather, signatureOf(ctx, input, output, resolved), check,
                   AllGatherCall{.input = input, .output = output, .config = resolved});
}

void reduce_scatter(Context &ctx, const Tensor &input, Tensor &output, const ReduceScatterConfig &config) {
  constexpr const char *kName = "tdist::kernels::reduce_scatter";
  const ReduceScatterConfig resolved = resolved_config(ctx, input, config);
  const auto check = [&] {
    requireDtypes(kName, input, output);
    requireChunking(kName, resolved.chunk_bytes, resolved.programs);
    if (input.numel() % nPes() != 0) {
      throw Error(ErrorCode::InvalidParam, std::string(kName) + ": input has " + std::to_string(input.numel()) +
                                               " elements; expected a multiple of n_pes = " + std::to_string(nPes()));
    }
    requireNumel(kName, "output", output, input.numel() / nPes(), "the elements of input / n_pes");
  };
  detail::runEntry(ctx, kName, &KernelBackend::reduce_scatter, signatureOf(ctx, input, output, resolved), check,
                   ReduceScatterCall{.input = input, .output = output, .config = resolved});
}

void all_reduce(Context &ctx, const Tensor &input, Tensor &output, const AllReduceConfig &config) {
  constexpr const char *kName = "tdist::kernels::all_reduce";
  // Every PE that passes the agreement has the same size and read the same table, so every PE
  // resolves the same algorithm.
  const AllReduceConfig resolved = resolved_config(ctx, input, config);
  const auto check = [&] {
    requireDtypes(kName, input, output);
    requireChunking(kName, resolved.chunk_bytes, resolved.programs);
    detail::requireRange(kName, "algorithm", static_cast<int>(config.algorithm),
                         static_cast<int>(AllReduceAlgorithm::Auto), static_cast<int>(AllReduceAlgorithm::Ring));
    requireNumel(kName, "output", output, input.numel(), "the elements of input");
  };
  detail::runEntry(
      ctx, kName, &KernelBackend::all_reduce, signatureOf(ctx, input, output, resolved), check,
      AllReduceCall{.input = input, .output = output, .config = resolved, .algorithm = resolved.algorithm});
}

const char *algorithmName(AllReduceAlgorithm algorithm) {
  switch (algorithm) {
    case AllReduceAlgorithm::Auto: return "auto";
    case AllReduceAlgorithm::OneShot: return "one-shot";
    case AllReduceAlgorithm::TwoShot: return "two-shot";
    case AllReduceAlgorithm::Ring: return "ring";
  }
  return "?";
}

}  // namespace tdist::kernels
