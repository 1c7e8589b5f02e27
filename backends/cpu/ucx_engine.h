// backends/cpu/ucx_engine.h - the cpu backend's network engine: UCX (UCP), one context and worker
// per PE, this PE's heap segment and static data registered, every peer's worker address, bases
// and packed keys exchanged through the bootstrap store, endpoints made up front (DESIGN §11).
// The host channel's pushes to other nodes are active messages that the receiving worker applies
// in order to its channel segment and, for the data a collective's step delivers, to its regions.
//
// Puts and gets are UCX's; signals and word operations are UCX atomics, which over TCP the
// target's worker applies with CPU atomics, so they agree with the target's own loads and atomics;
// a put with a signal is put, fence, then the signal's atomic (SET as a swap). Waits stay local
// loads. The target must progress for any of it to land: a thread per PE that sleeps on the
// worker's event descriptor does (a 2-core machine must not spin), and callers progress while
// they wait for a request. Every wait for a request ends at the job's wait deadline with an error.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "runtime/backend.h"
#include "runtime/host_channel.h"

namespace tdist::runtime {
struct RuntimeState;
}

namespace tdist::cpu {

// Memory that peers reach through the engine: this PE's copy, registered, and where every PE's
// copy is named in this process (views[pe]; the address host calls give for PE pe's copy: a
// mapping, or address space reserved for a PE of another node; nullptr where there is none).
struct UcxRegion {
  const char *what = "";  // for errors: "the heap", "static data"
  std::byte *local = nullptr;
  std::size_t bytes = 0;
  std::vector<std::byte *> views;
};

class UcxEngine {
 public:
  // Where a transfer goes: a routed PE's copy of some region, at address in that PE's process.
  struct Remote {
    int pe = -1;  // -1: not a routed PE's memory
    int region = 0;
    std::uint64_t address = 0;
  };

  // Collective (through the bootstrap store). regions: the heap and what else peers reach (every
  // PE passes the same regions in the same order); routed[pe]: whether this engine carries what
  // goes to PE pe; channel: this PE's host-channel segment, where the routed PEs' channel
  // messages (channelLink() on their side) land. Throws Error(NotSupported) in a build without UCX,
  // Error(Internal) naming the UCX call that failed.
  UcxEngine(runtime::RuntimeState &state, std::vector<UcxRegion> regions, std::vector<bool> routed,
            std::span<std::byte> channel);
  ~UcxEngine();
  UcxEngine(const UcxEngine &) = delete;
  UcxEngine &operator=(const UcxEngine &) = delete;

  // The routed PE's copy that holds [address, address + bytes), or pe -1 when none does.
  Remote locate(const void *address, std::size_t bytes) const;

  // Bytes from source to `to`, then the signal's update when it has one (landing after them).
  // Blocking: the source may be reused on return, and the bytes are delivered then, except a
  // small put with a signal (one message, which the peer applies in order), delivered by quiet
  // like every non-blocking put.
  void put(const Remote &to, const runtime::Transfer &transfer, bool blocking, const char *call);
  // Bytes at `from` into dest, on return.
  void get(void *dest, const Remote &from, std::size_t bytes, const char *call);
  // One word operation on the word at `at` (4 or 8 bytes); returns the previous value. PutSet and
  // PutAdd (a point put's, a signal's) are messages, delivered by quiet; the others see them.
  std::uint64_t wordOp(const Remote &at, runtime::WordOp op, unsigned bytes, std::uint64_t operand,
                       std::uint64_t compare, const char *call);
  // Every operation this PE started is delivered.
  void quiet(const char *call);
  // One round of the worker's progress: a PE that waits calls it while it polls, so that what it
  // waits for lands without waking the progress thread.
  void progress();

  // The host channel's writes into the routed PEs' channel segments (runtime/host_channel.h).
  runtime::ChannelLink &channelLink();

  struct Impl;

 private:
  Impl *impl_;
};

// TDIST_TRANSPORT: "" or "auto" (peers of this host are mapped; the default), "ucx" (every peer
// is reached through UCX, even on this host: the network path, for tests and measurements).
// Throws Error(InvalidParam) for another value.
bool transportForcedToUcx();

}  // namespace tdist::cpu
