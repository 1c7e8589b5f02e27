// tdist/device/state.cuh - this translation unit's copy of the device state, and how it is filled.
//
// Kernels are compiled without -rdc, so a __constant__ variable cannot be shared between
// translation units: every TU that includes this header holds its own copy (in an anonymous
// namespace) and registers, at static-init time, a host function that uploads the state into it.
// The cuda backend calls every registered publisher once the state is known at init (and at once
// for a TU registered later, e.g. a library loaded after init), and publishes a zeroed state
// (generation 0) at finalize. Kernels therefore take no extra argument and pay one constant-bank
// load per field.
#pragma once

#if !defined(__CUDACC__)
#error "tdist/device/*.cuh are CUDA headers: compile this translation unit with nvcc"
#endif

#include <cuda_runtime_api.h>

#include <cstdio>

#include "tdist/device/ptx.cuh"
#include "tdist/device/state.h"

// The same declaration as tdist/cuda.h's (identical redeclarations are allowed), so that a kernel
// TU needs no host-backend header; exported from libtdist_runtime.
#ifndef TDIST_DEVICE_STATE_REGISTRATION_DECLARED
#define TDIST_DEVICE_STATE_REGISTRATION_DECLARED
#pragma GCC visibility push(default)
namespace tdist::cuda {
int registerDeviceState(void (*publish)(const device::DeviceState &));
}  // namespace tdist::cuda
#pragma GCC visibility pop
#endif

#if defined(TDIST_DEVICE_STATE_EXTERNAL)

// The device library as LLVM bitcode (device/bitcode/, for Triton kernels and the dialect's cuda
// path): one visible state global per loaded module, which the runtime finds by name
// (cuModuleGetGlobal) and fills when it attaches the module, in place of the per-TU copy and its
// registration below. Zero until then, which kernels see as generation 0.
extern "C" {
__constant__ tdist::device::DeviceState tdist_device_state;
}

namespace tdist::device {

__device__ __forceinline__ const DeviceState &state() { return tdist_device_state; }

#else

namespace tdist::device {
namespace {

// Constant-initialised (every member has a constant default), so nvcc accepts it in __constant__
// memory; zero until the backend publishes, which kernels see as generation 0.
__constant__ DeviceState tu_device_state;

__device__ __forceinline__ const DeviceState &state() { return tu_device_state; }

// Runs on the host, with the PE's GPU current: the backend calls it after it selected the device.
void publishDeviceState(const DeviceState &filled) {
  cudaError_t status = cudaMemcpyToSymbol(tu_device_state, &filled, sizeof(DeviceState));
  if (status != cudaSuccess) {
    // Not fatal here: the kernels of this TU would see a stale or zeroed state, so say so loudly.
    std::fprintf(stderr, "tdist: publishing the device state of a kernel module failed: %s\n",
                 cudaGetErrorString(status));
  }
}

[[maybe_unused]] const int tu_device_state_registered = cuda::registerDeviceState(&publishDeviceState);

}  // namespace

#endif  // TDIST_DEVICE_STATE_EXTERNAL

namespace detail {

// The scope at which this job's PEs synchronise: GPU scope when they all run on this GPU.
__device__ __forceinline__ ptx::Scope scope() { return state().one_device != 0 ? ptx::Scope::Gpu : ptx::Scope::Sys; }

// The PE's own segment base: its internal words (barrier epochs, hang claim) live there.
__device__ __forceinline__ std::byte *own_segment() {
  return state().heap_base + static_cast<std::size_t>(state().my_pe) * state().stride;
}

// Where a word of some PE lives, for the hang record: the owner and the symmetric offset within
// its segment, or owner -1 and the raw address when the word is not on the symmetric heap.
struct HeapLocation {
  int owner_pe = -1;
  std::uint64_t offset = 0;
};

__device__ __forceinline__ HeapLocation locate(const void *address) {
  const DeviceState &s = state();
  auto at = reinterpret_cast<std::uintptr_t>(address);
  auto base = reinterpret_cast<std::uintptr_t>(s.heap_base);
  if (s.stride == 0 || at < base || at - base >= static_cast<std::uintptr_t>(s.n_pes) * s.stride) {
    return HeapLocation{-1, static_cast<std::uint64_t>(at)};
  }
  std::uintptr_t from_base = at - base;
  return HeapLocation{static_cast<int>(from_base / s.stride), static_cast<std::uint64_t>(from_base % s.stride)};
}

}  // namespace detail
}  // namespace tdist::device
