// tools/tdist-jit/launch_parameters.cpp - a GPU kernel's parameters from the binding's packed form.
#include <cstdint>

#include "tools/tdist-jit/gpu_kernel.h"

namespace tdist::jit {

std::vector<void *> expandParameters(std::span<const KernelParameter> parameters, void **packed) {
  std::vector<void *> expanded;
  for (std::size_t index = 0; index < parameters.size(); ++index) {
    const KernelParameter &parameter = parameters[index];
    if (parameter.kind == KernelParameter::Kind::Scalar) {
      // The scalar's bytes start at its slot: the driver copies as many as the parameter has.
      expanded.push_back(packed[index]);
      continue;
    }
    // allocated, aligned, offset, then the sizes and the strides, 8 bytes each.
    auto *descriptor = *static_cast<std::int64_t **>(packed[index]);
    const std::size_t fields = 3 + 2 * parameter.shape.size();
    for (std::size_t field = 0; field < fields; ++field) expanded.push_back(descriptor + field);
  }
  return expanded;
}

}  // namespace tdist::jit
