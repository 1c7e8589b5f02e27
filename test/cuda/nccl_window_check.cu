// test/cuda/nccl_window_check.cu - compiled, never run: how the cuda backend will cross nodes
// through NCCL's device API (docs/CUDA_NODES.md), checked against NCCL's own headers (PyPI's
// nvidia-nccl-cu13, which scripts/setup.sh unpacks into .deps/nccl) in one translation unit with
// tdist's device library. The test nccl_device_api_compiles compiles it to an object; nothing
// links libnccl.
#include <nccl.h>
#include <nccl_device.h>

#include <cstddef>
#include <cstdint>

#include "tdist/cuda.h"
#include "tdist/device/dl.cuh"
#include "tdist/runtime.h"

namespace tdist::nodes {

// Host, once per job after init: this PE's symmetric heap (a VMM allocation with a POSIX-fd
// handle, at the granularity NCCL recommends) as a collective window, and a device communicator
// with GIN contexts and signals. Collective over comm, as the heap's allocation is.
ncclResult_t registerHeap(ncclComm_t comm, ncclWindow_t *window, ncclDevComm *device) {
  ncclResult_t result = ncclCommWindowRegister(comm, tdist::heapBase(), tdist::heapSize(), window,
                                               NCCL_WIN_COLL_SYMMETRIC);
  if (result != ncclSuccess) return result;
  ncclDevCommRequirements_t requirements = NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER;
  requirements.ginContextCount = 1;
  requirements.ginSignalCount = 64;
  return ncclDevCommCreate(comm, &requirements, device);
}

// Device: a put with a signal, LSA (load/store) inside a node, GIN across nodes; the offsets are
// symmetric offsets of the heap, what tdist's addresses become in a window.
__global__ void putSignal(ncclDevComm device, ncclWindow_t window, std::size_t data, std::size_t bytes,
                          std::size_t signal, int peer, bool same_node) {
  if (same_node) {
    // The peer's copy is mapped: tdist's own copy and release store, as today.
    auto *target = static_cast<std::byte *>(ncclGetPeerPointer(window, data, peer));
    auto *source = static_cast<const std::byte *>(ncclGetPeerPointer(window, data, device.rank));
    for (std::size_t i = threadIdx.x; i < bytes; i += blockDim.x) target[i] = source[i];
    __syncthreads();
    if (threadIdx.x == 0) {
      auto *flag = static_cast<std::uint64_t *>(ncclGetPeerPointer(window, signal, peer));
      tdist::device::ptx::red_release_add(flag, std::uint64_t{1}, tdist::device::ptx::Scope::Sys);
    }
  } else if (threadIdx.x == 0) {
    // Across nodes: one GIN put whose strong ADD signal lands after every earlier put to the peer
    // (GIN has no SET: tdist's SET signals cross nodes as monotone counters).
    ncclGin gin(device, 0);
    gin.put(ncclTeamWorld(device), peer, window, data, window, data, bytes,
            ncclGin_StrongVASignalAdd{window, signal, 1});
  }
}

}  // namespace tdist::nodes
