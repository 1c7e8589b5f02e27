// kernels/context_state.h - what a Context holds, for the library's entry points and bodies: its
// signals, its scratch, its backend's table (kernels/backend.h) and what that backend keeps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tdist/kernels/collectives.h"
#include "tdist/kernels/context.h"

namespace tdist::kernels {

struct KernelBackend;
struct TuningTable;

// The last config a collective resolved from the tuning table on a context, for its size and the
// config as given (kernels/tuning.cpp): a loop of calls of one shape reads the table once.
template <class Config>
struct ResolvedConfig {
  bool valid = false;
  std::size_t bytes = 0;
  Config given{};
  Config resolved{};
};

// Slots are this many bytes apart (the cuda kernels' slotAt assumes it: kernels/cuda/common.cuh).
constexpr std::size_t kSlotBytes = 64;

struct Context::State {
  const KernelBackend *backend = nullptr;  // chosen once, at creation
  std::string backend_name;
  void *signals = nullptr;
  int max_signals = 0;
  void *scratch = nullptr;
  std::size_t scratch_bytes = 0;
  // The tuning table read at creation (kernels/tuning.h), null for none, and its path.
  std::shared_ptr<const TuningTable> tuning;
  // Whether some peer of this PE is reached through the network (detail::anyPeerThroughNetwork,
  // alike on every PE), found once at creation: Auto's rule and the cpu handshake's rows use it.
  bool network_peers = false;
  std::string tuning_path;
  mutable ResolvedConfig<AllReduceConfig> resolved_all_reduce;
  mutable ResolvedConfig<AllGatherConfig> resolved_all_gather;
  mutable ResolvedConfig<ReduceScatterConfig> resolved_reduce_scatter;
  // cuda: the cudaStream_t of calls.
  void *stream = nullptr;
  // cpu: the epoch of the last call (every call takes the next, every PE alike: cpu::nextEpoch);
  // 2 parities x n_pes rows of 64 bytes (detail::HandshakeRow), zeroed, and the number of the
  // last handshake made on this context (the same on every PE).
  std::uint64_t epoch = 0;
  void *handshake = nullptr;
  std::uint64_t handshakes = 0;
  // The rows' size: 64 bytes, or, where the job has peers through the network, 64 and the bytes
  // a row carries (detail::handshakeRowBytes); the handshake whose rows last carried bytes (0:
  // none yet), and where this PE stages its row and bytes for their put.
  std::size_t handshake_row_bytes = 64;
  std::uint64_t carried_at = 0;
  std::vector<std::byte> carried_staging;
  // cpu: whether the call under way posted a non-blocking put to a peer of another node, which
  // its end must complete (cpu::settled).
  bool network_puts_posted = false;
};

namespace detail {
struct ContextAccess {
  static Context::State &state(Context &ctx) { return *ctx.state_; }
  static const Context::State &state(const Context &ctx) { return *ctx.state_; }
};
}  // namespace detail

}  // namespace tdist::kernels
