// kernels/context_state.h - what a Context holds, for the library's entry points: its signals,
// its scratch, its epoch and, on cpu, the table of the in-band entry handshake
// (kernels/checks.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tdist/kernels/context.h"

namespace tdist::kernels {

struct Context::State {
  void *signals = nullptr;
  int max_signals = 0;
  void *scratch = nullptr;
  std::size_t scratch_bytes = 0;
  std::uint64_t epoch = 0;
  std::string backend;
  void *stream = nullptr;
  // cpu: 2 parities x n_pes rows of 64 bytes (detail::HandshakeRow), zeroed, and the number of
  // the last handshake made on this context (the same on every PE).
  void *handshake = nullptr;
  std::uint64_t handshakes = 0;
};

namespace detail {
struct ContextAccess {
  static Context::State &state(Context &ctx) { return *ctx.state_; }
};
}  // namespace detail

}  // namespace tdist::kernels
