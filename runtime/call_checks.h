// runtime/call_checks.h - the argument checks that every backend's calls and the host calls share,
// so that a wrong comparison, signal operation or misaligned word reads the same whichever
// backend and whichever API the user called.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tdist/shmem.h"

namespace tdist::runtime {

// The name of a comparison ("EQ", ..., "?" for one out of range), as wait diagnostics print it.
const char *cmpName(shmem::Cmp cmp);

// Throws Error(InvalidParam) naming `call` when cmp is not one of EQ, NE, GT, GE, LT, LE.
void checkCmp(shmem::Cmp cmp, const char *call);

// Throws Error(InvalidParam) naming `call` when op is neither SET nor ADD.
void checkSignalOp(shmem::SignalOp op, const char *call);

// Throws Error(InvalidParam): `what` of `call` at address is not aligned to `alignment` bytes.
[[noreturn, gnu::cold]] void throwMisaligned(const void *address, std::size_t alignment,
                                             std::size_t bytes, const char *call, const char *what);

// std::atomic_ref<T> on a misaligned word is undefined behaviour: every signal, wait, point
// put/get and atomic checks its word first (one mask test on the fast path). Every T that is
// accessed this way is lock-free, so it is atomic across the processes that map the heap.
template <class T>
inline void requireAtomicAlignment(const void *address, const char *call, const char *what) {
  static_assert(std::atomic_ref<T>::is_always_lock_free,
                "a word shared between PEs must be lock-free: a lock would be private to one process");
  constexpr std::uintptr_t mask = std::atomic_ref<T>::required_alignment - 1;
  if ((reinterpret_cast<std::uintptr_t>(address) & mask) != 0) [[unlikely]] {
    throwMisaligned(address, std::atomic_ref<T>::required_alignment, sizeof(T), call, what);
  }
}

}  // namespace tdist::runtime
