// tools/tdist-jit/gpu_kernel.cpp - load, attach and launch an IR kernel's cubin.
//
// The driver's entry points come through the CUDA runtime (cudaGetDriverEntryPointByVersion),
// as the cuda backend takes them: the runner links the shared runtime, never libcuda.
#include "tools/tdist-jit/gpu_kernel.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>

#include "tdist/cuda.h"
#include "tdist/error.h"

namespace tdist::jit {

namespace {

// The ABI of CUDA 12.0, the oldest the cuda backend is built for (backends/cuda/driver_api.cpp).
constexpr unsigned kDriverAbi = 12000;

struct Driver {
  CUresult (*moduleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *) = nullptr;
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void **, void **) = nullptr;
  CUresult (*getErrorString)(CUresult, const char **) = nullptr;
};

template <class Fn>
void lookUp(const char *symbol, Fn *fn) {
  void *address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  cuda::check(cudaGetDriverEntryPointByVersion(symbol, &address, kDriverAbi, cudaEnableDefault, &found),
              "cudaGetDriverEntryPointByVersion", ErrorCode::NotSupported);
  if (found != cudaDriverEntryPointSuccess || address == nullptr)
    throw Error(ErrorCode::NotSupported, std::string("the CUDA driver has no ") + symbol);
  *fn = reinterpret_cast<Fn>(address);
}

const Driver &driver() {
  static const Driver loaded = [] {
    Driver d;
    lookUp("cuModuleLoadData", &d.moduleLoadData);
    lookUp("cuModuleGetFunction", &d.moduleGetFunction);
    lookUp("cuLaunchKernel", &d.launchKernel);
    lookUp("cuGetErrorString", &d.getErrorString);
    return d;
  }();
  return loaded;
}

void checkDriver(CUresult result, const std::string &what) {
  if (result == CUDA_SUCCESS) return;
  const char *message = nullptr;
  if (driver().getErrorString(result, &message) != CUDA_SUCCESS || message == nullptr) message = "unknown error";
  throw Error(ErrorCode::Internal, what + ": " + message + " (CUresult " + std::to_string(result) + ")");
}

}  // namespace

HeapAccess deviceHeap() {
  // Copies from pageable memory may return before the GPU has the bytes: each copy ends with the
  // device synchronized, so that a barrier after it finds the data in place on every PE.
  return HeapAccess{
      .in_place = false,
      .write =
          [](void *heap, const void *host, std::size_t bytes) {
            cuda::check(cudaMemcpy(heap, host, bytes, cudaMemcpyDefault), "copying a kernel argument to the GPU");
            cuda::check(cudaDeviceSynchronize(), "copying a kernel argument to the GPU");
          },
      .read =
          [](void *host, const void *heap, std::size_t bytes) {
            cuda::check(cudaMemcpy(host, heap, bytes, cudaMemcpyDefault), "copying a kernel argument from the GPU");
          },
  };
}

GpuKernel::GpuKernel(const std::string &cubin, const std::string &entry) : entry_(entry) {
  // The driver calls below use the current context: the primary context of the PE's GPU, which
  // the runtime makes current on this thread by its first call on that device.
  cuda::check(cudaSetDevice(cuda::device()), "cudaSetDevice");
  cuda::check(cudaFree(nullptr), "making the GPU's primary context current");
  CUmodule module = nullptr;
  checkDriver(driver().moduleLoadData(&module, cubin.data()), "loading the kernel's cubin");
  module_ = module;
  // A kernel that calls nothing of the device library has no state to fill.
  cuda::attach_module(module_);
  CUfunction function = nullptr;
  checkDriver(driver().moduleGetFunction(&function, module, entry.c_str()),
              "finding the kernel '" + entry + "' in its cubin");
  function_ = function;
}

void GpuKernel::launch(Grid grid, std::span<const KernelParameter> parameters, void **packed) const {
  std::vector<void *> arguments = expandParameters(parameters, packed);
  cudaStream_t stream = cuda::stream();
  checkDriver(driver().launchKernel(static_cast<CUfunction>(function_), static_cast<unsigned>(grid.x),
                                    static_cast<unsigned>(grid.y), static_cast<unsigned>(grid.z), 1, 1, 1, 0,
                                    reinterpret_cast<CUstream>(stream), arguments.data(), nullptr),
              "launching the kernel '" + entry_ + "'");
  cuda::check(cudaStreamSynchronize(stream), entry_.c_str());
}

}  // namespace tdist::jit
