// kernels/collectives.cpp - the public entry points of AllGather, ReduceScatter and AllReduce:
// check the tensors and the config on this PE, agree with every PE on the call, run the
// context's backend's body (kernels/entry.h).
#include "tdist/kernels/collectives.h"

#include "kernels/backend.h"
#include "kernels/checks.h"
#include "kernels/entry.h"

namespace tdist::kernels {
namespace {

constexpr long long kMinChunkBytes = 4096;
constexpr long long kMaxChunkBytes = 1ll << 30;
constexpr long long kMaxPrograms = 1024;
// Auto: the two-shot on more than one PE, at every size and on every backend, as measured. On cpu
// it pulls its blocks straight from the peers' inputs (one signal step, as the one-shot, and 1/n
// of the reduction work) and measured faster than the one-shot from 16 KiB on 2 and 4 PEs; on
// cuda, graph-replayed bf16 8 KiB .. 2 MiB on one H200, 5.0-8.8 us against the one-shot's
// 5.7-12.1 on 2 PEs and 10.5-14.6 against 11.7-27.3 on 4 (docs/BENCHMARKS.md).

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
  const auto check = [&] {
    requireDtypes(kName, input, output);
    requireChunking(kName, config.chunk_bytes, config.programs);
    requireNumel(kName, "output", output, input.numel() * nPes(), "n_pes x the elements of input");
  };
  detail::runEntry(ctx, kName, &KernelBackend::all_gather, signatureOf(ctx, input, output, config), check,
                   AllGatherCall{.input = input, .output = output, .config = config});
}

void reduce_scatter(Context &ctx, const Tensor &input, Tensor &output, const ReduceScatterConfig &config) {
  constexpr const char *kName = "tdist::kernels::reduce_scatter";
  const auto check = [&] {
    requireDtypes(kName, input, output);
    requireChunking(kName, config.chunk_bytes, config.programs);
    if (input.numel() % nPes() != 0) {
      throw Error(ErrorCode::InvalidParam, std::string(kName) + ": input has " + std::to_string(input.numel()) +
                                               " elements; expected a multiple of n_pes = " + std::to_string(nPes()));
    }
    requireNumel(kName, "output", output, input.numel() / nPes(), "the elements of input / n_pes");
  };
  detail::runEntry(ctx, kName, &KernelBackend::reduce_scatter, signatureOf(ctx, input, output, config), check,
                   ReduceScatterCall{.input = input, .output = output, .config = config});
}

void all_reduce(Context &ctx, const Tensor &input, Tensor &output, const AllReduceConfig &config) {
  constexpr const char *kName = "tdist::kernels::all_reduce";
  const auto check = [&] {
    requireDtypes(kName, input, output);
    requireChunking(kName, config.chunk_bytes, config.programs);
    detail::requireRange(kName, "algorithm", static_cast<int>(config.algorithm),
                         static_cast<int>(AllReduceAlgorithm::Auto), static_cast<int>(AllReduceAlgorithm::Ring));
    requireNumel(kName, "output", output, input.numel(), "the elements of input");
  };
  // Every PE that passes the agreement has the same size, so every PE picks the same algorithm.
  const AllReduceAlgorithm algorithm =
      config.algorithm == AllReduceAlgorithm::Auto ? chooseAllReduce(ctx, input.nbytes()) : config.algorithm;
  detail::runEntry(ctx, kName, &KernelBackend::all_reduce, signatureOf(ctx, input, output, config), check,
                   AllReduceCall{.input = input, .output = output, .config = config, .algorithm = algorithm});
}

AllReduceAlgorithm chooseAllReduce(const Context &ctx, std::size_t bytes) {
  (void)ctx;
  (void)bytes;
  return nPes() == 1 ? AllReduceAlgorithm::OneShot : AllReduceAlgorithm::TwoShot;
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
