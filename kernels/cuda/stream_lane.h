// kernels/cuda/stream_lane.h - what the GEMM bodies' calls on one (device, call stream) share:
// a side stream for the transfers, a second compute stream, the events between them, and the
// cuBLASLt workspaces (one per compute stream, so no two streams ever share one).
//
// A Context cannot hold them (a call may pass a stream of its own), so they live in a per-process
// cache, created at the first call on a stream, which must not be captured in a graph (streams,
// events and cudaMalloc). They are destroyed when the last Context is (releaseLanes, through the
// backend's table), so that init/finalize cycles do not pile them up.
#pragma once

#include <cuda_runtime_api.h>

#include "tdist/kernels/context.h"

namespace tdist::kernels::cuda {

struct Lane {
  cudaStream_t side = nullptr;
  cudaStream_t alt = nullptr;       // the second compute stream: chunk GEMMs alternate with main
  cudaEvent_t alt_done = nullptr;   // alt -> main: its GEMMs are done
  cudaEvent_t entry = nullptr;      // main -> side: the call's start
  cudaEvent_t side_done = nullptr;  // side -> main: the call's end
  cudaEvent_t gemm_done[2] = {};    // main -> side: a send buffer is filled
  cudaEvent_t push_done[2] = {};    // side -> main: a send buffer may be refilled
  void *workspace = nullptr;        // cuBLASLt's workspace of the GEMMs on main
  void *alt_workspace = nullptr;    // and of those on alt
  unsigned *push_counters = nullptr;  // the fused AllGather + GEMM's SM producers: blocks done per (peer, chunk)
};

// What one call of a GEMM body runs on: the call's stream and its lane.
struct Streams {
  Lane *lane = nullptr;
  cudaStream_t main = nullptr;
  void *workspaceOf(cudaStream_t s) const { return s == lane->alt ? lane->alt_workspace : lane->workspace; }
};

// The lane of the context's stream on this PE's GPU (made at its first use).
Streams streamsFor(Context &ctx);

// Makes the PE's GPU current for the call and restores the caller's afterwards.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard &) = delete;
  DeviceGuard &operator=(const DeviceGuard &) = delete;

 private:
  int previous_ = 0;
};

}  // namespace tdist::kernels::cuda
