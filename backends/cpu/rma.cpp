// backends/cpu/rma.cpp - puts and gets through the peer mapping, carried by the engine that
// backends/cpu/transfer.h picks. A blocking transfer is complete on return; a non-blocking one
// once quiet returns.
#include <atomic>
#include <cstring>

#include "backends/cpu/transfer.h"
#include "runtime/runtime_state.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::shmem {

using runtime::peerAddress;
using runtime::requireState;

int my_pe() { return requireState("aclshmem_my_pe").my_pe; }
int n_pes() { return requireState("aclshmem_n_pes").n_pes; }

// The host form's translation (runtime.cpp): one implementation of aclshmem_ptr.
void *ptr(const void *address, int pe) { return tdist::peerPointer(address, pe); }

namespace {

void put(void *dest, const void *source, std::size_t nbytes, int pe, bool blocking, const char *call) {
  auto &state = requireState(call);
  device::CopyTask task;
  task.dest = peerAddress(state, dest, nbytes, pe, call, "dest");
  task.source = source;
  task.bytes = nbytes;
  device::carry(state, task, blocking, call);
}

void get(void *dest, const void *source, std::size_t nbytes, int pe, bool blocking, const char *call) {
  auto &state = requireState(call);
  device::CopyTask task;
  task.dest = static_cast<std::byte *>(dest);
  task.source = peerAddress(state, source, nbytes, pe, call, "source");
  task.bytes = nbytes;
  device::carry(state, task, blocking, call);
}

}  // namespace

void putmem(void *dest, const void *source, std::size_t nbytes, int pe) {
  put(dest, source, nbytes, pe, true, "aclshmem_putmem");
}
void getmem(void *dest, const void *source, std::size_t nbytes, int pe) {
  get(dest, source, nbytes, pe, true, "aclshmem_getmem");
}
void putmem_nbi(void *dest, const void *source, std::size_t nbytes, int pe) {
  put(dest, source, nbytes, pe, false, "aclshmem_putmem_nbi");
}
void getmem_nbi(void *dest, const void *source, std::size_t nbytes, int pe) {
  get(dest, source, nbytes, pe, false, "aclshmem_getmem_nbi");
}

// A point put is a release store, like aclshmem's (a store and a cache-line write-back): it
// serves as a 64-bit signal SET.
template <class T>
void p(T *dest, T value, int pe) {
  auto &state = requireState("aclshmem_p");
  auto *remote = reinterpret_cast<T *>(peerAddress(state, dest, sizeof(T), pe, "aclshmem_p", "dest"));
  std::atomic_ref<T>(*remote).store(value, std::memory_order_release);
}

template <class T>
T g(const T *source, int pe) {
  auto &state = requireState("aclshmem_g");
  auto *remote = reinterpret_cast<T *>(peerAddress(state, source, sizeof(T), pe, "aclshmem_g", "source"));
  return std::atomic_ref<T>(*remote).load(std::memory_order_acquire);
}

// quiet and fence are the runtime core's (runtime/runtime.cpp): they ask the backend to drain.

#define TDIST_INSTANTIATE_POINT(T) \
  template void p<T>(T *, T, int); \
  template T g<T>(const T *, int);
TDIST_INSTANTIATE_POINT(int)
TDIST_INSTANTIATE_POINT(long)
TDIST_INSTANTIATE_POINT(long long)
TDIST_INSTANTIATE_POINT(unsigned int)
TDIST_INSTANTIATE_POINT(unsigned long)
TDIST_INSTANTIATE_POINT(unsigned long long)
TDIST_INSTANTIATE_POINT(signed char)
TDIST_INSTANTIATE_POINT(unsigned char)
TDIST_INSTANTIATE_POINT(short)
TDIST_INSTANTIATE_POINT(unsigned short)
TDIST_INSTANTIATE_POINT(float)
TDIST_INSTANTIATE_POINT(double)
#undef TDIST_INSTANTIATE_POINT

}  // namespace tdist::shmem
