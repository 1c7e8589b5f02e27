// host/atomic.cpp - remote atomics: std::atomic_ref on the peer's mapped word, or the
// backend's word_op where the host cannot load the heap.
#include <atomic>

#include "host/calls.h"
#include "host/host_access.h"
#include "runtime/call_checks.h"
#include "runtime/runtime_state.h"
#include "shmem.h"
#include "tdist/shmem.h"

namespace tdist::host {

namespace {

// pe's copy of the word at address, after the checks of every atomic.
template <class T>
struct RemoteWord {
  runtime::RuntimeState &state;
  T *address;  // pe's copy, in this process's mapping
  T *view;     // where the host loads and stores it, or null: only the backend reaches it

  bool hostLoads() const { return view != nullptr; }
  std::atomic_ref<T> ref() const { return std::atomic_ref<T>(*view); }
  T apply(runtime::WordOp op, T operand, const char *call, T compare = T{}) const {
    return backendWordOp(state, op, address, operand, compare, call);
  }
};

template <class T>
RemoteWord<T> remoteWord(const T *address, int pe, const char *call, const char *what = "dest") {
  auto &state = runtime::requireState(call);
  runtime::requireAtomicAlignment<T>(address, call, what);
  auto *remote = reinterpret_cast<T *>(runtime::peerAddress(state, address, sizeof(T), pe, call, what));
  return {state, remote, hostView(state, remote)};
}

}  // namespace

// Where the host cannot load the heap, each atomic is the backend's word_op of the same name
// (inc is ADD 1; float and double move by their bits).
using runtime::WordOp;

template <class T>
T atomicFetch(const T *source, int pe, const char *call) {
  auto word = remoteWord(source, pe, call, "source");
  if (!word.hostLoads()) [[unlikely]] return word.apply(WordOp::Fetch, T{}, call);
  return word.ref().load(std::memory_order_acquire);
}

template <class T>
void atomicSet(T *dest, T value, int pe, const char *call) {
  auto word = remoteWord(dest, pe, call);
  if (!word.hostLoads()) [[unlikely]] {
    word.apply(WordOp::Set, value, call);
    return;
  }
  word.ref().store(value, std::memory_order_release);
}

template <class T>
T atomicSwap(T *dest, T value, int pe, const char *call) {
  auto word = remoteWord(dest, pe, call);
  if (!word.hostLoads()) [[unlikely]] return word.apply(WordOp::Swap, value, call);
  return word.ref().exchange(value, std::memory_order_acq_rel);
}

template <class T>
T atomicCompareSwap(T *dest, T cond, T value, int pe, const char *call) {
  auto word = remoteWord(dest, pe, call);
  if (!word.hostLoads()) [[unlikely]] return word.apply(WordOp::CompareSwap, value, call, cond);
  word.ref().compare_exchange_strong(cond, value, std::memory_order_acq_rel, std::memory_order_acquire);
  return cond;  // the old value, whether or not it was swapped
}

template <class T>
void atomicAdd(T *dest, T value, int pe, const char *call) {
  auto word = remoteWord(dest, pe, call);
  if (!word.hostLoads()) [[unlikely]] {
    word.apply(WordOp::Add, value, call);
    return;
  }
  word.ref().fetch_add(value, std::memory_order_acq_rel);
}

template <class T>
void atomicInc(T *dest, int pe, const char *call) {
  atomicAdd(dest, T{1}, pe, call);
}

template <class T>
T atomicFetchAdd(T *dest, T value, int pe, const char *call) {
  auto word = remoteWord(dest, pe, call);
  if (!word.hostLoads()) [[unlikely]] return word.apply(WordOp::FetchAdd, value, call);
  return word.ref().fetch_add(value, std::memory_order_acq_rel);
}

template <class T>
T atomicFetchInc(T *dest, int pe, const char *call) {
  return atomicFetchAdd(dest, T{1}, pe, call);
}

// Bitwise atomics: where the host cannot load the heap, a compare-and-swap loop of word_op.
template <class T, class Host, class Combine>
T fetchBitwise(T *dest, T value, int pe, const char *call, Host host, Combine combine) {
  auto word = remoteWord(dest, pe, call);
  if (word.hostLoads()) [[likely]] return host(word.ref(), value);
  T old = word.apply(WordOp::Fetch, T{}, call);
  for (;;) {
    const T seen = word.apply(WordOp::CompareSwap, combine(old, value), call, old);
    if (seen == old) return old;
    old = seen;
  }
}

template <class T>
T atomicFetchAnd(T *dest, T value, int pe, const char *call) {
  return fetchBitwise(
      dest, value, pe, call, [](std::atomic_ref<T> ref, T v) { return ref.fetch_and(v, std::memory_order_acq_rel); },
      [](T a, T b) { return static_cast<T>(a & b); });
}

template <class T>
T atomicFetchOr(T *dest, T value, int pe, const char *call) {
  return fetchBitwise(
      dest, value, pe, call, [](std::atomic_ref<T> ref, T v) { return ref.fetch_or(v, std::memory_order_acq_rel); },
      [](T a, T b) { return static_cast<T>(a | b); });
}

template <class T>
T atomicFetchXor(T *dest, T value, int pe, const char *call) {
  return fetchBitwise(
      dest, value, pe, call, [](std::atomic_ref<T> ref, T v) { return ref.fetch_xor(v, std::memory_order_acq_rel); },
      [](T a, T b) { return static_cast<T>(a ^ b); });
}

}  // namespace tdist::host

