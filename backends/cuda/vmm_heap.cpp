// backends/cuda/vmm_heap.cpp - the cuda backend's heap: one VMM allocation per PE on its GPU,
// exported as a POSIX file descriptor that the core passes to every peer (runtime/fd_exchange.h),
// and every PE's allocation mapped into ONE reserved range, segment i at base + i * stride, so
// that a kernel's symm_at is arithmetic. Nothing is named; nothing outlives the processes.
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>

#include "aclshmem.h"
#include "backends/cuda/cuda_state.h"
#include "backends/cuda/driver_api.h"

namespace tdist::cuda {
namespace {

using runtime::kHeapBaseAlignment;

constexpr std::size_t kInternalAlignment = std::size_t{64} << 10;

constexpr std::size_t roundUp(std::size_t value, std::size_t to) { return (value + to - 1) / to * to; }

CUmemAllocationProp allocationProperties(int device) {
  CUmemAllocationProp prop;
  std::memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

// The internal area after the user heap: barrier slots (a line per team), this PE's barrier
// epochs, the hang record's claim word. Offsets are from the segment's base.
SegmentLayout layoutFor(std::size_t heap_bytes, std::size_t granularity) {
  using device::kMaxDeviceTeams;
  using device::kSignalLineBytes;
  SegmentLayout l;
  l.heap_bytes = heap_bytes;
  l.internal_start = roundUp(heap_bytes, kInternalAlignment);
  l.internal.barrier_slots = l.internal_start;
  l.internal.barrier_epochs = l.internal.barrier_slots + kMaxDeviceTeams * kSignalLineBytes;
  l.internal.hang_claim = l.internal.barrier_epochs + roundUp(kMaxDeviceTeams * sizeof(std::uint64_t), kSignalLineBytes);
  l.internal.bytes = l.internal.hang_claim + kSignalLineBytes - l.internal_start;
  // Every segment starts at a multiple of 2 MiB (the largest alignment aclshmem_align honours)
  // and of the VMM granularity (cuMemMap's unit).
  l.stride = roundUp(l.internal_start + l.internal.bytes, std::lcm(granularity, kHeapBaseAlignment));
  return l;
}

// TDIST_CUDA_SYNC_SCOPE=system keeps the primitives at system scope even when every PE runs on
// one GPU (to compare the two, or to rule the scope out); unset or "auto" lets init choose.
bool systemScopeForced() {
  const char *value = std::getenv("TDIST_CUDA_SYNC_SCOPE");
  if (value == nullptr || std::strcmp(value, "auto") == 0 || value[0] == '\0') return false;
  if (std::strcmp(value, "system") == 0) return true;
  throw Error(ErrorCode::InvalidParam,
              std::string("init: TDIST_CUDA_SYNC_SCOPE must be \"auto\" or \"system\", not \"") + value + "\"");
}

}  // namespace

int createHeap(runtime::RuntimeState &state, std::size_t bytes) {
  CudaState &cuda = cudaState(state);
  const DriverApi &cu = driver();
  useDevice(cuda);
  const CUmemAllocationProp prop = allocationProperties(cuda.device);
  std::size_t granularity = 0;
  check(cu.memGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
        "cuMemGetAllocationGranularity", ErrorCode::SharedMemory);
  cuda.layout = layoutFor(bytes, granularity);
  CUresult created = cu.memCreate(&cuda.own, cuda.layout.stride, &prop, 0);
  if (created != CUDA_SUCCESS) {
    cuda.own = 0;
    const ErrorCode code = created == CUDA_ERROR_OUT_OF_MEMORY ? ErrorCode::HeapExhausted : ErrorCode::SharedMemory;
    const std::string what = "cuMemCreate of " + std::to_string(cuda.layout.stride) + " bytes on GPU " +
                             std::to_string(cuda.device) + " for the heap";
    check(created, what.c_str(), code);
  }
  int fd = -1;
  check(cu.memExportToShareableHandle(&fd, cuda.own, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
        "cuMemExportToShareableHandle", ErrorCode::SharedMemory);
  return fd;  // the core owns it from here and closes it once every peer has it
}

void mapHeap(runtime::RuntimeState &state, std::span<const int> fds) {
  CudaState &cuda = cudaState(state);
  const DriverApi &cu = driver();
  useDevice(cuda);
  const int n = state.n_pes;
  for (int pe = 0; pe < n; ++pe) {
    if (fds[pe] < 0) {
      throw Error(ErrorCode::NotSupported,
                  "cuda backend: PE " + std::to_string(pe) + " is on node " + std::to_string(state.node_of[pe]) +
                      " and this PE on node " + std::to_string(state.node_of[state.my_pe]) +
                      ": the cuda backend reaches the GPUs of one node (docs/CUDA_NODES.md)");
    }
  }

  // Strides must agree, or the arithmetic of symm_at would differ between PEs (GPUs of
  // different granularity): every PE sees every stride and fails alike. The GPUs' UUIDs come
  // along: when every PE runs on this GPU, the primitives synchronise at GPU scope.
  struct Mine {
    std::uint64_t stride = 0;
    char uuid[16] = {};
  } me;
  me.stride = cuda.layout.stride;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, cuda.device), "cudaGetDeviceProperties");
  static_assert(sizeof prop.uuid.bytes == sizeof me.uuid);
  std::memcpy(me.uuid, prop.uuid.bytes, sizeof me.uuid);
  const bool system_scope = systemScopeForced();
  auto gathered = state.store->allgather({reinterpret_cast<const std::byte *>(&me), sizeof me});
  cuda.pes_on_device = 0;
  for (int pe = 0; pe < n; ++pe) {
    Mine theirs;
    std::memcpy(&theirs, gathered[pe].data(), sizeof theirs);
    if (std::memcmp(theirs.uuid, me.uuid, sizeof me.uuid) == 0) ++cuda.pes_on_device;
    if (theirs.stride != me.stride) {
      throw Error(ErrorCode::SharedMemory, "init: heap segment strides differ between PEs: PE " +
                                               std::to_string(state.my_pe) + " has " + std::to_string(me.stride) +
                                               " bytes, PE " + std::to_string(pe) + " has " +
                                               std::to_string(theirs.stride) + " (GPUs of another VMM granularity)");
    }
  }

