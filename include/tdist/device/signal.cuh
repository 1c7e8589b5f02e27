// tdist/device/signal.cuh - signals, point-to-point waits and ordering: signal_op,
// signal_wait_until, wait_until, test, quiet, fence.
//
// OpenSHMEM's semantics as aclshmem implements them (tdist/shmem.h): a signal SET is a release
// store, ADD an atomic add with release order; waits are acquire loads with the device deadline.
// On the MTE path every put is a store the SM has already issued, so quiet and fence are one
// sequentially consistent fence at the job's scope (ptx.cuh): it orders this thread's earlier stores (to any PE)
// before its later accesses as every observer sees them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tdist/device/dl.cuh"
#include "tdist/device/ptx.cuh"
#include "tdist/device/wait.cuh"
#include "tdist/shmem.h"

namespace tdist::device {

__device__ __forceinline__ void quiet() { ptx::fence_sc(detail::scope()); }
__device__ __forceinline__ void fence() { ptx::fence_sc(detail::scope()); }

// SET: release store of value into pe's *sig; ADD: atomic add with release order.
template <class S>
  requires detail::IntegerWord<S>
__device__ __forceinline__ void signal_op(S *sig, S value, shmem::SignalOp op, int pe) {
  S *target = symm_at(sig, pe);
  // SET: the value after it, which the wait it releases observes (a flow in the trace); ADD: the
  // increment, flagged (the value after it is the peer's to know).
  detail::trace(detail::TraceKind::Notify, target, pe, static_cast<std::int64_t>(value), 0,
                op == shmem::SignalOp::Add ? 1 : 0);
  if (op == shmem::SignalOp::Add) {
    ptx::red_release_add(target, value, detail::scope());
  } else {
    ptx::store_release(target, value, detail::scope());
  }
}

// Waits until this PE's *sig satisfies cmp value; returns the value that did.
template <class S>
  requires detail::IntegerWord<S>
__device__ __forceinline__ S signal_wait_until(S *sig, shmem::Cmp cmp, S value) {
  return detail::wait_word<S>(sig, cmp, value, "tdist::device::signal_wait_until");
}

template <class T>
  requires detail::IntegerWord<T>
__device__ __forceinline__ void wait_until(T *ivar, shmem::Cmp cmp, T value) {
  detail::wait_word<T>(ivar, cmp, value, "tdist::device::wait_until");
}

// One acquire load: true when this PE's *ivar satisfies cmp value now.
template <class T>
  requires detail::IntegerWord<T>
__device__ __forceinline__ bool test(T *ivar, shmem::Cmp cmp, T value) {
  return detail::satisfies(ptx::load_acquire(ivar, detail::scope()), cmp, value);
}

}  // namespace tdist::device
