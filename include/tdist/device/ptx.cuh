// tdist/device/ptx.cuh - the ordered memory operations every primitive is built from, in inline PTX
// at system scope.
//
// Why inline PTX: a peer PE is another process (possibly on the same GPU under MPS, possibly
// another GPU over NVLink), so every synchronising access needs `.sys` scope and an explicit
// order. CUDA's atomicAdd and LLVM's atomicrmw lower to `atom.global.add` (relaxed, .gpu scope),
// which is too weak for a signal that publishes data to another process; so loads, stores,
// reductions, atomics and fences are spelled out here, once, and nothing else emits them. The
// one GPU-scope operation, atomic_fetch_add_gpu, is for a PE's private counters that no other
// process ever reads.
//
// Values travel as their bits: a template picks the 32- or 64-bit form by size, so int32/uint32/
// float share one instruction and int64/uint64/double another (two's complement makes signed and
// unsigned add identical). Addresses are converted to the global window first, as `.global`
// requires; symmetric heaps and host-mapped words are all global memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tdist::device::ptx {

// A value that one 8/16/32/64-bit access moves whole.
template <class T>
concept Word = std::is_trivially_copyable_v<T> &&
               (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

// A value that the 32/64-bit atomics handle (PTX atomics have no 8/16-bit forms).
template <class T>
concept AtomicWord = std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

// Integers whose add is the two's complement add of their bits.
template <class T>
concept AtomicInteger = std::is_integral_v<T> && AtomicWord<T>;

// The unsigned integer of T's size: how T sits in a register.
template <class T>
using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t,
             std::conditional_t<sizeof(T) == 4, std::uint32_t,
             std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint8_t>>>;

// memcpy, not std::bit_cast: a host constexpr function would need --expt-relaxed-constexpr.
template <class To, class From>
__device__ __forceinline__ To bits_as(From value) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  std::memcpy(&out, &value, sizeof(To));
  return out;
}

__device__ __forceinline__ std::size_t global(const volatile void *address) {
  return __cvta_generic_to_global(const_cast<const void *>(address));
}

template <Word T>
__device__ __forceinline__ T load_acquire(const T *address) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    std::uint64_t v;
    asm volatile("ld.acquire.sys.global.b64 %0, [%1];" : "=l"(v) : "l"(at) : "memory");
    return bits_as<T>(v);
  } else if constexpr (sizeof(T) == 4) {
    std::uint32_t v;
    asm volatile("ld.acquire.sys.global.b32 %0, [%1];" : "=r"(v) : "l"(at) : "memory");
    return bits_as<T>(v);
  } else if constexpr (sizeof(T) == 2) {
    std::uint16_t v;
    asm volatile("ld.acquire.sys.global.b16 %0, [%1];" : "=h"(v) : "l"(at) : "memory");
    return bits_as<T>(v);
  } else {
    // ld may fill a register wider than its type; a byte has no register of its own.
    std::uint32_t v;
    asm volatile("ld.acquire.sys.global.u8 %0, [%1];" : "=r"(v) : "l"(at) : "memory");
    return bits_as<T>(static_cast<std::uint8_t>(v));
  }
}

template <Word T>
__device__ __forceinline__ void store_release(T *address, T value) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    asm volatile("st.release.sys.global.b64 [%0], %1;" : : "l"(at), "l"(bits_as<std::uint64_t>(value)) : "memory");
  } else if constexpr (sizeof(T) == 4) {
    asm volatile("st.release.sys.global.b32 [%0], %1;" : : "l"(at), "r"(bits_as<std::uint32_t>(value)) : "memory");
  } else if constexpr (sizeof(T) == 2) {
    asm volatile("st.release.sys.global.b16 [%0], %1;" : : "l"(at), "h"(bits_as<std::uint16_t>(value)) : "memory");
  } else {
    std::uint32_t v = bits_as<std::uint8_t>(value);
    asm volatile("st.release.sys.global.u8 [%0], %1;" : : "l"(at), "r"(v) : "memory");
  }
}

