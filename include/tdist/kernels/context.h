// tdist/kernels/context.h - what every kernel of the library shares: the context that owns its
// symmetric signals and scratch, and the checks every entry point makes.
//
// A Context is created collectively (every PE, same options) after init and lives across calls.
// Its signals are never reset: every call of a kernel takes the next epoch of the context, and
// waits for that epoch (or past it), so a fast PE already in its next call can never confuse a
// slow one. Every kernel call is collective over the world team, in the same order on every PE,
// with the same shapes, dtypes and config; a PE whose call differs gets an error on every PE.
//
// On the cpu backend a call runs to completion on this PE before it returns (its output written,
// its inputs free to overwrite); peers may still be in it. The PEs agree on each call in band,
// through a handshake table of the context, and that handshake also orders a call after every
// PE's previous one. On the cuda backend a call only enqueues work on `stream` (or the
// context's stream) and returns: it does no host synchronisation (the agreement is on the
// host), so it can be captured in a CUDA graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "tdist/runtime.h"

#pragma GCC visibility push(default)

namespace tdist::kernels {

namespace detail {
struct ContextAccess;  // the library's own entry points (kernels/context_state.h)
}

// The defaults fit the runtime's default heap (64 MiB a PE) with room for the program's own
// tensors: a quarter of it for the scratch. Calls whose data exceed the scratch run in rounds, or
// say which option to raise (the GEMMs' gathered A and partials live there).
struct ContextOptions {
  std::size_t scratch_bytes = 16u << 20;  // symmetric scratch per PE (staging, gathered tiles)
  int max_signals = 4096;                 // symmetric signal slots per PE (64 bytes each), minSignals() ..
  void *stream = nullptr;                 // cuda: the cudaStream_t calls use by default (null: the PE's own)
  // The tuning table that Auto fields read (tdist/kernels/tuning.h): a path, "" for
  // tuning_table_path() (TDIST_TUNE_TABLE, else the user's cache folder), "none" for none. Every
  // PE must read the same table (or none): creating the context fails otherwise.
  std::string tuning_table;
};

// The fewest signal slots a Context takes on this backend at this PE count (after init): with
// them every collective runs (in rounds, or with fewer blocks); the GEMMs and the MoE all-to-all
// need more as their chunks and experts grow, and say so. cpu: 2 n_pes; cuda: 7 + 3 n_pes.
int minSignals();

class Context {
 public:
  // Collective. Allocates the signals and the scratch on the symmetric heap. Throws
  // Error(InvalidParam) on every PE when max_signals is below minSignals() or the scratch and
  // signals do not fit the heap (naming the option to change).
  explicit Context(const ContextOptions &options = {});
  ~Context();  // collective: waits for its calls (synchronize), then frees them
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  // Symmetric signal slots (uint64, 64 bytes apart): slot(i) is the same offset on every PE.
  std::uint64_t *slot(int index) const;
  int maxSignals() const;
  // Symmetric scratch: the same offset on every PE.
  void *scratch() const;
  std::size_t scratchBytes() const;
  void *stream() const;  // cuda: the default stream of calls (cudaStream_t), null on cpu
  // Waits until every call made so far is complete (cuda: the stream; cpu: nothing to wait for).
  void synchronize();
  const std::string &backend() const;  // "cpu", "cuda"
  // The path of the tuning table the context read, empty when it uses none (no file, "none",
  // or a table of another backend or device).
  const std::string &tuning_table() const;

 private:
  friend struct detail::ContextAccess;
  struct State;
  std::unique_ptr<State> state_;
};

// Thrown (tdist::Error, InvalidParam) when a tensor is not contiguous row-major, not on the heap,
// of a dtype the kernel does not take, or of a shape the kernel does not accept; (NotSupported)
// for a dtype the backend lacks; (CollectiveMismatch) when PEs called with different shapes,
// dtypes or configs. The message names the kernel, the argument and what was expected.

}  // namespace tdist::kernels

#pragma GCC visibility pop