namespace tdist::shmem {

template <class T>
T atomic_fetch(const T *source, int pe) {
  return host::atomicFetch(source, pe, "tdist::shmem::atomic_fetch");
}

template <class T>
void atomic_set(T *dest, T value, int pe) {
  host::atomicSet(dest, value, pe, "tdist::shmem::atomic_set");
}

template <class T>
T atomic_swap(T *dest, T value, int pe) {
  return host::atomicSwap(dest, value, pe, "tdist::shmem::atomic_swap");
}

template <class T>
T atomic_compare_swap(T *dest, T cond, T value, int pe) {
  return host::atomicCompareSwap(dest, cond, value, pe, "tdist::shmem::atomic_compare_swap");
}

template <class T>
void atomic_add(T *dest, T value, int pe) {
  host::atomicAdd(dest, value, pe, "tdist::shmem::atomic_add");
}

template <class T>
void atomic_inc(T *dest, int pe) {
  host::atomicInc(dest, pe, "tdist::shmem::atomic_inc");
}

template <class T>
T atomic_fetch_add(T *dest, T value, int pe) {
  return host::atomicFetchAdd(dest, value, pe, "tdist::shmem::atomic_fetch_add");
}

template <class T>
T atomic_fetch_inc(T *dest, int pe) {
  return host::atomicFetchInc(dest, pe, "tdist::shmem::atomic_fetch_inc");
}

}  // namespace tdist::shmem

// Qualified explicit instantiations, from the namespace that encloses both.
namespace tdist {

#define TDIST_INSTANTIATE_EXTENDED(NAME, T, A)                   \
  template T shmem::atomic_fetch<T>(const T *, int);             \
  template void shmem::atomic_set<T>(T *, T, int);               \
  template T shmem::atomic_swap<T>(T *, T, int);                 \
  template T host::atomicFetch<T>(const T *, int, const char *); \
  template void host::atomicSet<T>(T *, T, int, const char *);   \
  template T host::atomicSwap<T>(T *, T, int, const char *);
#define TDIST_INSTANTIATE_STANDARD(NAME, T, A)                         \
  template T shmem::atomic_compare_swap<T>(T *, T, T, int);            \
  template void shmem::atomic_add<T>(T *, T, int);                     \
  template void shmem::atomic_inc<T>(T *, int);                        \
  template T shmem::atomic_fetch_add<T>(T *, T, int);                  \
  template T shmem::atomic_fetch_inc<T>(T *, int);                     \
  template T host::atomicCompareSwap<T>(T *, T, T, int, const char *); \
  template void host::atomicAdd<T>(T *, T, int, const char *);         \
  template void host::atomicInc<T>(T *, int, const char *);            \
  template T host::atomicFetchAdd<T>(T *, T, int, const char *);       \
  template T host::atomicFetchInc<T>(T *, int, const char *);          \
  template T host::atomicFetchAnd<T>(T *, T, int, const char *);       \
  template T host::atomicFetchOr<T>(T *, T, int, const char *);        \
  template T host::atomicFetchXor<T>(T *, T, int, const char *);
// OpenSHMEM's AMO types, each C type once: fetch, set and swap for the extended ones, the rest
// for the standard ones.
TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES(TDIST_INSTANTIATE_EXTENDED, _)
TDIST_SHMEM_GENERIC_AMO_TYPES(TDIST_INSTANTIATE_STANDARD, _)
#undef TDIST_INSTANTIATE_STANDARD
#undef TDIST_INSTANTIATE_EXTENDED

}  // namespace tdist
