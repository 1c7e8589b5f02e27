// tools/tdist-jit/kernel_binding.h - the kernel's arguments on one PE.
//
// Buffers live on the symmetric heap, so every PE allocates them collectively in parameter
// order, and a kernel reaches a peer's copy with distributed.symm_at. Scalars are passed by
// value. The packed form is what the JIT'd entry takes: one pointer per parameter, to the
// scalar or to the memref descriptor (MLIR's C interface).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tools/tdist-jit/args/kernel_args.h"
#include "tools/tdist-jit/kernel_compiler.h"

namespace tdist::jit {

class KernelBinding {
 public:
  // Checks that the descriptions fit the parameters (count, scalar or buffer, type, rank, and
  // static sizes on this PE; ArgumentError naming the parameter), then allocates and fills every
  // buffer: collective. Heap errors throw tdist::Error.
  KernelBinding(std::span<const KernelParameter> parameters, std::span<const ArgumentSpec> specs,
                Context context);
  ~KernelBinding();   // collective: frees the buffers
  KernelBinding(const KernelBinding &) = delete;
  KernelBinding &operator=(const KernelBinding &) = delete;

  // Writes every buffer's initial values again (local, not collective).
  void refill(std::span<const ArgumentSpec> specs, Context context);

  void **packed() { return packed_.data(); }
  const ResolvedArgument &argument(std::size_t index) const { return slots_[index].argument; }
  const void *data(std::size_t index) const { return slots_[index].data; }
  std::size_t size() const { return slots_.size(); }

 private:
  struct Slot {
    ResolvedArgument argument;
    void *data = nullptr;                    // buffer on the heap
    std::vector<std::int64_t> descriptor;    // allocated, aligned, offset, sizes, strides
    void *descriptor_address = nullptr;      // what the packed slot points at, for a buffer
    std::uint64_t scalar = 0;                // a scalar's bytes
  };
  std::vector<Slot> slots_;
  std::vector<void *> packed_;
};

}  // namespace tdist::jit
