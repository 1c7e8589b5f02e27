// backends/cpu/ucx_engine.h - the cpu backend's network engine: UCX (UCP), one context and worker
// per PE, this PE's heap segment registered, every peer's worker address, heap base and packed
// key exchanged through the bootstrap store, endpoints made up front (DESIGN §11).
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

class UcxEngine {
 public:
  // Collective (through the bootstrap store). mappings[pe]: where PE pe's segment is mapped in
  // this process (the addresses host calls name); routed[pe]: whether this engine carries what
  // goes to PE pe; channel: this PE's host-channel segment, registered too, which channelLink()
  // writes into on the routed PEs. Throws Error(NotSupported) in a build without UCX,
  // Error(Internal) naming the UCX call that failed.
  UcxEngine(runtime::RuntimeState &state, std::span<std::byte *const> mappings, std::size_t segment_bytes,
            std::vector<bool> routed, std::span<std::byte> channel);
  ~UcxEngine();
  UcxEngine(const UcxEngine &) = delete;
  UcxEngine &operator=(const UcxEngine &) = delete;

  // The routed PE whose segment holds [address, address + bytes), its offset in *offset; -1 when none.
  int routedPe(const void *address, std::size_t bytes, std::size_t *offset) const;

  // Bytes from source to PE pe's segment at offset, then the signal's update when it has one;
  // delivered on return when blocking, else by quiet.
  void put(int pe, std::size_t offset, const runtime::Transfer &transfer, bool blocking, const char *call);
  // Bytes of PE pe's segment at offset into dest, on return.
  void get(void *dest, int pe, std::size_t offset, std::size_t bytes, const char *call);
  // One word operation on PE pe's word at offset (4 or 8 bytes); returns the previous value.
  std::uint64_t wordOp(int pe, std::size_t offset, runtime::WordOp op, unsigned bytes, std::uint64_t operand,
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
