// backends/cpu/device_api.h - the device calls behind tdist/shmem.h and aclshmem.h, each told the
// name of the call the user made.
//
// tdist::shmem's templates pass their C++ name (tdist::shmem::p), each aclshmem shim its C name
// (aclshmem_int32_p), so that an error and aclshmemx_last_error() name what the user called.
// Defined in rma.cpp, signal.cpp and atomic.cpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tdist/shmem.h"

namespace tdist::device {

// Transfers; blocking ones are complete on return, non-blocking ones once quiet returns.
void put(void *dest, const void *source, std::size_t nbytes, int pe, bool blocking, const char *call);
void get(void *dest, const void *source, std::size_t nbytes, int pe, bool blocking, const char *call);

// Point put (a release store) and get (an acquire load) of one word on pe.
template <class T> void pointPut(T *dest, T value, int pe, const char *call);
template <class T> T pointGet(const T *source, int pe, const char *call);

// Signals: S is int32_t, int64_t or uint64_t.
template <class S>
void signalledPut(void *dest, const void *source, std::size_t nbytes, S *sig_addr, S signal,
                  shmem::SignalOp op, int pe, bool blocking, const char *call);
template <class S> void signalOp(S *sig_addr, S signal, shmem::SignalOp op, int pe, const char *call);
template <class S> S signalWaitUntil(S *sig_addr, shmem::Cmp cmp, S value, const char *call);

// Point-to-point synchronization on a local symmetric variable.
template <class T> void waitUntil(T *ivar, shmem::Cmp cmp, T value, const char *call);
template <class T> bool test(T *ivar, shmem::Cmp cmp, T value, const char *call);

// Atomics on pe's copy of dest.
template <class T> T atomicFetch(const T *source, int pe, const char *call);
template <class T> void atomicSet(T *dest, T value, int pe, const char *call);
template <class T> T atomicSwap(T *dest, T value, int pe, const char *call);
template <class T> T atomicCompareSwap(T *dest, T cond, T value, int pe, const char *call);
template <class T> void atomicAdd(T *dest, T value, int pe, const char *call);
template <class T> void atomicInc(T *dest, int pe, const char *call);
template <class T> T atomicFetchAdd(T *dest, T value, int pe, const char *call);
template <class T> T atomicFetchInc(T *dest, int pe, const char *call);

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

}  // namespace tdist::device