// Adds without returning the old value: the release half of a signal ADD.
template <AtomicInteger T>
__device__ __forceinline__ void red_release_add(T *address, T value) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    asm volatile("red.release.sys.global.add.u64 [%0], %1;"
                 : : "l"(at), "l"(bits_as<std::uint64_t>(value)) : "memory");
  } else {
    asm volatile("red.release.sys.global.add.u32 [%0], %1;"
                 : : "l"(at), "r"(bits_as<std::uint32_t>(value)) : "memory");
  }
}

template <AtomicInteger T>
__device__ __forceinline__ T atomic_fetch_add(T *address, T value) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    std::uint64_t old;
    asm volatile("atom.acq_rel.sys.global.add.u64 %0, [%1], %2;"
                 : "=l"(old) : "l"(at), "l"(bits_as<std::uint64_t>(value)) : "memory");
    return bits_as<T>(old);
  } else {
    std::uint32_t old;
    asm volatile("atom.acq_rel.sys.global.add.u32 %0, [%1], %2;"
                 : "=r"(old) : "l"(at), "r"(bits_as<std::uint32_t>(value)) : "memory");
    return bits_as<T>(old);
  }
}

// The same at GPU scope, for words only one PE's own kernels touch (the kernel library's arrival
// counts): every thread that may observe it runs on this GPU.
template <AtomicInteger T>
__device__ __forceinline__ T atomic_fetch_add_gpu(T *address, T value) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    std::uint64_t old;
    asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], %2;"
                 : "=l"(old) : "l"(at), "l"(bits_as<std::uint64_t>(value)) : "memory");
    return bits_as<T>(old);
  } else {
    std::uint32_t old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;"
                 : "=r"(old) : "l"(at), "r"(bits_as<std::uint32_t>(value)) : "memory");
    return bits_as<T>(old);
  }
}

template <AtomicWord T>
__device__ __forceinline__ T atomic_exchange(T *address, T value) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    std::uint64_t old;
    asm volatile("atom.acq_rel.sys.global.exch.b64 %0, [%1], %2;"
                 : "=l"(old) : "l"(at), "l"(bits_as<std::uint64_t>(value)) : "memory");
    return bits_as<T>(old);
  } else {
    std::uint32_t old;
    asm volatile("atom.acq_rel.sys.global.exch.b32 %0, [%1], %2;"
                 : "=r"(old) : "l"(at), "r"(bits_as<std::uint32_t>(value)) : "memory");
    return bits_as<T>(old);
  }
}

// Stores value if *address equals expected; returns what *address held.
template <AtomicWord T>
__device__ __forceinline__ T atomic_compare_exchange(T *address, T expected, T value) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    std::uint64_t old;
    asm volatile("atom.acq_rel.sys.global.cas.b64 %0, [%1], %2, %3;"
                 : "=l"(old)
                 : "l"(at), "l"(bits_as<std::uint64_t>(expected)), "l"(bits_as<std::uint64_t>(value))
                 : "memory");
    return bits_as<T>(old);
  } else {
    std::uint32_t old;
    asm volatile("atom.acq_rel.sys.global.cas.b32 %0, [%1], %2, %3;"
                 : "=r"(old)
                 : "l"(at), "r"(bits_as<std::uint32_t>(expected)), "r"(bits_as<std::uint32_t>(value))
                 : "memory");
    return bits_as<T>(old);
  }
}

// Orders every earlier access of this thread before every later one, for all observers.
__device__ __forceinline__ void fence_sc_sys() { asm volatile("fence.sc.sys;" : : : "memory"); }

// Nanoseconds of the GPU's global clock: the same on every SM, coarse (up to a microsecond a tick).
__device__ __forceinline__ std::uint64_t global_timer() {
  std::uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

}  // namespace tdist::device::ptx
