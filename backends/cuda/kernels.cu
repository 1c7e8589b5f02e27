// backends/cuda/kernels.cu - the host backend's one-thread kernels (backends/cuda/kernels.h),
// written against the device library, so that what the host asks of a word is what a kernel's
// call does: the same PTX, the same order, the same deadline and hang record.
#include "backends/cuda/kernels.h"

#include "tdist/device/shmem.cuh"

namespace tdist::cuda {
namespace {

template <class T>
__global__ void wordOpKernel(runtime::WordOp op, T *word, int pe, T operand, T compare, std::uint64_t *result) {
  namespace dev = tdist::device;
  T previous = 0;
  switch (op) {
    case runtime::WordOp::Fetch: previous = dev::atomic_fetch(word, pe); break;
    case runtime::WordOp::Set:
    case runtime::WordOp::PutSet: dev::atomic_set(word, operand, pe); break;
    case runtime::WordOp::Swap: previous = dev::atomic_swap(word, operand, pe); break;
    case runtime::WordOp::CompareSwap: previous = dev::atomic_compare_swap(word, compare, operand, pe); break;
    // Add returns the previous value as well (runtime/backend.h): one fetching add serves both.
    case runtime::WordOp::Add:
    case runtime::WordOp::PutAdd:
    case runtime::WordOp::FetchAdd: previous = dev::atomic_fetch_add(word, operand, pe); break;
  }
  *result = static_cast<std::uint64_t>(previous);
}

template <class S>
__global__ void signalAddKernel(S *sig, S value, int pe) {
  tdist::device::signal_op(sig, value, shmem::SignalOp::Add, pe);
}

template <class S>
__global__ void signalWaitKernel(S *sig, shmem::Cmp cmp, S value) {
  tdist::device::signal_wait_until(sig, cmp, value);
}

__global__ void barrierKernel(shmem::Team team) {
  if (team == shmem::kTeamWorld) {
    tdist::device::barrier_all();
  } else {
    tdist::device::barrier(team);
  }
}

}  // namespace

template <class T>
cudaError_t launchWordOp(runtime::WordOp op, T *word, int pe, T operand, T compare, std::uint64_t *result,
                         cudaStream_t stream) {
  wordOpKernel<T><<<1, 1, 0, stream>>>(op, word, pe, operand, compare, result);
  return cudaGetLastError();
}

template <class S>
cudaError_t launchSignalAdd(S *sig, S value, int pe, cudaStream_t stream) {
  signalAddKernel<S><<<1, 1, 0, stream>>>(sig, value, pe);
  return cudaGetLastError();
}

template <class S>
cudaError_t launchSignalWait(S *sig, shmem::Cmp cmp, S value, cudaStream_t stream) {
  signalWaitKernel<S><<<1, 1, 0, stream>>>(sig, cmp, value);
  return cudaGetLastError();
}

cudaError_t launchBarrier(shmem::Team team, cudaStream_t stream) {
  barrierKernel<<<1, 1, 0, stream>>>(team);
  return cudaGetLastError();
}

__global__ void readTimerKernel(std::uint64_t *out) { *out = device::ptx::global_timer(); }

cudaError_t launchReadTimer(std::uint64_t *out, cudaStream_t stream) {
  readTimerKernel<<<1, 1, 0, stream>>>(out);
  return cudaGetLastError();
}

template cudaError_t launchWordOp<std::uint32_t>(runtime::WordOp, std::uint32_t *, int, std::uint32_t,
                                                 std::uint32_t, std::uint64_t *, cudaStream_t);
template cudaError_t launchWordOp<std::uint64_t>(runtime::WordOp, std::uint64_t *, int, std::uint64_t,
                                                 std::uint64_t, std::uint64_t *, cudaStream_t);
template cudaError_t launchSignalAdd<std::int32_t>(std::int32_t *, std::int32_t, int, cudaStream_t);
template cudaError_t launchSignalAdd<std::int64_t>(std::int64_t *, std::int64_t, int, cudaStream_t);
template cudaError_t launchSignalAdd<std::uint64_t>(std::uint64_t *, std::uint64_t, int, cudaStream_t);
template cudaError_t launchSignalWait<std::int32_t>(std::int32_t *, shmem::Cmp, std::int32_t, cudaStream_t);
template cudaError_t launchSignalWait<std::int64_t>(std::int64_t *, shmem::Cmp, std::int64_t, cudaStream_t);
template cudaError_t launchSignalWait<std::uint64_t>(std::uint64_t *, shmem::Cmp, std::uint64_t, cudaStream_t);

}  // namespace tdist::cuda
