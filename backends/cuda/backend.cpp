// backends/cuda/backend.cpp - the cuda backend's table: a PE is a process driving one GPU, its
// heap is a VMM allocation that every PE maps into one range, host transfers go through the
// GPU's copy engines, and host programs are the runtime's fibers (kernels are the user's,
// launched on the PE's streams).
//
// Several PEs may share a GPU (under MPS): TDIST_LOCAL_PE picks the GPU modulo their number.
#include <cstring>
#include <string>

#include "backends/cuda/cuda_state.h"
#include "backends/cuda/driver_api.h"
#include "backends/cuda/watchdog.h"
#include "runtime/backend.h"
#include "runtime/environment.h"
#include "runtime/fiber_scheduler.h"

namespace tdist::cuda {
namespace {

bool canRun(std::string *why) {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error == cudaErrorInsufficientDriver || error == cudaErrorNoDevice || count == 0) {
    *why = error == cudaErrorInsufficientDriver ? "no usable NVIDIA driver (" + cudaMessage("cudaGetDeviceCount", error) + ")"
                                                : "no CUDA device";
    cudaGetLastError();  // the failed query is not an error of the job
    return false;
  }
  if (error != cudaSuccess) {
    *why = cudaMessage("cudaGetDeviceCount", error);
    cudaGetLastError();
    return false;
  }
  const DriverApi *cu = tryDriver(why);
  if (cu == nullptr) return false;
  // The heap is VMM memory shared through POSIX file descriptors: every GPU a PE may drive
  // needs both.
  for (int device = 0; device < count; ++device) {
    int vmm = 0;
    int fd_handles = 0;
    CUresult r = cu->deviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device);
    if (r == CUDA_SUCCESS) {
      r = cu->deviceGetAttribute(&fd_handles, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, device);
    }
    if (r != CUDA_SUCCESS) {
      *why = driverMessage(("cuDeviceGetAttribute of GPU " + std::to_string(device)).c_str(), r);
      return false;
    }
    if (!vmm || !fd_handles) {
      *why = "GPU " + std::to_string(device) + " does not support " +
             (!vmm ? "virtual memory management (cuMemCreate)" : "POSIX file descriptor handles for VMM memory");
      return false;
    }
  }
  return true;
}

void attach(runtime::RuntimeState &state) {
  auto *cuda = new CudaState;
  state.backend_state = cuda;
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount", ErrorCode::NotSupported);
  if (count < 1) throw Error(ErrorCode::NotSupported, "init: the cuda backend found no CUDA device");
  const long local_pe = runtime::tuningKnob("TDIST_LOCAL_PE", state.my_pe);
  cuda->device = static_cast<int>(local_pe % count);
  check(cudaSetDevice(cuda->device), ("cudaSetDevice(" + std::to_string(cuda->device) + ")").c_str());
  // High priority: the engine's copies and signals are what peers wait for.
  int least = 0;
  int greatest = 0;
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  check(cudaStreamCreateWithPriority(&cuda->stream, cudaStreamNonBlocking, greatest), "cudaStreamCreateWithPriority");
}

// Undoes whatever attach and init got to, in reverse order; never throws.
void detach(runtime::RuntimeState &state) {
  if (state.backend_state == nullptr) return;
  CudaState &cuda = cudaState(state);
  if (cuda.device >= 0) cudaSetDevice(cuda.device);
  // No kernel or copy of this process may outlive the mappings: the PE's stream, and every other
  // stream a program or a kernel-library Context put work on (the whole device, for this process).
  if (cuda.stream != nullptr) cudaDeviceSynchronize();
  stopDeviceState(state);
  releaseHeap(state);
  if (cuda.stream != nullptr) cudaStreamDestroy(cuda.stream);
  cudaGetLastError();  // what failed while releasing is gone with the state
  delete &cuda;
  state.backend_state = nullptr;
}

void startEngines(runtime::RuntimeState &state) { startDeviceState(state); }

// The heap is GPU memory, which the host does not load: host calls go through submit and word_op.
void *noHostView(runtime::RuntimeState &, const void *, std::size_t) { return nullptr; }

// Every transfer goes through the GPU's copy engines (engine.cpp), which the trace names Backend.
trace_format::Engine submitEngine(const runtime::RuntimeState &, bool) { return trace_format::Engine::Backend; }

}  // namespace
}  // namespace tdist::cuda

namespace tdist::runtime {

extern const Backend kCudaBackend = {
    .name = "cuda",
    .can_run = cuda::canRun,
    .engines = kEngineMte | kEngineSdma,
    .attach = cuda::attach,
    .detach = cuda::detach,
    .heap_create = cuda::createHeap,
    .heap_map = cuda::mapHeap,
    .engines_start = cuda::startEngines,
    .submit = cuda::submit,
    .submit_engine = cuda::submitEngine,
    .quiet = cuda::quiet,
    .launch = launchPrograms,
    .in_program = inProgramFiber,
    .wait_yield = programWaitYield,
    .wait_done = programWaitDone,
    .host_view = cuda::noHostView,
    .word_op = cuda::wordOp,
    .zero = cuda::zero,
    .shares_static_data = false,
    .team_created = cuda::teamCreated,
    .attach_module = cuda::attach_module,
};

}  // namespace tdist::runtime
