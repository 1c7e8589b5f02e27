// gpu.cuh - what the cuda cases of tdist-bench share: the CUDA error checks, the GPU's clock, and
// owners of the streams, events and device buffers the cases use.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "tdist/cuda.h"

namespace tdist::bench::gpu {

// tdist/cuda.h's checks: every CUDA status, and each launch.
using tdist::cuda::check;
using tdist::cuda::check_launch;

// Nanoseconds of the GPU's global timer: one clock for every SM, unlike clock64().
__device__ __forceinline__ std::uint64_t globalTimer() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// Copies host bytes to the device on `stream` and waits for them to land. cudaMemcpy from pageable
// memory may return before its DMA has reached the device, and a kernel on a non-blocking stream is
// not ordered after it: a peer could read the old bytes.
inline void copyToDevice(void *device, const void *host, std::size_t bytes, cudaStream_t stream, const char *what) {
  check(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream), what);
  check(cudaStreamSynchronize(stream), what);
}

// The cases run on the GPU the backend chose for this PE (TDIST_LOCAL_PE % devices).
inline int useBackendDevice() {
  const int device = tdist::cuda::device();
  check(cudaSetDevice(device), "cudaSetDevice");
  return device;
}

inline int multiprocessorCount(int device) {
  int count = 0;
  check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device),
        "cudaDeviceGetAttribute(multiprocessors)");
  return count;
}

// A stream of the case's own, so that what it times is only its own work; non-blocking, so that
// nothing on the legacy default stream serializes with it.
class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t stream_ = nullptr;
};

// Two events around work on one stream; the GPU's own time between them.
class EventTimer {
 public:
  EventTimer() {
    check(cudaEventCreate(&begin_), "cudaEventCreate");
    check(cudaEventCreate(&end_), "cudaEventCreate");
  }
  ~EventTimer() {
    cudaEventDestroy(begin_);
    cudaEventDestroy(end_);
  }
  EventTimer(const EventTimer &) = delete;
  EventTimer &operator=(const EventTimer &) = delete;
  void start(cudaStream_t stream) { check(cudaEventRecord(begin_, stream), "cudaEventRecord"); }
  void stop(cudaStream_t stream) { check(cudaEventRecord(end_, stream), "cudaEventRecord"); }
  double seconds() const {
    check(cudaEventSynchronize(end_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin_, end_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

 private:
  cudaEvent_t begin_ = nullptr, end_ = nullptr;
};

// Private device memory (cudaMalloc): not on the symmetric heap.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) {
    check(cudaMalloc(reinterpret_cast<void **>(&data_), count * sizeof(T)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  T *get() const { return data_; }
  T read(std::size_t index = 0) const {
    T value{};
    check(cudaMemcpy(&value, data_ + index, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return value;
  }

 private:
  T *data_ = nullptr;
};

}  // namespace tdist::bench::gpu
