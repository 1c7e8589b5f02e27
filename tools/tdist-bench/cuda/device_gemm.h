// device_gemm.h - one cuBLASLt GEMM of a whole shape on the GPU, for the kernel cases' "GEMM
// alone" and "sequential" rows on cuda (what the decomposed overlap of kernels/cuda/ag_gemm.cu and
// gemm_rs.cu is measured against). Host-only interface: kernel_cases.cpp includes it in a build with the cuda
// backend (TDIST_BENCH_HAVE_CUDA).
#pragma once

#include <cstddef>
#include <memory>

#include "tdist/runtime.h"

namespace tdist::bench {

// Row-major C [m, n] = A [m, k] x B [k, n] of dtype f32 or bf16 (f32 accumulation, C in the same
// dtype), enqueued on `stream` (a cudaStream_t) with the algorithm cuBLASLt's heuristic puts first.
class DeviceGemm {
 public:
  DeviceGemm(long m, long n, long k, DType dtype, void *stream);
  ~DeviceGemm();
  DeviceGemm(const DeviceGemm &) = delete;
  DeviceGemm &operator=(const DeviceGemm &) = delete;
  void run(const void *a, const void *b, void *c);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Private device memory (not on the symmetric heap), for outputs nobody else reads.
class DeviceMemory {
 public:
  explicit DeviceMemory(std::size_t bytes);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
  void *get() const { return data_; }

 private:
  void *data_ = nullptr;
};

}  // namespace tdist::bench
