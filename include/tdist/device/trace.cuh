// tdist/device/trace.cuh - what kernels record into the job's trace (docs/TRACING.md): the device
// primitives' waits, notifies, transfers and barriers, each an event in the PE's device buffer
// (state.h, TraceBuffer) stamped with %globaltimer. Off (the state's buffer is null), a hook is
// one load from constant memory and a branch; on, a record is an atomic on the buffer's count and
// a 48-byte store, out of line so that the waits keep their registers. A full buffer drops the
// event and counts it.
#pragma once

#include <cstdint>

#include "tdist/device/ptx.cuh"
#include "tdist/device/state.cuh"

namespace tdist::device::detail {

// tdist::trace_format::Kind (common/trace_format.h; the cuda backend checks that they agree).
enum class TraceKind : std::uint16_t {
  WaitBegin = 3,
  WaitEnd = 4,
  Notify = 5,
  TransferBegin = 6,
  TransferEnd = 7,
  BarrierBegin = 10,
  BarrierEnd = 11,
};

// TDIST_DEVICE_TRACE=0 compiles the hooks out (to measure what they cost when off).
#ifndef TDIST_DEVICE_TRACE
#define TDIST_DEVICE_TRACE 1
#endif

__device__ __forceinline__ bool tracing() {
#if TDIST_DEVICE_TRACE
  return state().trace != nullptr;
#else
  return false;
#endif
}

// address: the slot or destination (located on the heap), or nullptr with `pe` the target.
inline __device__ __noinline__ void trace_record(TraceKind kind, const void *address, int pe, std::int64_t value,
                                                 std::int32_t aux, std::uint16_t flags) {
  TraceBuffer *buffer = state().trace;
  const unsigned long long index = atomicAdd(&buffer->count, 1ull);
  if (index >= buffer->capacity) return;  // dropped: count says how many
  TraceEvent event;
  event.t_ns = ptx::global_timer();
  event.kind = static_cast<std::uint16_t>(kind);
  event.flags = flags;
  event.value = value;
  event.aux = aux;
  event.pe = pe;
  event.offset = ~0ull;
  if (address != nullptr) {
    const HeapLocation where = locate(address);
    if (where.owner_pe >= 0) {
      event.pe = where.owner_pe;
      event.offset = where.offset;
    }
  }
  event.block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  event.thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  buffer->events[index] = event;
}

__device__ __forceinline__ void trace(TraceKind kind, const void *address, int pe, std::int64_t value,
                                      std::int32_t aux = 0, std::uint16_t flags = 0) {
  if (tracing()) [[unlikely]] trace_record(kind, address, pe, value, aux, flags);
}

}  // namespace tdist::device::detail
