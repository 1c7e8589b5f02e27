// tools/tdist-jit/gpu_kernel.h - an IR kernel on the PE's GPU (the cuda backend).
//
// The cubin of tdist-cuda-pipeline is loaded into the PE's context and attached to the runtime
// (its tdist_device_state filled as the backend fills Triton's modules: now, at every later init,
// zeroed at finalize), then launched on the PE's stream: a block of one thread per program of the
// grid. Its parameters are MLIR's for a gpu.func kernel: a memref expands to the fields of its
// descriptor (allocated and aligned pointers, offset, sizes, strides), each a parameter; a scalar
// is passed by value, an index as 64 bits.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "tdist/launch.h"
#include "tools/tdist-jit/kernel_binding.h"
#include "tools/tdist-jit/kernel_compiler.h"

namespace tdist::jit {

// The launch's parameter list for the kernel's parameters, from the binding's packed form (a
// pointer to each scalar, and to a pointer to each memref's descriptor): one pointer per
// parameter of the gpu.func, to its value. Needs no GPU.
std::vector<void *> expandParameters(std::span<const KernelParameter> parameters, void **packed);

#if TDIST_JIT_CUDA
// The heap of the cuda backend: cudaMemcpy between its mappings and the host, done on return.
HeapAccess deviceHeap();

class GpuKernel {
 public:
  // Loads the cubin, attaches it to the runtime and finds the kernel `entry`. Needs the runtime
  // initialized on the cuda backend; throws tdist::Error.
  GpuKernel(const std::string &cubin, const std::string &entry);
  // The module stays loaded: the runtime keeps an attached module, and zeroes its state at
  // finalize.
  ~GpuKernel() = default;

  // Runs the grid on the PE's stream and waits for it; a fault or a wait past its deadline in the
  // kernel is reported as the backend reports its own (tdist::cuda::check).
  void launch(Grid grid, std::span<const KernelParameter> parameters, void **packed) const;

 private:
  void *module_ = nullptr;     // CUmodule
  void *function_ = nullptr;   // CUfunction
  std::string entry_;
};
#endif

}  // namespace tdist::jit
