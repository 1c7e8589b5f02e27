// tdist/device/ptx.cuh - the ordered memory operations every primitive is built from, in inline PTX,
// at the scope the caller names.
//
// Why inline PTX: a peer PE is another process (possibly on the same GPU under MPS, possibly
// another GPU over NVLink), so every synchronising access needs an explicit scope and order.
// CUDA's atomicAdd and LLVM's atomicrmw lower to `atom.global.add` (relaxed, .gpu scope), which
// is too weak for a signal that publishes data to another GPU; so loads, stores, reductions,
// atomics and fences are spelled out here, once, and nothing else emits them.
//
// THE SCOPE. Scope::Sys (`.sys`) reaches every observer: other GPUs over NVLink, the host.
// Scope::Gpu (`.gpu`) reaches every thread running on this GPU, whichever process it belongs
// to: when every PE of a job runs on one GPU (several PEs under MPS), that is every peer, and it
// costs less (an H200 measured 0.5 us a call less for the kernel library's all-reduce). The
// primitives take the job's scope from the device state (state.cuh: detail::scope()); the
// default here is Sys.
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

enum class Scope : int { Sys = 0, Gpu = 1 };

// One asm statement in the two scopes' spellings: `op` ".sys"/".gpu" `rest`.
#define TDIST_PTX_SCOPED(scope, op, rest, ...)                  \
  do {                                                          \
    if ((scope) == ::tdist::device::ptx::Scope::Gpu) {          \
      asm volatile(op ".gpu" rest : __VA_ARGS__);               \
    } else {                                                    \
      asm volatile(op ".sys" rest : __VA_ARGS__);               \
    }                                                           \
  } while (0)

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
__device__ __forceinline__ T load_acquire(const T *address, Scope scope = Scope::Sys) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    std::uint64_t v;
    TDIST_PTX_SCOPED(scope, "ld.acquire", ".global.b64 %0, [%1];", "=l"(v) : "l"(at) : "memory");
    return bits_as<T>(v);
  } else if constexpr (sizeof(T) == 4) {
    std::uint32_t v;
    TDIST_PTX_SCOPED(scope, "ld.acquire", ".global.b32 %0, [%1];", "=r"(v) : "l"(at) : "memory");
    return bits_as<T>(v);
  } else if constexpr (sizeof(T) == 2) {
    std::uint16_t v;
    TDIST_PTX_SCOPED(scope, "ld.acquire", ".global.b16 %0, [%1];", "=h"(v) : "l"(at) : "memory");
    return bits_as<T>(v);
  } else {
    // ld may fill a register wider than its type; a byte has no register of its own.
    std::uint32_t v;
    TDIST_PTX_SCOPED(scope, "ld.acquire", ".global.u8 %0, [%1];", "=r"(v) : "l"(at) : "memory");
    return bits_as<T>(static_cast<std::uint8_t>(v));
  }
}

template <Word T>
__device__ __forceinline__ void store_release(T *address, T value, Scope scope = Scope::Sys) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    TDIST_PTX_SCOPED(scope, "st.release", ".global.b64 [%0], %1;", : "l"(at), "l"(bits_as<std::uint64_t>(value)) : "memory");
  } else if constexpr (sizeof(T) == 4) {
    TDIST_PTX_SCOPED(scope, "st.release", ".global.b32 [%0], %1;", : "l"(at), "r"(bits_as<std::uint32_t>(value)) : "memory");
  } else if constexpr (sizeof(T) == 2) {
    TDIST_PTX_SCOPED(scope, "st.release", ".global.b16 [%0], %1;", : "l"(at), "h"(bits_as<std::uint16_t>(value)) : "memory");
  } else {
    std::uint32_t v = bits_as<std::uint8_t>(value);
    TDIST_PTX_SCOPED(scope, "st.release", ".global.u8 [%0], %1;", : "l"(at), "r"(v) : "memory");
  }
}

// Adds without returning the old value: the release half of a signal ADD.
template <AtomicInteger T>
__device__ __forceinline__ void red_release_add(T *address, T value, Scope scope = Scope::Sys) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    TDIST_PTX_SCOPED(scope, "red.release", ".global.add.u64 [%0], %1;", : "l"(at), "l"(bits_as<std::uint64_t>(value)) : "memory");
  } else {
    TDIST_PTX_SCOPED(scope, "red.release", ".global.add.u32 [%0], %1;", : "l"(at), "r"(bits_as<std::uint32_t>(value)) : "memory");
  }
}

