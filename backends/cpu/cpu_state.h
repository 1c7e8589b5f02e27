// backends/cpu/cpu_state.h - what the cpu backend keeps per PE: its heap mappings and engines.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "backends/cpu/copy_engine.h"
#include "backends/cpu/ucx_engine.h"
#include "runtime/runtime_state.h"

namespace tdist::cpu {

struct CpuState {
  std::size_t segment_bytes = 0;
  std::vector<std::byte *> mappings;        // every PE's segment, index = PE
  std::unique_ptr<CopyEngine> copy_engine;  // when the SDMA engine is enabled
  std::unique_ptr<UcxEngine> ucx;           // when peers are reached through UCX (TDIST_TRANSPORT=ucx)
};

inline CpuState &cpuState(runtime::RuntimeState &state) {
  return *static_cast<CpuState *>(state.backend_state);
}
inline const CpuState &cpuState(const runtime::RuntimeState &state) {
  return *static_cast<const CpuState *>(state.backend_state);
}

// Heap segments (heap_segments.cpp): a memfd of `bytes`, its pages reserved; and the mapping
// of every PE's.
int createSegment(runtime::RuntimeState &state, std::size_t bytes);
void mapSegments(runtime::RuntimeState &state, std::span<const int> fds);
void unmapSegments(runtime::RuntimeState &state);

// Transfers (submit.cpp): the table's submit and submit_engine.
void submit(runtime::RuntimeState &state, const runtime::Transfer &transfer, bool blocking, const char *call);
trace_format::Engine submitEngine(const runtime::RuntimeState &state, bool blocking);

}  // namespace tdist::cpu
