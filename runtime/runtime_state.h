// runtime/runtime_state.h - everything an initialized PE holds.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/bootstrap_store.h"
#include "runtime/heap_allocator.h"
#include "runtime/symmetric_heap.h"
#include "runtime/teams.h"
#include "tdist/runtime.h"

namespace tdist::device {
class CopyEngine;
}

namespace tdist::runtime {

struct RuntimeState {
  RuntimeState();
  ~RuntimeState();

  InitAttr attr;
  int my_pe = 0;
  int n_pes = 1;
  std::string job_id;
  std::unique_ptr<BootstrapStore> store;
  SymmetricHeap heap;
  HeapAllocator allocator;
  TeamTable teams;
  std::chrono::nanoseconds wait_timeout{};
  std::unique_ptr<device::CopyEngine> copy_engine;  // when the SDMA engine is enabled
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

// Checks that pe names a PE of the job.
void checkPe(const RuntimeState &state, int pe, const char *call);

// Translates a symmetric address of this PE, [ptr, ptr + bytes), to pe's copy, or throws
// Error(InvalidParam) naming `call` and `what` when it is not on the heap.
std::byte *peerAddress(const RuntimeState &state, const void *ptr, std::size_t bytes, int pe,
                       const char *call, const char *what);

}  // namespace tdist::runtime
