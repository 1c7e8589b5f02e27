// backends/cuda/kernels.h - the few kernels of the host backend, launched from plain C++.
//
// Each is one thread that makes one device-library call (backends/cuda/kernels.cu), so the
// host's word operations, ADD signals, stream waits and stream barriers have exactly the memory
// order and the deadline of the device API: one implementation of each primitive per backend.
// Words are named as the device library names them: a symmetric address of this PE and a PE.
// Each returns the launch's error (cudaGetLastError); none waits.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "runtime/backend.h"
#include "tdist/shmem.h"

namespace tdist::cuda {

// Applies op to pe's copy of the 4- or 8-byte word (T = uint32_t or uint64_t) and stores its
// previous value at result (device-visible memory).
template <class T>
cudaError_t launchWordOp(runtime::WordOp op, T *word, int pe, T operand, T compare, std::uint64_t *result,
                         cudaStream_t stream);

// signal_op(sig, value, ADD, pe); S = int32_t, int64_t or uint64_t.
template <class S>
cudaError_t launchSignalAdd(S *sig, S value, int pe, cudaStream_t stream);

// signal_wait_until(sig, cmp, value) on this PE's sig: the device wait, with its deadline.
template <class S>
cudaError_t launchSignalWait(S *sig, shmem::Cmp cmp, S value, cudaStream_t stream);

// barrier_all() when team is the world team, else barrier(team).
cudaError_t launchBarrier(shmem::Team team, cudaStream_t stream);

// *out = the GPU's %globaltimer (device-visible memory): the device trace's clock.
cudaError_t launchReadTimer(std::uint64_t *out, cudaStream_t stream);

}  // namespace tdist::cuda
