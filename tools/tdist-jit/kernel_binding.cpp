// tools/tdist-jit/kernel_binding.cpp - the kernel's arguments on one PE.
#include "tools/tdist-jit/kernel_binding.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "tdist/runtime.h"

namespace tdist::jit {

namespace {

std::string describe(std::size_t index, const KernelParameter &parameter, const ArgumentSpec &spec) {
  return "argument #" + std::to_string(index) + " '" + spec.text + "' for parameter " +
         parameter.type;
}

// The description's dtype may name a signless integer parameter's bits as unsigned.
bool sameElement(const KernelParameter &parameter, DType dtype) {
  const std::string_view name = dtypeName(dtype);
  if (parameter.element == name) return true;
  return name.starts_with("ui") && parameter.element == name.substr(1);
}

// Throws ArgumentError when a description does not fit its parameter.
void checkFits(std::span<const KernelParameter> parameters, std::span<const ArgumentSpec> specs,
               std::span<const ResolvedArgument> resolved, Context context) {
  if (parameters.size() != specs.size()) {
    std::string types;
    for (const KernelParameter &parameter : parameters)
      types += (types.empty() ? "" : ", ") + parameter.type;
    throw ArgumentError("the kernel takes " + std::to_string(parameters.size()) + " argument" +
                        (parameters.size() == 1 ? "" : "s") + " (" + types + "), " +
                        std::to_string(specs.size()) + " described");
  }
  for (std::size_t index = 0; index < specs.size(); ++index) {
    const KernelParameter &parameter = parameters[index];
    const ArgumentSpec &spec = specs[index];
    const bool memref = parameter.kind == KernelParameter::Kind::MemRef;
    if (memref != spec.buffer) {
      throw ArgumentError(describe(index, parameter, spec) + ": describe " +
                          (memref ? "a buffer, DTYPE[DIMS]" : "a scalar, DTYPE=VALUE"));
    }
    if (!sameElement(parameter, spec.dtype)) {
      throw ArgumentError(describe(index, parameter, spec) + ": the element type is " +
                          parameter.element + ", not " + std::string(dtypeName(spec.dtype)));
    }
    if (!memref) continue;
    const std::vector<std::int64_t> &shape = resolved[index].shape;
    if (shape.size() != parameter.shape.size()) {
      throw ArgumentError(describe(index, parameter, spec) + ": a buffer of rank " +
                          std::to_string(shape.size()) + " for a memref of rank " +
                          std::to_string(parameter.shape.size()));
    }
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (parameter.shape[d] != KernelParameter::kDynamicSize && parameter.shape[d] != shape[d]) {
        throw ArgumentError(describe(index, parameter, spec) + ": dimension " + std::to_string(d) +
                            " is " + std::to_string(shape[d]) + " on PE " +
                            std::to_string(context.rank) + ", the memref's is " +
                            std::to_string(parameter.shape[d]));
      }
    }
  }
}
}  // namespace

HeapAccess hostHeap() {
  return HeapAccess{
      .in_place = true,
      .write = [](void *heap, const void *host, std::size_t bytes) { std::memcpy(heap, host, bytes); },
      .read = [](void *host, const void *heap, std::size_t bytes) { std::memcpy(host, heap, bytes); },
  };
}

KernelBinding::KernelBinding(std::span<const KernelParameter> parameters,
                             std::span<const ArgumentSpec> specs, Context context, HeapAccess access)
    : access_(access) {
  std::vector<ResolvedArgument> resolved;
  for (const ArgumentSpec &spec : specs) resolved.push_back(resolve(spec, context));
  checkFits(parameters, specs, resolved, context);

  slots_.resize(specs.size());
  packed_.resize(specs.size());
  // On an error the buffers stay allocated: the error ends this PE, and freeing is collective.
  for (std::size_t index = 0; index < specs.size(); ++index) {
    Slot &slot = slots_[index];
    slot.argument = std::move(resolved[index]);
    if (!slot.argument.buffer) {
      fillInitial(specs[index], slot.argument, context, &slot.scalar);
      packed_[index] = &slot.scalar;
      continue;
    }
    // At least one byte, so that every buffer has its own symmetric address.
    slot.data = allocate(std::max<std::size_t>(slot.argument.bytes(), 1));
    fill(slot, specs[index], context);
    const std::size_t rank = slot.argument.shape.size();
    slot.descriptor.assign(3 + 2 * rank, 0);
    std::memcpy(&slot.descriptor[0], &slot.data, sizeof(void *));
    std::memcpy(&slot.descriptor[1], &slot.data, sizeof(void *));
    std::int64_t stride = 1;
    for (std::size_t d = rank; d-- > 0;) {
      slot.descriptor[3 + d] = slot.argument.shape[d];
      slot.descriptor[3 + rank + d] = stride;
      stride *= slot.argument.shape[d];
    }
    slot.descriptor_address = slot.descriptor.data();
    packed_[index] = &slot.descriptor_address;
  }
}

void KernelBinding::fill(Slot &slot, const ArgumentSpec &spec, Context context) {
  if (access_.in_place) {
    fillInitial(spec, slot.argument, context, slot.data);
    return;
  }
  slot.host.resize(slot.argument.bytes());
  fillInitial(spec, slot.argument, context, slot.host.data());
  access_.write(slot.data, slot.host.data(), slot.host.size());
}

void KernelBinding::refill(std::span<const ArgumentSpec> specs, Context context) {
  for (std::size_t index = 0; index < slots_.size(); ++index)
    if (slots_[index].data) fill(slots_[index], specs[index], context);
}

void KernelBinding::download() {
  if (access_.in_place) return;
  for (Slot &slot : slots_)
    if (slot.data) access_.read(slot.host.data(), slot.data, slot.host.size());
}

KernelBinding::~KernelBinding() {
  for (std::size_t index = slots_.size(); index-- > 0;) {
    if (slots_[index].data) deallocate(slots_[index].data);
    slots_[index].data = nullptr;
  }
}

}  // namespace tdist::jit
