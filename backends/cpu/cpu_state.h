// backends/cpu/cpu_state.h - what the cpu backend keeps per PE: its heap mappings and engines.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "backends/cpu/copy_engine.h"
#include "runtime/runtime_state.h"

namespace tdist::cpu {

struct CpuState {
  std::size_t segment_bytes = 0;
  std::vector<std::byte *> mappings;        // every PE's segment, index = PE
  std::unique_ptr<device::CopyEngine> copy_engine;  // when the SDMA engine is enabled
};

inline CpuState &cpuState(runtime::RuntimeState &state) {
  return *static_cast<CpuState *>(state.backend_state);
}

// Heap segments (heap_segments.cpp): a memfd of `bytes`, its pages reserved; and the mapping
// of every PE's.
int createSegment(runtime::RuntimeState &state, std::size_t bytes);
void mapSegments(runtime::RuntimeState &state, std::span<const int> fds);
void unmapSegments(runtime::RuntimeState &state);

}  // namespace tdist::cpu
