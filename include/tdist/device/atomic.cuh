// tdist/device/atomic.cuh - OpenSHMEM atomics on pe's copy of a symmetric word.
//
// Every one is a single system-scope access through the peer mapping: fetch an acquire load, set a
// release store, and the read-modify-writes `atom.acq_rel.sys`, so that an atomic used as a flag
// or a ticket also orders the data around it, as seen from every PE. int32/uint32/int64/uint64
// (and other 4/8-byte integers such as long long) everywhere; fetch, set and swap also move float
// and double, as their bits.
#pragma once

#include <type_traits>

#include "tdist/device/dl.cuh"
#include "tdist/device/ptx.cuh"

namespace tdist::device {
namespace detail {

template <class T>
concept AtomicValue = IntegerWord<T> || std::is_same_v<T, float> || std::is_same_v<T, double>;

}  // namespace detail

template <class T>
  requires detail::AtomicValue<T>
__device__ __forceinline__ T atomic_fetch(const T *source, int pe) {
  return ptx::load_acquire(symm_at(source, pe), detail::scope());
}

template <class T>
  requires detail::AtomicValue<T>
__device__ __forceinline__ void atomic_set(T *dest, T value, int pe) {
  ptx::store_release(symm_at(dest, pe), value, detail::scope());
}

template <class T>
  requires detail::AtomicValue<T>
__device__ __forceinline__ T atomic_swap(T *dest, T value, int pe) {
  return ptx::atomic_exchange(symm_at(dest, pe), value, detail::scope());
}

// Stores value if pe's *dest equals cond; returns what it held.
template <class T>
  requires detail::IntegerWord<T>
__device__ __forceinline__ T atomic_compare_swap(T *dest, T cond, T value, int pe) {
  return ptx::atomic_compare_exchange(symm_at(dest, pe), cond, value, detail::scope());
}

template <class T>
  requires detail::IntegerWord<T>
__device__ __forceinline__ T atomic_fetch_add(T *dest, T value, int pe) {
  return ptx::atomic_fetch_add(symm_at(dest, pe), value, detail::scope());
}

template <class T>
  requires detail::IntegerWord<T>
__device__ __forceinline__ T atomic_fetch_inc(T *dest, int pe) {
  return ptx::atomic_fetch_add(symm_at(dest, pe), T{1}, detail::scope());
}

// The non-fetching forms are the same acq_rel atomic with the result dropped, not a `red`: an
// OpenSHMEM atomic orders like any other, whether or not its caller reads the old value.
template <class T>
  requires detail::IntegerWord<T>
__device__ __forceinline__ void atomic_add(T *dest, T value, int pe) {
  (void)ptx::atomic_fetch_add(symm_at(dest, pe), value, detail::scope());
}

template <class T>
  requires detail::IntegerWord<T>
__device__ __forceinline__ void atomic_inc(T *dest, int pe) {
  (void)ptx::atomic_fetch_add(symm_at(dest, pe), T{1}, detail::scope());
}

}  // namespace tdist::device
