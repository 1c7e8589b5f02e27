// host/signal.cpp - signals and point-to-point waits.
//
// SET is a release store and ADD an atomic add on the peer's word; a wait is an acquire load
// that the runtime's WaitLoop repeats (spin, yield, sleep, deadline). Where the host cannot load
// the heap, they are the backend's word_op SET, ADD and FETCH (host/host_access.h).
#include <atomic>
#include <cstring>
#include <string>

#include "host/calls.h"
#include "host/host_access.h"
#include "host/transfer.h"
#include "host/type_lists.h"
#include "host/wait_value.h"
#include "runtime/call_checks.h"
#include "runtime/runtime_state.h"
#include "shmem.h"
#include "tdist/shmem.h"

namespace tdist::host {

using runtime::peerAddress;
using runtime::requireState;
using shmem::Cmp;
using shmem::SignalOp;

// The signal's release store (or acq_rel add) comes after the copy: data first.
template <class S>
void signalledPut(void *dest, const void *source, std::size_t nbytes, S *sig_addr, S signal,
                  SignalOp op, int pe, bool blocking, const char *call) {
  auto &state = requireState(call);
  runtime::checkSignalOp(op, call);
  runtime::requireAtomicAlignment<S>(sig_addr, call, "sig_addr");
  runtime::Transfer task;
  task.dest = nbytes == 0 ? nullptr : peerAddress(state, dest, nbytes, pe, call, "dest");
  task.source = source;
  task.bytes = nbytes;
  task.signal = peerAddress(state, sig_addr, sizeof(S), pe, call, "sig_addr");
  task.signal_value = static_cast<std::uint64_t>(signal);
  task.signal_op = op;
  task.signal_bytes = sizeof(S);
  host::carryTraced(state, task, blocking, call, trace_format::Transfer::PutSignal, pe);
}

// A signal alone is a store or an atomic by the calling core, whatever the engine.
template <class S>
void signalOp(S *sig_addr, S signal, SignalOp op, int pe, const char *call) {
  auto &state = requireState(call);
  runtime::checkSignalOp(op, call);
  runtime::requireAtomicAlignment<S>(sig_addr, call, "sig_addr");
  auto *remote = reinterpret_cast<S *>(peerAddress(state, sig_addr, sizeof(S), pe, call, "sig_addr"));
  S *word = hostView(state, remote);
  if (word == nullptr) [[unlikely]] {
    backendWordOp(state, op == SignalOp::Set ? runtime::WordOp::PutSet : runtime::WordOp::PutAdd, remote, signal,
                  S{}, call);
    return;
  }
  runtime::applySignal(word, sizeof(S), static_cast<std::uint64_t>(signal), op);
}

template <class S>
S signalWaitUntil(S *sig_addr, Cmp cmp, S value, const char *call) {
  auto &state = requireState(call);
  runtime::requireAtomicAlignment<S>(sig_addr, call, "sig_addr");
  return host::waitValue(state, sig_addr, cmp, value, call);
}

template <class T>
void waitUntil(T *ivar, Cmp cmp, T value, const char *call) {
  auto &state = requireState(call);
  runtime::requireAtomicAlignment<T>(ivar, call, "ivar");
  host::waitValue(state, ivar, cmp, value, call);
}

template <class T>
bool test(T *ivar, Cmp cmp, T value, const char *call) {
  runtime::checkCmp(cmp, call);
  runtime::requireAtomicAlignment<T>(ivar, call, "ivar");
  // test needs no state on the cpu: it stays a plain load there, even before init.
  T *word = ivar;
  if (runtime::RuntimeState *state = runtime::g_state; state != nullptr) {
    word = hostView(*state, ivar);
    if (word == nullptr) [[unlikely]] {
      requireBackendWord(*state, ivar, call);
      return host::satisfies(backendLoad(*state, ivar, call), cmp, value);
    }
  }
  return host::satisfies(std::atomic_ref<T>(*word).load(std::memory_order_acquire), cmp, value);
}

}  // namespace tdist::host

namespace tdist::shmem {

template <class S>
void signal_op(S *sig_addr, S signal, SignalOp op, int pe) {
  host::signalOp(sig_addr, signal, op, pe, "tdist::shmem::signal_op");
}

template <class S>
void putmem_signal(void *dest, const void *source, std::size_t nbytes, S *sig_addr, S signal,
                   SignalOp op, int pe) {
  host::signalledPut(dest, source, nbytes, sig_addr, signal, op, pe, true, "tdist::shmem::putmem_signal");
}

template <class S>
void putmem_signal_nbi(void *dest, const void *source, std::size_t nbytes, S *sig_addr, S signal,
                       SignalOp op, int pe) {
  host::signalledPut(dest, source, nbytes, sig_addr, signal, op, pe, false,
                       "tdist::shmem::putmem_signal_nbi");
}

template <class S>
S signal_wait_until(S *sig_addr, Cmp cmp, S value) {
  return host::signalWaitUntil(sig_addr, cmp, value, "tdist::shmem::signal_wait_until");
}

template <class T>
void wait_until(T *ivar, Cmp cmp, T value) {
  host::waitUntil(ivar, cmp, value, "tdist::shmem::wait_until");
}

template <class T>
bool test(T *ivar, Cmp cmp, T value) {
  return host::test(ivar, cmp, value, "tdist::shmem::test");
}

}  // namespace tdist::shmem

// Qualified explicit instantiations, from the namespace that encloses both.
namespace tdist {

using shmem::Cmp;
using shmem::SignalOp;

#define TDIST_INSTANTIATE_SIGNAL(NAME, S, A)                                                           \
  template void shmem::signal_op<S>(S *, S, SignalOp, int);                                            \
  template void shmem::putmem_signal<S>(void *, const void *, std::size_t, S *, S, SignalOp, int);     \
  template void shmem::putmem_signal_nbi<S>(void *, const void *, std::size_t, S *, S, SignalOp, int); \
  template S shmem::signal_wait_until<S>(S *, Cmp, S);                                                 \
  template void host::signalOp<S>(S *, S, SignalOp, int, const char *);                                \
  template void host::signalledPut<S>(void *, const void *, std::size_t, S *, S, SignalOp, int, bool,  \
                                        const char *);                                                 \
  template S host::signalWaitUntil<S>(S *, Cmp, S, const char *);
TDIST_HOST_SIGNAL_TYPES(TDIST_INSTANTIATE_SIGNAL, _)
#undef TDIST_INSTANTIATE_SIGNAL

#define TDIST_INSTANTIATE_WAIT(NAME, T, A)                     \
  template void shmem::wait_until<T>(T *, Cmp, T);             \
  template bool shmem::test<T>(T *, Cmp, T);                   \
  template void host::waitUntil<T>(T *, Cmp, T, const char *); \
  template bool host::test<T>(T *, Cmp, T, const char *);
// The point-to-point synchronization types, each C type once.
TDIST_SHMEM_GENERIC_P2P_TYPES(TDIST_INSTANTIATE_WAIT, _)
#undef TDIST_INSTANTIATE_WAIT

}  // namespace tdist
