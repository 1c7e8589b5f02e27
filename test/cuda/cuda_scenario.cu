// tdist_cuda_scenario NAME: PE programs on the cuda backend that end badly on purpose;
// cuda_scenario_test.cpp runs them under tdist-run and checks how the job ends.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "tdist/cuda.h"
#include "tdist/device/shmem.cuh"
#include "tdist/kernels/gemm.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace {

namespace dev = tdist::device;
namespace sh = tdist::shmem;

void initOnCuda() {
  tdist::InitAttr attr = tdist::attrFromEnvironment();
  attr.backend = "cuda";
  tdist::init(attr);
}

// The device wait traps, and this PE's watchdog, not the program, ends the job: after the
// kernel's error this program only stays alive (bounded) until the watchdog has done so.
// Returning instead says that it did not.
int awaitTheWatchdog(cudaError_t status) {
  std::fprintf(stderr, "scenario: PE %d: the stream ended with '%s'; waiting for the watchdog\n", tdist::myPe(),
               cudaGetErrorString(status));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::fprintf(stderr, "scenario: PE %d: the watchdog did not end the job\n", tdist::myPe());
  return 3;
}

__global__ void waitForOne(std::uint64_t *sig) { dev::wait(sig, 1, std::uint64_t{1}); }

// Spins until the signal reaches 1 (the deadline is set far away by the test).
__global__ void spinForOne(std::uint64_t *sig) { dev::signal_wait_until(sig, sh::Cmp::EQ, std::uint64_t{1}); }

// PE 0 waits in a kernel of `blocks` x `threads` for a signal that nobody sends; the others go on
// to finalize, whose store barrier has a much longer deadline, so PE 0's diagnostic is the one
// that ends the job. With many threads they pass the deadline together, one claims the hang
// record, and the others must not end the kernel before it is written (wait.cuh, expire).
int deviceWaitForever(int blocks, int threads) {
  initOnCuda();
  auto *sig = static_cast<std::uint64_t *>(tdist::allocateZeroed(8, sizeof(std::uint64_t)));
  sh::barrier_all();
  if (tdist::myPe() == 0) {
    waitForOne<<<blocks, threads>>>(sig);
    cudaError_t status = cudaDeviceSynchronize();
    return awaitTheWatchdog(status);
  }
  tdist::finalize();
  return 0;
}

// The same with the host's stream form of the wait.
int streamWaitForever() {
  initOnCuda();
  auto *sig = static_cast<std::uint64_t *>(tdist::allocateZeroed(8, sizeof(std::uint64_t)));
  sh::barrier_all();
  if (tdist::myPe() == 0) {
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    tdist::cuda::signal_wait_until_on_stream(sig, sh::Cmp::EQ, std::uint64_t{1}, stream);
    cudaError_t status = cudaStreamSynchronize(stream);
    return awaitTheWatchdog(status);
  }
  tdist::finalize();
  return 0;
}

// The last PE aborts while the others spin in a kernel for its signal; their waits' deadline is
// far away, so only the launcher noticing the death can end the job quickly.
int crashWhilePeersSpin() {
  initOnCuda();
  auto *sig = static_cast<std::uint64_t *>(tdist::allocateZeroed(8, sizeof(std::uint64_t)));
  sh::barrier_all();
  if (tdist::myPe() == tdist::nPes() - 1) std::abort();
  spinForOne<<<1, 1>>>(sig);
  cudaError_t status = cudaDeviceSynchronize();
  std::fprintf(stderr, "scenario: PE %d: the spinning kernel ended with '%s'\n", tdist::myPe(),
               cudaGetErrorString(status));
  return 4;
}

// Waits for its own signal, then notifies the next PE's: every PE waits for another's notify.
__global__ void waitThenNotify(std::uint64_t *sig, int next) {
  dev::signal_wait_until(sig, sh::Cmp::EQ, std::uint64_t{1});
  dev::signal_op(sig, std::uint64_t{1}, sh::SignalOp::Add, next);
}

// Each PE's kernel waits for the notify of the previous PE's kernel: no kernel can go on, and
// the wait deadline is far away; tdist-run's hang check ends the job.
int deviceDeadlock() {
  initOnCuda();
  auto *sig = static_cast<std::uint64_t *>(tdist::allocateZeroed(8, sizeof(std::uint64_t)));
  sh::barrier_all();
  waitThenNotify<<<1, 1>>>(sig, (tdist::myPe() + 1) % tdist::nPes());
  cudaError_t status = cudaDeviceSynchronize();
  std::fprintf(stderr, "scenario: PE %d: the deadlocked kernel ended with '%s'\n", tdist::myPe(),
               cudaGetErrorString(status));
  return 3;
}

__global__ void deviceBarrier() { dev::barrier_all(); }

// Every PE but the last enters a device barrier that the last never enters.
int deviceBarrierMissingPe() {
  initOnCuda();
  sh::barrier_all();
  if (tdist::myPe() != tdist::nPes() - 1) {
    deviceBarrier<<<1, 1>>>();
    cudaError_t status = cudaDeviceSynchronize();
    return awaitTheWatchdog(status);
  }
  tdist::finalize();
  return 0;
}

// Each PE sends the round's pattern to the next PE and checks what the previous one sent it.
__global__ void ringRound(std::uint32_t *inbox, std::uint64_t *sig, int round, int *errors) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  __shared__ std::uint32_t mine[256];
  mine[threadIdx.x] = static_cast<std::uint32_t>(round * 1000 + me * 256 + threadIdx.x);
  __syncthreads();
  dev::putmem_signal_block(inbox, mine, sizeof mine, sig, std::uint64_t{1}, sh::SignalOp::Add, (me + 1) % n);
  if (threadIdx.x == 0) dev::signal_wait_until(sig, sh::Cmp::EQ, std::uint64_t{1});
  __syncthreads();
  const int from = (me + n - 1) % n;
  const std::uint32_t expected = static_cast<std::uint32_t>(round * 1000 + from * 256 + threadIdx.x);
  if (inbox[threadIdx.x] != expected) atomicAdd(errors, 1);
}

