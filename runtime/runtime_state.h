// runtime/runtime_state.h - everything an initialized PE holds.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/backend.h"
#include "runtime/bootstrap_store.h"
#include "runtime/heap_allocator.h"
#include "runtime/static_data.h"
#include "runtime/host_channel.h"
#include "runtime/symmetric_heap.h"
#include "runtime/teams.h"
#include "tdist/runtime.h"

namespace tdist::runtime {

struct RuntimeState {
  RuntimeState();
  ~RuntimeState();

  InitAttr attr;
  int my_pe = 0;
  int n_pes = 1;
  std::string job_id;
  std::vector<int> node_of;  // every PE's node (InitAttr::node), as each PE said at init
  std::unique_ptr<BootstrapStore> store;
  const Backend *backend = nullptr;
  void *backend_state = nullptr;  // the backend's own, between attach and detach
  HostChannel channel;            // team lines, collective records, exit requests
  SymmetricHeap heap;             // as the backend mapped it
  StaticData statics;             // the program's static data, symmetric where shared
  HeapAllocator allocator;
  TeamTable teams;
  std::chrono::nanoseconds wait_timeout{};
};

// The state of this process, or nullptr before init and after finalize.
extern RuntimeState *g_state;

// The state, or Error(NotInitialized) naming `call`.
inline RuntimeState &requireState(const char *call) {
  if (g_state == nullptr) [[unlikely]] {
    throw Error(ErrorCode::NotInitialized,
                std::string(call) + ": tdist is not initialized (call init first)");
  }
  return *g_state;
}

// The backend of the initialized runtime, else the build's first (launch works before init).
const Backend &activeBackend();

// Checks that pe names a PE of the job.
void checkPe(const RuntimeState &state, int pe, const char *call);

// Translates a symmetric address of this PE, [ptr, ptr + bytes), to pe's copy: on the heap
// (checked first), or in the program's static data where it is shared. Otherwise throws
// Error(InvalidParam) naming `call` and `what` ("is not on the symmetric heap"), or, for static
// data that is not symmetric in this job, the reason (NotSupported on a backend that cannot
// reach it).
std::byte *peerAddress(const RuntimeState &state, const void *ptr, std::size_t bytes, int pe,
                       const char *call, const char *what);

}  // namespace tdist::runtime
