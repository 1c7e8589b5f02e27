// tools/tdist-jit/kernel_binding.h - the kernel's arguments on one PE.
//
// Buffers live on the symmetric heap, so every PE allocates them collectively in parameter
// order, and a kernel reaches a peer's copy with distributed.symm_at. Scalars are passed by
// value. The packed form is what the JIT'd entry takes: one pointer per parameter, to the
// scalar or to the memref descriptor (MLIR's C interface).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tools/tdist-jit/args/kernel_args.h"
#include "tools/tdist-jit/kernel_compiler.h"

namespace tdist::jit {

// How the runner reaches bytes on the heap: the cpu backend's heap is host memory, read and
// written in place; the cuda backend's is GPU memory, which the runner fills and reads through
// copies (gpu_kernel.h), keeping a host copy of each buffer.
struct HeapAccess {
  bool in_place = true;
  // Copies between the heap (this PE's or a peer's mapping) and host memory; done when they
  // return, so that a barrier after them orders them before every PE's next step.
  void (*write)(void *heap, const void *host, std::size_t bytes) = nullptr;
  void (*read)(void *host, const void *heap, std::size_t bytes) = nullptr;
};
HeapAccess hostHeap();

class KernelBinding {
 public:
  // Checks that the descriptions fit the parameters (count, scalar or buffer, type, rank, and
  // static sizes on this PE; ArgumentError naming the parameter), then allocates and fills every
  // buffer: collective. Heap errors throw tdist::Error.
  KernelBinding(std::span<const KernelParameter> parameters, std::span<const ArgumentSpec> specs,
                Context context, HeapAccess access = hostHeap());
  ~KernelBinding();   // collective: frees the buffers
  KernelBinding(const KernelBinding &) = delete;
  KernelBinding &operator=(const KernelBinding &) = delete;

  // Writes every buffer's initial values again (local, not collective).
  void refill(std::span<const ArgumentSpec> specs, Context context);
  // Where the heap is not read in place: brings every buffer's host copy up to date, for data().
  void download();

  void **packed() { return packed_.data(); }
  const ResolvedArgument &argument(std::size_t index) const { return slots_[index].argument; }
  // The buffer's values: on the heap itself, or its host copy as of the last download().
  const void *data(std::size_t index) const {
    const Slot &slot = slots_[index];
    return access_.in_place ? slot.data : static_cast<const void *>(slot.host.data());
  }
  std::size_t size() const { return slots_.size(); }
  const HeapAccess &access() const { return access_; }

 private:
  struct Slot {
    ResolvedArgument argument;
    void *data = nullptr;                    // buffer on the heap
    std::vector<std::byte> host;             // its host copy, where the heap is not in place
    std::vector<std::int64_t> descriptor;    // allocated, aligned, offset, sizes, strides
    void *descriptor_address = nullptr;      // what the packed slot points at, for a buffer
    std::uint64_t scalar = 0;                // a scalar's bytes
  };
  void fill(Slot &slot, const ArgumentSpec &spec, Context context);

  HeapAccess access_;
  std::vector<Slot> slots_;
  std::vector<void *> packed_;
};

}  // namespace tdist::jit
