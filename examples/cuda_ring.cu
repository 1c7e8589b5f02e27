// tdist-cuda-ring: the tile-centric primitives from a CUDA kernel. Run it with
//   tdist-run --backend cuda -n 4 -- tdist-cuda-ring [iterations]
// (several PEs may share one GPU: tdist-run then starts a private MPS daemon for the job).
//
// Every PE's kernel pushes a tile to the next PE with put-with-signal (data, then the signal, so
// the receiver never sees the signal before the data) and waits for the tile of the previous PE.
// The signal is a monotone counter: iteration i waits for >= i, so nothing is ever reset.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "tdist/cuda.h"
#include "tdist/device/shmem.cuh"
#include "tdist/runtime.h"

namespace {

namespace dev = tdist::device;
using tdist::shmem::Cmp;
using tdist::shmem::SignalOp;

constexpr int kTileWords = 4096;  // 16 KiB per tile
constexpr int kThreads = 256;

__device__ std::uint32_t pattern(int pe, int iteration, int word) {
  return static_cast<std::uint32_t>(pe) * 0x9E3779B1u + static_cast<std::uint32_t>(iteration) * 131u + word;
}

__global__ void ring(std::uint32_t *outbox, std::uint32_t *inbox, std::uint64_t *arrived, int iterations,
                     unsigned *wrong) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const int next = (me + 1) % n;
  const int previous = (me + n - 1) % n;
  for (int i = 1; i <= iterations; ++i) {
    for (int w = threadIdx.x; w < kTileWords; w += blockDim.x) outbox[w] = pattern(me, i, w);
    __syncthreads();
    // The whole block copies the tile into the next PE's inbox; thread 0 then signals it there.
    dev::putmem_signal_block(inbox, outbox, kTileWords * sizeof(std::uint32_t), arrived, std::uint64_t{1},
                             SignalOp::Add, next);
    if (threadIdx.x == 0) dev::signal_wait_until(arrived, Cmp::GE, static_cast<std::uint64_t>(i));
    __syncthreads();
    for (int w = threadIdx.x; w < kTileWords; w += blockDim.x) {
      if (inbox[w] != pattern(previous, i, w)) atomicAdd(wrong, 1u);
    }
    // The previous PE may overwrite the inbox only once every PE has read its own.
    __syncthreads();
    if (threadIdx.x == 0) dev::barrier_all();
    __syncthreads();
  }
}

}  // namespace

int main(int argc, char **argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 1000;
  if (iterations < 1) {
    std::fprintf(stderr, "tdist-cuda-ring: iterations must be positive\n");
    return 2;
  }
  try {
    tdist::InitAttr attr = tdist::attrFromEnvironment();
    if (attr.backend.empty()) attr.backend = "cuda";
    tdist::init(attr);
    auto *outbox = static_cast<std::uint32_t *>(tdist::allocate(kTileWords * sizeof(std::uint32_t)));
    auto *inbox = static_cast<std::uint32_t *>(tdist::allocate(kTileWords * sizeof(std::uint32_t)));
    auto *arrived = static_cast<std::uint64_t *>(tdist::allocateZeroed(1, sizeof(std::uint64_t)));
    unsigned *wrong = nullptr;
    if (cudaMalloc(&wrong, sizeof *wrong) != cudaSuccess || cudaMemset(wrong, 0, sizeof *wrong) != cudaSuccess) {
      std::fprintf(stderr, "tdist-cuda-ring: cudaMalloc failed\n");
      return 1;
    }
    tdist::shmem::barrier_all();
    const auto start = std::chrono::steady_clock::now();
    ring<<<1, kThreads, 0, tdist::cuda::stream()>>>(outbox, inbox, arrived, iterations, wrong);
    cudaError_t status = cudaStreamSynchronize(tdist::cuda::stream());
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    unsigned host_wrong = 0;
    if (status == cudaSuccess) status = cudaMemcpy(&host_wrong, wrong, sizeof host_wrong, cudaMemcpyDeviceToHost);
    if (status != cudaSuccess) {
      std::fprintf(stderr, "tdist-cuda-ring: PE %d: %s\n", tdist::myPe(), cudaGetErrorString(status));
      return 1;
    }
    std::printf("PE %d of %d: %d iterations of a %zu-byte tile ring, %.2f us each, %s\n", tdist::myPe(),
                tdist::nPes(), iterations, kTileWords * sizeof(std::uint32_t), us / iterations,
                host_wrong == 0 ? "every tile correct" : "WRONG DATA");
    tdist::shmem::barrier_all();
    cudaFree(wrong);
    tdist::deallocate(arrived);
    tdist::deallocate(inbox);
    tdist::deallocate(outbox);
    tdist::finalize();
    return host_wrong == 0 ? 0 : 1;
  } catch (const tdist::Error &error) {
    std::fprintf(stderr, "tdist-cuda-ring: %s\n", error.what());
    return 1;
  }
}
