// tdist/kernels/collectives.h - AllGather, ReduceScatter and AllReduce on the symmetric heap.
//
// Tensors are contiguous row-major tdist::Tensor on the symmetric heap, f32 or bf16 (f16 where
// the backend has it); input and output of one call have the same dtype. Reductions are sums,
// deterministic: every output element is summed in PE order (PE 0 + PE 1 + ...), whatever order
// the tiles arrive in, so results are bitwise identical from run to run and across configs.
#pragma once

#include <cstddef>

#include "tdist/kernels/context.h"

#pragma GCC visibility push(default)

namespace tdist::kernels {

// Fields at 0 or Auto are resolved when the call is made (tdist/kernels/tuning.h): from the
// context's tuning table where it has an entry for the call, else the library's own choice (for
// chunk_bytes: 256 KiB).

// output (n_pes * numel(input) elements) = the inputs of PE 0, 1, ... concatenated.
struct AllGatherConfig {
  std::size_t chunk_bytes = 0;  // unit of transfer and of its signal; 4 KiB .. 1 GiB (0 = Auto)
  int programs = 0;             // cpu: programs (0 = one per chunk up to 64); cuda: SMs (0 = auto)
  enum class Engine { Auto, Sm, CopyEngine } engine = Engine::Auto;  // cuda only
};
void all_gather(Context &ctx, const Tensor &input, Tensor &output, const AllGatherConfig &config = {});

// output (numel(input) / n_pes elements) on PE p = sum over PEs of block p of their inputs;
// numel(input) must be a multiple of n_pes.
struct ReduceScatterConfig {
  std::size_t chunk_bytes = 0;  // 4 KiB .. 1 GiB (0 = Auto)
  int programs = 0;
  enum class Engine { Auto, Sm, CopyEngine } engine = Engine::Auto;
};
void reduce_scatter(Context &ctx, const Tensor &input, Tensor &output, const ReduceScatterConfig &config = {});

// output = sum over PEs of input (same numel; output may be input).
enum class AllReduceAlgorithm {
  Auto,     // by the tuning table, else by PE count (chooseAllReduce)
  OneShot,  // every PE pushes its whole input to every peer; each reduces all
  TwoShot,  // reduce-scatter, then all-gather of the reduced blocks (cpu: pulled from the peers' inputs)
  Ring,     // 2 (n - 1) steps around the ring, one block a step
};
struct AllReduceConfig {
  AllReduceAlgorithm algorithm = AllReduceAlgorithm::Auto;
  std::size_t chunk_bytes = 0;  // 4 KiB .. 1 GiB (0 = Auto)
  int programs = 0;             // cpu: programs; cuda: blocks (0 = auto, at most 32)
};
void all_reduce(Context &ctx, const Tensor &input, Tensor &output, const AllReduceConfig &config = {});

// The algorithm Auto picks for this many bytes of each PE's input: the context's tuning table's
// (tdist/kernels/tuning.h), else the two-shot on more than one PE and the one-shot on one.
AllReduceAlgorithm chooseAllReduce(const Context &ctx, std::size_t bytes);
const char *algorithmName(AllReduceAlgorithm algorithm);

}  // namespace tdist::kernels

#pragma GCC visibility pop
