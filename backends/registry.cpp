// backends/registry.cpp - the backends of this build, in priority order. Adding a backend is one
// line here and one in backends/CMakeLists.txt.
#include "runtime/backend.h"

namespace tdist::runtime {

extern const Backend kCpuBackend;  // backends/cpu/backend.cpp

std::span<const Backend *const> builtBackends() {
  static const Backend *const backends[] = {&kCpuBackend};
  return backends;
}

}  // namespace tdist::runtime