  cuda.one_device = cuda.pes_on_device == n && !system_scope;

  const std::size_t stride = cuda.layout.stride;
  cuda.reserved = stride * static_cast<std::size_t>(n);
  check(cu.memAddressReserve(&cuda.base, cuda.reserved, kHeapBaseAlignment, 0, 0),
        "cuMemAddressReserve for every PE's heap", ErrorCode::SharedMemory);
  cuda.handles.assign(n, 0);
  cuda.mapped.assign(n, false);
  CUmemAccessDesc access;
  std::memset(&access, 0, sizeof access);
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = cuda.device;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  for (int pe = 0; pe < n; ++pe) {
    const std::string whose = pe == state.my_pe ? "this PE's heap" : "PE " + std::to_string(pe) + "'s heap";
    if (pe == state.my_pe) {
      cuda.handles[pe] = cuda.own;
    } else {
      void *handle = reinterpret_cast<void *>(static_cast<std::uintptr_t>(fds[pe]));
      check(cu.memImportFromShareableHandle(&cuda.handles[pe], handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
            ("cuMemImportFromShareableHandle of " + whose).c_str(), ErrorCode::SharedMemory);
    }
    const CUdeviceptr at = cuda.base + static_cast<CUdeviceptr>(pe) * stride;
    check(cu.memMap(at, stride, 0, cuda.handles[pe], 0), ("cuMemMap of " + whose).c_str(), ErrorCode::SharedMemory);
    cuda.mapped[pe] = true;
    check(cu.memSetAccess(at, stride, &access, 1), ("cuMemSetAccess of " + whose).c_str(), ErrorCode::SharedMemory);
  }

  // Loads and stores (MTE) and the copy engines (SDMA, when enabled) reach every PE through the
  // same mapping.
  runtime::PeerTable peers;
  peers.reset(n);
  auto *base = reinterpret_cast<std::byte *>(cuda.base);
  const bool sdma = (state.attr.engines & kEngineSdma) != 0;
  for (int pe = 0; pe < n; ++pe) {
    peers.p2p_base[pe] = base + static_cast<std::size_t>(pe) * stride;
    peers.transports[pe] = ACLSHMEM_TRANSPORT_MTE;
    if (sdma) {
      peers.sdma_base[pe] = peers.p2p_base[pe];
      peers.transports[pe] |= ACLSHMEM_TRANSPORT_SDMA;
    }
  }
  std::byte *own = peers.p2p_base[state.my_pe];  // read before peers is moved from
  state.heap.assign(own, cuda.layout.heap_bytes, std::move(peers));
}

void releaseHeap(runtime::RuntimeState &state) {
  CudaState &cuda = cudaState(state);
  state.heap.clear();
  std::string why;
  const DriverApi *cu = tryDriver(&why);
  if (cu == nullptr) return;  // nothing was made without a driver
  const std::size_t stride = cuda.layout.stride;
  for (std::size_t pe = 0; pe < cuda.mapped.size(); ++pe) {
    if (cuda.mapped[pe]) cu->memUnmap(cuda.base + pe * stride, stride);
  }
  for (CUmemGenericAllocationHandle handle : cuda.handles) {
    if (handle != 0 && handle != cuda.own) cu->memRelease(handle);
  }
  if (cuda.own != 0) cu->memRelease(cuda.own);
  if (cuda.base != 0) cu->memAddressFree(cuda.base, cuda.reserved);
  cuda.mapped.clear();
  cuda.handles.clear();
  cuda.own = 0;
  cuda.base = 0;
  cuda.reserved = 0;
}

}  // namespace tdist::cuda
