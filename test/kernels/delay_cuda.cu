// test/kernels/delay_cuda.cu - the device side of holdBack: one thread that sleeps on the GPU
// until the global timer has advanced by the delay.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tdist::kernels::testing {
namespace {

__device__ std::uint64_t globalTimer() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__global__ void spin(std::uint64_t ns) {
  const std::uint64_t start = globalTimer();
  while (globalTimer() - start < ns) __nanosleep(10000);
}

}  // namespace

void spinOnStream(void *stream, std::chrono::microseconds delay) {
  spin<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<std::uint64_t>(delay.count()) * 1000u);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw std::runtime_error(std::string("holdBack: ") + cudaGetErrorString(status));
}

}  // namespace tdist::kernels::testing