// init -> finalize -> init: every round maps a fresh heap, publishes a fresh device state, and
// the kernels of the round see only that round's heap.
int initFinalizeInit() {
  int *errors = nullptr;
  if (cudaMallocManaged(&errors, sizeof *errors) != cudaSuccess) return 5;
  for (int round = 1; round <= 3; ++round) {
    initOnCuda();
    auto *inbox = static_cast<std::uint32_t *>(tdist::allocateZeroed(256, sizeof(std::uint32_t)));
    auto *sig = static_cast<std::uint64_t *>(tdist::allocateZeroed(1, sizeof(std::uint64_t)));
    sh::barrier_all();
    *errors = 0;
    ringRound<<<1, 256>>>(inbox, sig, round, errors);
    cudaError_t status = cudaDeviceSynchronize();
    if (status != cudaSuccess || *errors != 0) {
      std::fprintf(stderr, "scenario: PE %d: round %d: %s, %d wrong words\n", tdist::myPe(), round,
                   cudaGetErrorString(status), *errors);
      return 6;
    }
    sh::barrier_all();
    tdist::deallocate(sig);
    tdist::deallocate(inbox);
    std::printf("PE %d: round %d ok\n", tdist::myPe(), round);
    tdist::finalize();
  }
  cudaFree(errors);
  return 0;
}

__global__ void spinFor(std::uint64_t ns) {
  std::uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(10000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// Rounds of init, a kernel-library GEMM on a Context, and finalize with work still running on a
// stream of the program's own: finalize waits for it (the stream is idle when finalize returns),
// and the rounds keep no device memory of the library's (its GEMM lanes go with the last Context).
int kernelsAcrossInitFinalize() {
  std::size_t free_after_first = 0;
  for (int round = 1; round <= 4; ++round) {
    initOnCuda();
    {
      tdist::kernels::Context ctx;
      const std::int64_t m = 64, k = 64, n = 64;
      tdist::Tensor a = tdist::createTensor({m, k}, tdist::DType::F32);
      tdist::Tensor b = tdist::createTensor({k, n}, tdist::DType::F32);
      tdist::Tensor c = tdist::createTensor({m * tdist::nPes(), n}, tdist::DType::F32);
      tdist::kernels::AllGatherGemmConfig config;
      config.strategy = tdist::kernels::GemmStrategy::Decomposed;
      tdist::kernels::all_gather_gemm(ctx, a, b, c, nullptr, config);
      ctx.synchronize();
      tdist::freeTensor(c);
      tdist::freeTensor(b);
      tdist::freeTensor(a);
    }
    cudaStream_t mine = nullptr;
    if (cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking) != cudaSuccess) return 5;
    spinFor<<<1, 1, 0, mine>>>(200u * 1000 * 1000);  // 200 ms
    tdist::finalize();
    const cudaError_t idle = cudaStreamQuery(mine);
    if (idle != cudaSuccess) {
      std::fprintf(stderr, "scenario: round %d: finalize returned while the program's stream still ran (%s)\n",
                   round, cudaGetErrorString(idle));
      return 6;
    }
    cudaStreamDestroy(mine);
    std::size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return 5;
    if (round == 1) free_after_first = free_bytes;
    std::printf("round %d ok\n", round);
  }
  std::size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return 5;
  const long long kept = static_cast<long long>(free_after_first) - static_cast<long long>(free_bytes);
  std::printf("device memory kept over rounds 2-4: %lld MiB\n", kept >> 20);
  return kept > (32ll << 20) ? 7 : 0;
}

// The host stores into the heap (GPU memory) as a program written for host memory would: the
// last PE into its own segment, the others into the next PE's. Every PE faults with the message.
int hostStoresHeap() {
  initOnCuda();
  auto *words = static_cast<volatile int *>(tdist::allocateZeroed(16, sizeof(int)));
  sh::barrier_all();
  const int me = tdist::myPe(), n = tdist::nPes();
  auto *target = static_cast<volatile int *>(tdist::peerPointer(const_cast<int *>(words + 4), me == n - 1 ? me : me + 1));
  *target = 1;
  std::fprintf(stderr, "scenario: PE %d: the host's store into the heap did not fault\n", me);
  return 4;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: tdist_cuda_scenario device-wait-forever|device-wait-forever-every-thread|stream-wait-forever|crash-while-peers-spin|"
                 "device-barrier-missing-pe|init-finalize-init|device-deadlock|host-stores-heap|"
                 "kernels-across-init-finalize\n");
    return 2;
  }
  const std::string name = argv[1];
  if (name == "device-wait-forever") return deviceWaitForever(1, 1);
  if (name == "device-wait-forever-every-thread") return deviceWaitForever(8, 256);
  if (name == "stream-wait-forever") return streamWaitForever();
  if (name == "crash-while-peers-spin") return crashWhilePeersSpin();
  if (name == "device-barrier-missing-pe") return deviceBarrierMissingPe();
  if (name == "init-finalize-init") return initFinalizeInit();
  if (name == "device-deadlock") return deviceDeadlock();
  if (name == "host-stores-heap") return hostStoresHeap();
  if (name == "kernels-across-init-finalize") return kernelsAcrossInitFinalize();
  std::fprintf(stderr, "tdist_cuda_scenario: unknown scenario '%s'\n", name.c_str());
  return 2;
}
