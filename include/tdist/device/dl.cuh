// tdist/device/dl.cuh - the seeds' `dl` primitives for CUDA kernels: rank, num_ranks, symm_at,
// notify, wait, consume_token.
//
// The same semantics as tdist/dl.h on the host (DESIGN §4): notify SET is a release store, ADD an
// atomic add with release order, both at the job's scope (ptx.cuh); wait spins with acquire loads until each of
// n slots (one per 64-byte line) equals the value, never modifies them, and has one deadline for
// the whole call. Every PE's segment is mapped at heap_base + pe * stride in every process, so
// symm_at is arithmetic and a peer's words are reached with ordinary loads and stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tdist/device/ptx.cuh"
#include "tdist/device/state.cuh"
#include "tdist/device/wait.cuh"
#include "tdist/dl.h"

namespace tdist::device {

__device__ __forceinline__ int rank() { return state().my_pe; }
__device__ __forceinline__ int num_ranks() { return state().n_pes; }

// pe's copy of the symmetric object at ptr (a pointer into this PE's segment, or any PE's).
template <class T>
__device__ __forceinline__ T *symm_at(T *ptr, int pe) {
  std::ptrdiff_t delta =
      static_cast<std::ptrdiff_t>(pe - state().my_pe) * static_cast<std::ptrdiff_t>(state().stride);
  return reinterpret_cast<T *>(reinterpret_cast<std::uintptr_t>(ptr) + delta);
}

namespace detail {

// Signals, point-to-point words and atomics: the 4/8-byte integers (int32/uint32/int64/uint64 and
// their aliases), the words the 32/64-bit atomics handle.
template <class T>
concept IntegerWord = std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

// A word of any type that the wait loop compares: the dl dialect allows every fixed-width
// integer, float and double.
template <class S>
concept WaitableWord = (std::is_integral_v<S> || std::is_floating_point_v<S>) && ptx::Word<S>;

}  // namespace detail

// SET stores value into pe's *sig with release order; ADD adds it atomically, release order.
template <class S>
  requires detail::IntegerWord<S>
__device__ __forceinline__ void notify(S *sig, int pe, S value, dl::SignalOp op = dl::SignalOp::Set) {
  S *target = symm_at(sig, pe);
  if (op == dl::SignalOp::Add) {
    ptx::red_release_add(target, value, detail::scope());
  } else {
    ptx::store_release(target, value, detail::scope());
  }
}

// Waits until each of the n local slots sig[0], sig[64 / sizeof(S)], ... equals value; returns a
// token for consume_token. The token carries the observed bits so that later code can depend on
// them (the same fold as the cpu backend's).
template <class S>
  requires detail::WaitableWord<S>
__device__ __forceinline__ dl::Token wait(S *sig, int n, S value) {
  std::uint64_t seen = 0;
  detail::wait_words<S>(sig, n, static_cast<std::ptrdiff_t>(kSignalLineBytes), shmem::Cmp::EQ, value,
                        "tdist::device::wait",
                        [&](S ready) { seen ^= static_cast<std::uint64_t>(ptx::bits_as<ptx::Bits<S>>(ready)); });
  return dl::Token{seen};
}

// Returns x; accesses through the result cannot be moved before the wait that made the token.
// A compiler barrier only: the wait's acquire load already orders the hardware.
template <class T>
__device__ __forceinline__ T consume_token(T x, dl::Token token) {
  if constexpr (std::is_trivially_copyable_v<T> && sizeof(T) == 8) {
    std::uint64_t bits = ptx::bits_as<std::uint64_t>(x);
    asm volatile("" : "+l"(bits) : "l"(token.value) : "memory");
    return ptx::bits_as<T>(bits);
  } else if constexpr (std::is_trivially_copyable_v<T> && sizeof(T) == 4) {
    std::uint32_t bits = ptx::bits_as<std::uint32_t>(x);
    asm volatile("" : "+r"(bits) : "l"(token.value) : "memory");
    return ptx::bits_as<T>(bits);
  } else {
    asm volatile("" : : "l"(token.value) : "memory");
    return x;
  }
}

}  // namespace tdist::device
