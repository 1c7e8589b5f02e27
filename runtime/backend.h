// runtime/backend.h - what the runtime core asks of a backend: a table of operations.
//
// A backend is chosen at init, by name, from the backends of the build (backends/registry.cpp),
// as NCCL walks its transports: each is a table filled with designated initializers (a member
// left out is null, zero or false), with a can_run predicate that says why it cannot run here
// when it cannot. The core never includes a backend's headers; a backend keeps its per-PE state
// behind RuntimeState::backend_state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "common/trace_format.h"
#include "tdist/launch.h"
#include "tdist/shmem.h"

namespace tdist::runtime {

struct RuntimeState;

// Bytes from source to dest, then (when signal is set) a signal update: SET is a release store,
// ADD an atomic add. Transfers of one PE are carried in submission order.
struct Transfer {
  std::byte *dest = nullptr;
  const void *source = nullptr;
  std::size_t bytes = 0;
  void *signal = nullptr;
  std::uint64_t signal_value = 0;
  shmem::SignalOp signal_op = shmem::SignalOp::Set;
  std::uint8_t signal_bytes = 0;  // 4 or 8
};

// Applies the signal update of a transfer (SET, ADD) to a word the host can load, recording it in
// the trace: for the engines of a backend whose host loads the heap, and for host calls there.
void applySignal(void *word, std::uint8_t bytes, std::uint64_t value, shmem::SignalOp op);

// Read-modify-write operations on one heap word, for hosts that cannot load the heap.
// PutSet and PutAdd are a point put's and a signal's SET and ADD: delivered by the next quiet at
// the latest, like any put; Set and Add are the atomics', delivered on return.
enum class WordOp : std::uint8_t { Fetch, Set, Swap, CompareSwap, Add, FetchAdd, PutSet, PutAdd };

struct Backend {
  const char *name = nullptr;
  // True when the backend can run in this process; otherwise *why says what is missing.
  bool (*can_run)(std::string *why) = nullptr;
  unsigned engines = 0;  // the Engine bits it provides

  // Per-PE state: attach makes it (RuntimeState::backend_state), detach stops the engines, unmaps
  // the heaps and releases everything; detach also undoes a partial init.
  void (*attach)(RuntimeState &state) = nullptr;
  void (*detach)(RuntimeState &state) = nullptr;

  // Heap. create makes this PE's segment of `bytes` and returns a file descriptor for it, which
  // the core passes to every peer (runtime/fd_exchange.h); map maps every PE's segment, from
  // fds[pe] (fds[my_pe] is this PE's own), and fills state.heap: bases and peer state. fds[pe] is
  // -1 for a PE of another node (state.node_of): the backend reaches it otherwise, or refuses.
  int (*heap_create)(RuntimeState &state, std::size_t bytes) = nullptr;
  void (*heap_map)(RuntimeState &state, std::span<const int> fds) = nullptr;

  // Engines (state.attr.engines): start once the heap is mapped; submit carries a transfer
  // (complete on return when blocking, else once quiet returns) by whichever engine the backend
  // picks, and submit_engine names that engine for the trace (Backend where the host cannot tell
  // which); quiet waits for every transfer this PE submitted. Every transfer of a host call goes
  // through submit, whatever the backend.
  void (*engines_start)(RuntimeState &state) = nullptr;
  void (*submit)(RuntimeState &state, const Transfer &transfer, bool blocking, const char *call) = nullptr;
  trace_format::Engine (*submit_engine)(const RuntimeState &state, bool blocking) = nullptr;
  void (*quiet)(RuntimeState &state, const char *call) = nullptr;

  // Launch: runs body once per program of grid on this PE. in_program is true on a thread that
  // runs a program of a launch (host-only calls are refused there).
  void (*launch)(const Grid &grid, const std::function<void()> &body, const LaunchOptions &options) = nullptr;
  bool (*in_program)() = nullptr;

  // Waits. A wait of the core that is not yet satisfied after `polls` polls calls wait_yield:
  // true when it let other work of this PE run (cpu: the other programs of the worker), false
  // when the waiter should back off itself. It may throw to unwind the programs of a failed
  // launch. wait_done tells the backend that a wait which had yielded is satisfied.
  bool (*wait_yield)(std::uint32_t polls) = nullptr;
  void (*wait_done)(std::uint32_t polls) = nullptr;

  // Host access to the heap. host_view returns where the host itself may load and store the
  // `bytes` at address, a symmetric address in this process's mapping (any PE's, as peerAddress
  // returns it), or null where it cannot (cuda: the heap is GPU memory). Where it is null, host
  // calls move bytes through submit and change words through word_op, which applies op to the 4-
  // or 8-byte word at address with release-acquire order at system scope and returns the word's
  // previous value (Fetch: its value; Set, Add, PutSet, PutAdd: none). PutSet and PutAdd may be
  // delivered as late as the next quiet, as puts are (the cpu backend's network engine sends them
  // as messages); an op that returns a value sees them. zero clears heap bytes (calloc).
  void *(*host_view)(RuntimeState &state, const void *address, std::size_t bytes) = nullptr;
  std::uint64_t (*word_op)(RuntimeState &state, WordOp op, void *address, unsigned bytes,
                           std::uint64_t operand, std::uint64_t compare, const char *call) = nullptr;
  void (*zero)(RuntimeState &state, void *address, std::size_t bytes) = nullptr;

  // True when the program's static data is remotely accessible on this backend like the heap
  // (runtime/static_data.h): the core shares it and the backend's calls reach it through
  // peerAddress. False where its devices cannot reach host memory (cuda).
  bool shares_static_data = false;

  // A team was created (index in state.teams), called on its members only, together: a backend
  // whose devices keep their own team table and barrier words sets them up (it may synchronize
  // the team through the core's teamSync). May be null.
  void (*team_created)(RuntimeState &state, int team) = nullptr;

  // A code module loaded by someone else (a CUmodule of Triton's on cuda) that links the device
  // library as bitcode: the backend fills its state global from now on, at every init, and zeroes
  // it at finalize. Returns false, touching nothing, when the module has no such global. Needs no
  // init. Null where the backend loads no device code (cpu).
  bool (*attach_module)(void *module) = nullptr;
};

// The backends of this build, in priority order (backends/registry.cpp).
std::span<const Backend *const> builtBackends();

// The backend named `name` among `backends` ("" = the first), or Error(InvalidParam) for a name
// that is not there and Error(NotSupported) for one that cannot run, each saying what exists.
const Backend &selectBackend(std::string_view name, std::span<const Backend *const> backends);

}  // namespace tdist::runtime
