// backends/registry.cpp - the backends of this build, in priority order. Adding a backend is one
// line here and one in backends/CMakeLists.txt.
#include "runtime/backend.h"

namespace tdist::runtime {

extern const Backend kCpuBackend;   // backends/cpu/backend.cpp
#ifdef TDIST_HAVE_CUDA_BACKEND
extern const Backend kCudaBackend;  // backends/cuda/backend.cpp
#endif

std::span<const Backend *const> builtBackends() {
  static const Backend *const backends[] = {
      &kCpuBackend,
#ifdef TDIST_HAVE_CUDA_BACKEND
      &kCudaBackend,
#endif
  };
  return backends;
}

}  // namespace tdist::runtime
