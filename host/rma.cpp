// host/rma.cpp - puts and gets through the peer mapping, carried by the engine that
// the backend's submit picks. A blocking transfer is complete on return; a non-blocking one
// once quiet returns.
#include <atomic>
#include <cstring>
#include <type_traits>

#include "host/calls.h"
#include "host/host_access.h"
#include "host/transfer.h"
#include "host/type_lists.h"
#include "runtime/call_checks.h"
#include "runtime/runtime_state.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::shmem {

using runtime::requireState;

int my_pe() { return requireState("aclshmem_my_pe").my_pe; }
int n_pes() { return requireState("aclshmem_n_pes").n_pes; }

// The host form's translation (runtime.cpp): one implementation of aclshmem_ptr.
void *ptr(const void *address, int pe) { return tdist::peerPointer(address, pe); }

}  // namespace tdist::shmem

namespace tdist::host {

using runtime::peerAddress;
using runtime::requireState;

// A transfer of no bytes does nothing, whatever its addresses (the PE is still checked).
void put(void *dest, const void *source, std::size_t nbytes, int pe, bool blocking, const char *call) {
  auto &state = requireState(call);
  if (nbytes == 0) return runtime::checkPe(state, pe, call);
  runtime::Transfer task;
  task.dest = peerAddress(state, dest, nbytes, pe, call, "dest");
  task.source = source;
  task.bytes = nbytes;
  host::carryTraced(state, task, blocking, call, trace_format::Transfer::Put, pe);
}

void get(void *dest, const void *source, std::size_t nbytes, int pe, bool blocking, const char *call) {
  auto &state = requireState(call);
  if (nbytes == 0) return runtime::checkPe(state, pe, call);
  runtime::Transfer task;
  task.dest = static_cast<std::byte *>(dest);
  task.source = peerAddress(state, source, nbytes, pe, call, "source");
  task.bytes = nbytes;
  host::carryTraced(state, task, blocking, call, trace_format::Transfer::Get, pe);
}

// A point put is a release store, like aclshmem's (a store and a cache-line write-back): it
// serves as a 64-bit signal SET. Where the host cannot load the heap, words of 4 and 8 bytes are
// word_op SET and FETCH (the same order); narrower ones are blocking transfers.
template <class T>
void pointPut(T *dest, T value, int pe, const char *call) {
  auto &state = requireState(call);
  runtime::requireAtomicAlignment<T>(dest, call, "dest");
  auto *remote = reinterpret_cast<T *>(peerAddress(state, dest, sizeof(T), pe, call, "dest"));
  T *word = hostView(state, remote);
  if (word == nullptr) [[unlikely]] return backendStore(state, remote, value, call);
  // A point put of a word serves as a signal SET: the trace has it as a notify, timed before.
  if constexpr (std::is_integral_v<T> && sizeof(T) >= 4) {
    if (trace::active()) [[unlikely]]
      trace::recordNotify(remote, static_cast<std::int64_t>(value), trace::clockNs());
  }
  std::atomic_ref<T>(*word).store(value, std::memory_order_release);
}

template <class T>
T pointGet(const T *source, int pe, const char *call) {
  auto &state = requireState(call);
  runtime::requireAtomicAlignment<T>(source, call, "source");
  auto *remote = reinterpret_cast<T *>(peerAddress(state, source, sizeof(T), pe, call, "source"));
  T *word = hostView(state, remote);
  if (word == nullptr) [[unlikely]] return backendLoad(state, remote, call);
  return std::atomic_ref<T>(*word).load(std::memory_order_acquire);
}

}  // namespace tdist::host

namespace tdist::shmem {

void putmem(void *dest, const void *source, std::size_t nbytes, int pe) {
  host::put(dest, source, nbytes, pe, true, "tdist::shmem::putmem");
}
void getmem(void *dest, const void *source, std::size_t nbytes, int pe) {
  host::get(dest, source, nbytes, pe, true, "tdist::shmem::getmem");
}
void putmem_nbi(void *dest, const void *source, std::size_t nbytes, int pe) {
  host::put(dest, source, nbytes, pe, false, "tdist::shmem::putmem_nbi");
}
void getmem_nbi(void *dest, const void *source, std::size_t nbytes, int pe) {
  host::get(dest, source, nbytes, pe, false, "tdist::shmem::getmem_nbi");
}

template <class T>
void p(T *dest, T value, int pe) {
  host::pointPut(dest, value, pe, "tdist::shmem::p");
}

template <class T>
T g(const T *source, int pe) {
  return host::pointGet(source, pe, "tdist::shmem::g");
}

// quiet and fence are the runtime core's (runtime/runtime.cpp): they ask the backend to drain.

}  // namespace tdist::shmem

// Qualified explicit instantiations, from the namespace that encloses both.
namespace tdist {

#define TDIST_INSTANTIATE_POINT(NAME, T, A)                   \
  template void shmem::p<T>(T *, T, int);                     \
  template T shmem::g<T>(const T *, int);                     \
  template void host::pointPut<T>(T *, T, int, const char *); \
  template T host::pointGet<T>(const T *, int, const char *);
TDIST_HOST_POINT_TYPES(TDIST_INSTANTIATE_POINT, _)
#undef TDIST_INSTANTIATE_POINT

}  // namespace tdist
