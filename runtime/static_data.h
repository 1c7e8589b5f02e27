// runtime/static_data.h - the program's static data made symmetric: the main executable's
// writable data (.data, .bss and what shares their pages), remotely accessible like the heap.
//
// At init, before the bootstrap store starts any thread, each PE moves its writable data pages
// into a memfd mapped over the same addresses (contents kept, once per process), and the PEs
// of a node pass these memfds with the heap's descriptors and map each other's; a PE of another
// node is reached as its heap is, through the backend's network engine. Every PE runs the same
// executable, so a variable is at the same offset from the start of its range on every PE,
// whatever address ASLR loaded the program at. The PEs check that they agree (same program,
// same ranges); when they do not, or a PE opted out (TDIST_STATIC_DATA=0), or the backend
// cannot reach host memory from its devices (cuda), the static data stays private and a
// remote access to it is an error that says why. Shared libraries' data is never symmetric.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/fd_exchange.h"
#include "tdist/error.h"

namespace tdist::runtime {

struct Backend;
struct RuntimeState;

// One writable range of the program's data: whole pages.
struct StaticRange {
  std::byte *local = nullptr;
  std::size_t size = 0;
  std::size_t program_offset = 0;  // of local from where the program was loaded
  std::vector<std::byte *> peers;  // index = PE; peers[my_pe] == local; empty while not shared

  bool contains(const void *ptr, std::size_t bytes) const {
    auto p = reinterpret_cast<std::uintptr_t>(ptr);
    auto b = reinterpret_cast<std::uintptr_t>(local);
    return p >= b && bytes <= size && p - b <= size - bytes;
  }
};

// This PE's view of the program's static data.
struct StaticData {
  std::vector<StaticRange> ranges;  // the program's writable data, whether shared or not
  bool shared = false;              // every PE maps every PE's ranges
  ErrorCode code = ErrorCode::InvalidParam;
  std::string why;                  // when not shared: why (", which is not symmetric ...")

  // The range that holds [ptr, ptr + bytes), or nullptr.
  const StaticRange *find(const void *ptr, std::size_t bytes) const {
    for (const StaticRange &range : ranges) {
      if (range.contains(ptr, bytes)) return &range;
    }
    return nullptr;
  }
};

// Init, before the store connects: finds this program's data and, when `share` (TDIST_STATIC_DATA
// is not 0) and the backend shares static data, moves it into memfds, once per process.
void prepareStaticData(RuntimeState &state, const Backend &backend, bool share);
// Collective over the store: agrees with every PE on whether the static data is shared.
void agreeOnStaticData(RuntimeState &state);
// The descriptors to pass to every peer: one per range once agreed, else none.
std::vector<int> staticDataFds(const RuntimeState &state);
// Maps every peer's ranges from the exchanged descriptors: peer_fds[pe][first + i] is range i
// of PE pe (peer_fds[my_pe] is unused); a PE that sent none (another node's) gets address space
// without memory that names its copy, which the backend reaches through its network engine.
void mapStaticData(RuntimeState &state, const std::vector<std::vector<UniqueFd>> &peer_fds, std::size_t first);
// Unmaps the peers' ranges; this PE's own stay where they are, and so does its data.
void unmapStaticData(StaticData &statics);

// pe's copy of [ptr, ptr + bytes) when that is static data shared in this job, else nullptr.
std::byte *staticPeerAddress(const RuntimeState &state, const void *ptr, std::size_t bytes, int pe);

// The error for [ptr, ptr + bytes) that is neither on the heap nor in shared static data:
// "<call>: <what> <ptr> (+<bytes> bytes) is not on the symmetric heap", or why the static data
// that holds it is not symmetric.
[[noreturn]] void throwNotSymmetric(const RuntimeState &state, const void *ptr, std::size_t bytes,
                                    const char *call, const char *what);

// For the wait diagnostic: where address lies in some PE's static data ("static data at 0x.. of
// PE n's program": the address that nm shows for the variable), written to text; false when it
// lies in none.
bool describeStaticAddress(const RuntimeState &state, const void *address, char *text, std::size_t size);

}  // namespace tdist::runtime
