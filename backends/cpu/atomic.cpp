// backends/cpu/atomic.cpp - remote atomics: std::atomic_ref on the peer's mapped word.
#include <atomic>

#include "runtime/runtime_state.h"
#include "tdist/shmem.h"

namespace tdist::shmem {
namespace {

template <class T>
std::atomic_ref<T> remoteWord(const T *address, int pe, const char *call) {
  auto &state = runtime::requireState(call);
  auto *remote = reinterpret_cast<T *>(runtime::peerAddress(state, address, sizeof(T), pe, call, "dest"));
  return std::atomic_ref<T>(*remote);
}

}  // namespace

template <class T>
T atomic_fetch(const T *source, int pe) {
  return remoteWord(source, pe, "aclshmem_atomic_fetch").load(std::memory_order_acquire);
}

template <class T>
void atomic_set(T *dest, T value, int pe) {
  remoteWord(dest, pe, "aclshmem_atomic_set").store(value, std::memory_order_release);
}

template <class T>
T atomic_swap(T *dest, T value, int pe) {
  return remoteWord(dest, pe, "aclshmem_atomic_swap").exchange(value, std::memory_order_acq_rel);
}

template <class T>
T atomic_compare_swap(T *dest, T cond, T value, int pe) {
  remoteWord(dest, pe, "aclshmem_atomic_compare_swap")
      .compare_exchange_strong(cond, value, std::memory_order_acq_rel, std::memory_order_acquire);
  return cond;  // the old value, whether or not it was swapped
}

template <class T>
void atomic_add(T *dest, T value, int pe) {
  remoteWord(dest, pe, "aclshmem_atomic_add").fetch_add(value, std::memory_order_acq_rel);
}

template <class T>
void atomic_inc(T *dest, int pe) {
  remoteWord(dest, pe, "aclshmem_atomic_inc").fetch_add(T{1}, std::memory_order_acq_rel);
}

template <class T>
T atomic_fetch_add(T *dest, T value, int pe) {
  return remoteWord(dest, pe, "aclshmem_atomic_fetch_add").fetch_add(value, std::memory_order_acq_rel);
}

template <class T>
T atomic_fetch_inc(T *dest, int pe) {
  return remoteWord(dest, pe, "aclshmem_atomic_fetch_inc").fetch_add(T{1}, std::memory_order_acq_rel);
}

#define TDIST_INSTANTIATE_EXTENDED(T)                  \
  template T atomic_fetch<T>(const T *, int);          \
  template void atomic_set<T>(T *, T, int);            \
  template T atomic_swap<T>(T *, T, int);
#define TDIST_INSTANTIATE_STANDARD(T)                  \
  TDIST_INSTANTIATE_EXTENDED(T)                        \
  template T atomic_compare_swap<T>(T *, T, T, int);   \
  template void atomic_add<T>(T *, T, int);            \
  template void atomic_inc<T>(T *, int);               \
  template T atomic_fetch_add<T>(T *, T, int);         \
  template T atomic_fetch_inc<T>(T *, int);
TDIST_INSTANTIATE_STANDARD(int)
TDIST_INSTANTIATE_STANDARD(long)
TDIST_INSTANTIATE_STANDARD(long long)
TDIST_INSTANTIATE_STANDARD(unsigned int)
TDIST_INSTANTIATE_STANDARD(unsigned long)
TDIST_INSTANTIATE_STANDARD(unsigned long long)
TDIST_INSTANTIATE_EXTENDED(float)
TDIST_INSTANTIATE_EXTENDED(double)
#undef TDIST_INSTANTIATE_STANDARD
#undef TDIST_INSTANTIATE_EXTENDED

}  // namespace tdist::shmem
