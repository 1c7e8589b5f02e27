// kernels/cuda/stream_lane.cpp - the per-process cache of stream lanes (stream_lane.h).
#include "kernels/cuda/stream_lane.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "kernels/cuda/bodies.h"
#include "kernels/cuda/chunk_bounds.h"
#include "kernels/cuda/cublaslt_plan.h"
#include "tdist/cuda.h"
#include "tdist/error.h"
#include "tdist/runtime.h"

namespace tdist::kernels::cuda {
namespace {

using tdist::cuda::check;

std::mutex lanes_mutex;
// device -> call stream -> lane; kept for the process (emptied by releaseLanes).
std::map<int, std::map<cudaStream_t, std::unique_ptr<Lane>>> &lanes() {
  static auto *lanes = new std::map<int, std::map<cudaStream_t, std::unique_ptr<Lane>>>();
  return *lanes;
}

std::unique_ptr<Lane> makeLane() {
  auto fresh = std::make_unique<Lane>();
  check(cudaStreamCreateWithFlags(&fresh->side, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  check(cudaStreamCreateWithFlags(&fresh->alt, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  for (cudaEvent_t *event : {&fresh->entry, &fresh->side_done, &fresh->gemm_done[0], &fresh->gemm_done[1],
                             &fresh->push_done[0], &fresh->push_done[1], &fresh->alt_done})
    check(cudaEventCreateWithFlags(event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  check(cudaMalloc(&fresh->workspace, lt::kWorkspaceBytes), "cudaMalloc(cuBLASLt workspace)");
  check(cudaMalloc(&fresh->alt_workspace, lt::kWorkspaceBytes), "cudaMalloc(cuBLASLt workspace)");
  const std::size_t counters = sizeof(unsigned) * kMaxChunksPerPe * static_cast<std::size_t>(nPes());  // chunks x peers
  check(cudaMalloc(reinterpret_cast<void **>(&fresh->push_counters), counters), "cudaMalloc(push counters)");
  check(cudaMemset(fresh->push_counters, 0, counters), "cudaMemset(push counters)");
  return fresh;
}

}  // namespace

Streams streamsFor(Context &ctx) {
  Streams streams;
  streams.main = static_cast<cudaStream_t>(ctx.stream());
  std::lock_guard<std::mutex> hold(lanes_mutex);
  std::unique_ptr<Lane> &slot = lanes()[tdist::cuda::device()][streams.main];
  if (!slot) slot = makeLane();
  streams.lane = slot.get();
  return streams;
}

// Destroys every lane (streams, events, workspaces): when no Context is left, nothing of the
// library runs on them (every Context synchronised its stream, which joins its lanes' streams).
void releaseLanes() {
  std::lock_guard<std::mutex> hold(lanes_mutex);
  for (auto &[device, of_device] : lanes()) {
    int previous = 0;
    if (cudaGetDevice(&previous) != cudaSuccess || cudaSetDevice(device) != cudaSuccess) continue;
    for (auto &[stream, lane] : of_device) {
      for (cudaStream_t s : {lane->side, lane->alt}) {
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
      }
      for (cudaEvent_t event : {lane->entry, lane->side_done, lane->gemm_done[0], lane->gemm_done[1],
                                lane->push_done[0], lane->push_done[1], lane->alt_done})
        cudaEventDestroy(event);
      for (void *memory : {lane->workspace, lane->alt_workspace, static_cast<void *>(lane->push_counters)})
        cudaFree(memory);
    }
    of_device.clear();
    cudaSetDevice(previous);
  }
  cudaGetLastError();  // a failure here leaves nothing to undo
}

DeviceGuard::DeviceGuard(int device) {
  check(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != device) check(cudaSetDevice(device), "cudaSetDevice");
}

DeviceGuard::~DeviceGuard() {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current != previous_) cudaSetDevice(previous_);
}

}  // namespace tdist::kernels::cuda
