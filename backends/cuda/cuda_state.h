// backends/cuda/cuda_state.h - what the cuda backend keeps per PE: its GPU and stream, the VMM
// heap (every PE's segment mapped into one range), the device state's host side, and the
// watchdog that turns a device wait's trap into the wait diagnostic.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "runtime/runtime_state.h"
#include "tdist/device/state.h"

namespace tdist::cuda {

class Watchdog;

// One PE's segment: [0, heap_bytes) user heap, then the internal area (InternalLayout) from
// internal_start; the segment is `stride` bytes, and segment i sits at base + i * stride.
struct SegmentLayout {
  std::size_t heap_bytes = 0;
  std::size_t internal_start = 0;
  device::InternalLayout internal{};
  std::size_t stride = 0;
};

struct CudaState {
  int device = -1;
  cudaStream_t stream = nullptr;  // non-blocking, high priority: host-initiated transfers

  // Heap (vmm_heap.cpp).
  SegmentLayout layout;
  CUmemGenericAllocationHandle own = 0;        // this PE's allocation
  std::vector<CUmemGenericAllocationHandle> handles;  // imported peers' (own at my_pe), 0 = none
  std::vector<bool> mapped;                    // segment i is mapped at base + i * stride
  CUdeviceptr base = 0;                        // the reserved range, n_pes * stride bytes
  std::size_t reserved = 0;
  bool one_device = false;                     // every PE of the job runs on this GPU
  int pes_on_device = 1;                       // the PEs of the job on this GPU, this one counted

  // Device state (device_state.cpp): host-mapped pinned words and the device team table.
  device::HangRecord *hang = nullptr;          // host view; the device view is device_hang
  device::HangRecord *device_hang = nullptr;
  device::WaitNote *wait_note = nullptr;        // host view; the device view is device_wait_note
  device::WaitNote *device_wait_note = nullptr;
  std::int32_t *abort_flag = nullptr;
  const std::int32_t *device_abort_flag = nullptr;
  // The device trace (tdist/device/trace.cuh) while the job is traced: the buffer in device
  // memory, and what moves %globaltimer onto the trace's clock (host ns - GPU ns).
  device::TraceBuffer *trace = nullptr;
  std::int64_t trace_offset_ns = 0;
  // Pinned words for word_op results, one per call in flight. A call may wait (and its program
  // yield to others on the same thread) while holding one, so they are handed out, not locked.
  std::mutex result_mutex;
  std::vector<std::uint64_t *> free_results;
  std::vector<std::uint64_t *> result_slabs;
  device::TeamState *teams = nullptr;          // device memory, kMaxDeviceTeams entries
  cudaEvent_t order_event = nullptr;           // quiet_on_stream: the PE stream's progress
  std::mutex order_mutex;

  // Engine accounting for the wait diagnostic (engine.cpp).
  std::atomic<std::uint64_t> submitted{0};
  std::atomic<std::uint64_t> completed{0};

  std::unique_ptr<Watchdog> watchdog;
};

inline CudaState &cudaState(runtime::RuntimeState &state) {
  return *static_cast<CudaState *>(state.backend_state);
}

// Makes the PE's GPU current on the calling thread (the CUDA runtime's current device is per
// thread, and programs of a launch run on worker threads).
void useDevice(const CudaState &cuda);

// Heap (vmm_heap.cpp).
int createHeap(runtime::RuntimeState &state, std::size_t bytes);
void mapHeap(runtime::RuntimeState &state, std::span<const int> fds);
void releaseHeap(runtime::RuntimeState &state);  // never throws

// Engines (engine.cpp).
void submit(runtime::RuntimeState &state, const runtime::Transfer &transfer, bool blocking, const char *call);
void quiet(runtime::RuntimeState &state, const char *call);
std::uint64_t wordOp(runtime::RuntimeState &state, runtime::WordOp op, void *address, unsigned bytes,
                     std::uint64_t operand, std::uint64_t compare, const char *call);
void zero(runtime::RuntimeState &state, void *address, std::size_t bytes);
// Waits, with the PE's wait deadline, until everything enqueued on the PE's stream is done.
void waitForStream(CudaState &cuda, const char *call);
// A heap address of any PE in this process's mapping, as (the owner's PE, the same word in this
// PE's own segment): the form the device library's calls take.
struct SymmetricWord {
  void *local;
  int pe;
};
SymmetricWord symmetricWord(const runtime::RuntimeState &state, void *address, const char *call);

// Device state (device_state.cpp).
void startDeviceState(runtime::RuntimeState &state);
void stopDeviceState(runtime::RuntimeState &state);  // never throws
void teamCreated(runtime::RuntimeState &state, int team);

// Stream spans (stream_trace.cpp): started with the device trace when the job is traced; the
// stop resolves every span (after synchronizing the device) and writes the PE's stream file.
void startStreamTrace(CudaState &cuda);
void stopStreamTrace();  // never throws

}  // namespace tdist::cuda