template <AtomicInteger T>
__device__ __forceinline__ T atomic_fetch_add(T *address, T value, Scope scope = Scope::Sys) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    std::uint64_t old;
    TDIST_PTX_SCOPED(scope, "atom.acq_rel", ".global.add.u64 %0, [%1], %2;", "=l"(old) : "l"(at), "l"(bits_as<std::uint64_t>(value)) : "memory");
    return bits_as<T>(old);
  } else {
    std::uint32_t old;
    TDIST_PTX_SCOPED(scope, "atom.acq_rel", ".global.add.u32 %0, [%1], %2;", "=r"(old) : "l"(at), "r"(bits_as<std::uint32_t>(value)) : "memory");
    return bits_as<T>(old);
  }
}

template <AtomicWord T>
__device__ __forceinline__ T atomic_exchange(T *address, T value, Scope scope = Scope::Sys) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    std::uint64_t old;
    TDIST_PTX_SCOPED(scope, "atom.acq_rel", ".global.exch.b64 %0, [%1], %2;", "=l"(old) : "l"(at), "l"(bits_as<std::uint64_t>(value)) : "memory");
    return bits_as<T>(old);
  } else {
    std::uint32_t old;
    TDIST_PTX_SCOPED(scope, "atom.acq_rel", ".global.exch.b32 %0, [%1], %2;", "=r"(old) : "l"(at), "r"(bits_as<std::uint32_t>(value)) : "memory");
    return bits_as<T>(old);
  }
}

// Stores value if *address equals expected; returns what *address held.
template <AtomicWord T>
__device__ __forceinline__ T atomic_compare_exchange(T *address, T expected, T value, Scope scope = Scope::Sys) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    std::uint64_t old;
    TDIST_PTX_SCOPED(scope, "atom.acq_rel", ".global.cas.b64 %0, [%1], %2, %3;", "=l"(old) : "l"(at), "l"(bits_as<std::uint64_t>(expected)), "l"(bits_as<std::uint64_t>(value)) : "memory");
    return bits_as<T>(old);
  } else {
    std::uint32_t old;
    TDIST_PTX_SCOPED(scope, "atom.acq_rel", ".global.cas.b32 %0, [%1], %2, %3;", "=r"(old) : "l"(at), "r"(bits_as<std::uint32_t>(expected)), "r"(bits_as<std::uint32_t>(value)) : "memory");
    return bits_as<T>(old);
  }
}

// Orders every earlier access of this thread before every later one, for every observer in scope.
__device__ __forceinline__ void fence_sc(Scope scope = Scope::Sys) {
  if (scope == Scope::Gpu) {
    asm volatile("fence.sc.gpu;" : : : "memory");
  } else {
    asm volatile("fence.sc.sys;" : : : "memory");
  }
}

// Relaxed accesses (coherent, no order): for a word that publishes nothing written by the kernel
// that stores it, e.g. "this PE's stream has reached call e", whose earlier kernels' writes the
// kernel boundary already made visible.
template <AtomicWord T>
__device__ __forceinline__ T load_relaxed(const T *address, Scope scope = Scope::Sys) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    std::uint64_t v;
    TDIST_PTX_SCOPED(scope, "ld.relaxed", ".global.b64 %0, [%1];", "=l"(v) : "l"(at) : "memory");
    return bits_as<T>(v);
  } else {
    std::uint32_t v;
    TDIST_PTX_SCOPED(scope, "ld.relaxed", ".global.b32 %0, [%1];", "=r"(v) : "l"(at) : "memory");
    return bits_as<T>(v);
  }
}

template <AtomicWord T>
__device__ __forceinline__ void store_relaxed(T *address, T value, Scope scope = Scope::Sys) {
  std::size_t at = global(address);
  if constexpr (sizeof(T) == 8) {
    TDIST_PTX_SCOPED(scope, "st.relaxed", ".global.b64 [%0], %1;", : "l"(at), "l"(bits_as<std::uint64_t>(value)) : "memory");
  } else {
    TDIST_PTX_SCOPED(scope, "st.relaxed", ".global.b32 [%0], %1;", : "l"(at), "r"(bits_as<std::uint32_t>(value)) : "memory");
  }
}

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
