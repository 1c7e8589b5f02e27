// tdist/device/rma.cuh - one-sided transfers on the MTE path: p, g, putmem, getmem and
// putmem_signal, each in thread, warp and block forms, blocking and _nbi.
//
// MTE is the SM's own loads and stores through the peer mapping (symm_at): a put is a run of
// stores into pe's segment, a get a run of loads from it. Once the stores are issued nothing is
// left to wait for locally, so a blocking put and its _nbi form are the same stores; either is
// visible to others after quiet/fence or a signal, as OpenSHMEM specifies. Put-with-signal is the
// data, then a fence, then the signal, so the signal never overtakes its data.
//
// Copies move the widest unit that both addresses allow: when dest and src are congruent modulo
// 16 (8, 4), a few head bytes bring them to that alignment, the body moves in 16-byte (8, 4)
// vectors and the tail in bytes. Cooperative forms split every part across the group's threads
// in interleaved order, so that neighbouring lanes touch neighbouring vectors (coalesced), and
// each thread keeps four loads in flight before its stores (a load from a peer is slow: NVLink).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tdist/device/dl.cuh"
#include "tdist/device/signal.cuh"

namespace tdist::device {
namespace detail {

enum class Group { Thread, Warp, Block };

// This thread's place among the threads that share one call.
struct CopyShare {
  unsigned rank;
  unsigned ranks;
};

template <Group G>
__device__ __forceinline__ CopyShare share() {
  if constexpr (G == Group::Thread) {
    return CopyShare{0, 1};
  } else if constexpr (G == Group::Warp) {
    return CopyShare{ptx::lane_id(), 32};
  } else {
    unsigned linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    return CopyShare{linear, blockDim.x * blockDim.y * blockDim.z};
  }
}

// Every thread of the group has finished its part (and its stores are ordered for the others).
template <Group G>
__device__ __forceinline__ void group_sync() {
  if constexpr (G == Group::Warp) {
    __syncwarp();
  } else if constexpr (G == Group::Block) {
    __syncthreads();
  }
}

template <class Unit>
__device__ __forceinline__ void copy_units(std::byte *dest, const std::byte *src, std::size_t count, CopyShare me) {
  auto *d = reinterpret_cast<Unit *>(dest);
  auto *s = reinterpret_cast<const Unit *>(src);
  std::size_t step = me.ranks;
  std::size_t i = me.rank;
  for (; i + 3 * step < count; i += 4 * step) {
    Unit a = s[i], b = s[i + step], c = s[i + 2 * step], e = s[i + 3 * step];
    d[i] = a;
    d[i + step] = b;
    d[i + 2 * step] = c;
    d[i + 3 * step] = e;
  }
  for (; i < count; i += step) d[i] = s[i];
}

// dest and src are congruent modulo sizeof(Unit).
template <class Unit>
__device__ __forceinline__ void copy_aligned(std::byte *dest, const std::byte *src, std::size_t n, CopyShare me) {
  std::size_t head = (0 - reinterpret_cast<std::uintptr_t>(dest)) & (sizeof(Unit) - 1);
  if (head > n) head = n;
  copy_units<std::uint8_t>(dest, src, head, me);
  std::size_t body = (n - head) / sizeof(Unit);
  copy_units<Unit>(dest + head, src + head, body, me);
  std::size_t done = head + body * sizeof(Unit);
  copy_units<std::uint8_t>(dest + done, src + done, n - done, me);
}

__device__ __forceinline__ void copy(void *dest, const void *src, std::size_t n, CopyShare me) {
  auto *d = static_cast<std::byte *>(dest);
  auto *s = static_cast<const std::byte *>(src);
  std::uintptr_t skew = reinterpret_cast<std::uintptr_t>(d) ^ reinterpret_cast<std::uintptr_t>(s);
  if ((skew & 15) == 0) {
    copy_aligned<int4>(d, s, n, me);
  } else if ((skew & 7) == 0) {
    copy_aligned<uint2>(d, s, n, me);
  } else if ((skew & 3) == 0) {
    copy_aligned<std::uint32_t>(d, s, n, me);
  } else {
    copy_units<std::uint8_t>(d, s, n, me);
  }
}

// The group's first thread records the transfer (trace.cuh): put 0, get 1, put-with-signal 2,
// the SMs' own loads and stores (engine 0, MTE).
__device__ __forceinline__ void trace_transfer(TraceKind kind, CopyShare me, std::uint16_t what, int pe,
                                               std::size_t n) {
  if (me.rank == 0) trace(kind, nullptr, pe, static_cast<std::int64_t>(n), 0, what);
}

template <Group G>
__device__ __forceinline__ void put(void *dest, const void *src, std::size_t n, int pe) {
  CopyShare me = share<G>();
  trace_transfer(TraceKind::TransferBegin, me, 0, pe, n);
  copy(symm_at(dest, pe), src, n, me);
  group_sync<G>();
  trace_transfer(TraceKind::TransferEnd, me, 0, pe, n);
}

template <Group G>
__device__ __forceinline__ void get(void *dest, const void *src, std::size_t n, int pe) {
  CopyShare me = share<G>();
  trace_transfer(TraceKind::TransferBegin, me, 1, pe, n);
  copy(dest, symm_at(src, pe), n, me);
  group_sync<G>();
  trace_transfer(TraceKind::TransferEnd, me, 1, pe, n);
}

// The group copies, meets, and its first thread fences and signals.
template <Group G, class S>
__device__ __forceinline__ void put_signal(void *dest, const void *src, std::size_t n, S *sig, S value,
                                           shmem::SignalOp op, int pe) {
  CopyShare me = share<G>();
  trace_transfer(TraceKind::TransferBegin, me, 2, pe, n);
  copy(symm_at(dest, pe), src, n, me);
  group_sync<G>();
  if (me.rank == 0) {
    fence();
    signal_op(sig, value, op, pe);
  }
  trace_transfer(TraceKind::TransferEnd, me, 2, pe, n);
}

}  // namespace detail

// Single elements. Volatile, so that a loop of g() polls and p() is never merged or dropped.
template <class T>
__device__ __forceinline__ void p(T *dest, T value, int pe) {
  if constexpr (std::is_arithmetic_v<T>) {
    *reinterpret_cast<volatile T *>(symm_at(dest, pe)) = value;
  } else {
    *symm_at(dest, pe) = value;
  }
}

template <class T>
__device__ __forceinline__ T g(const T *src, int pe) {
  if constexpr (std::is_arithmetic_v<T>) {
    return *reinterpret_cast<const volatile T *>(symm_at(src, pe));
  } else {
    return *symm_at(src, pe);
  }
}

// Warp forms: all 32 lanes call with the same arguments. Block forms: every thread of the block.

__device__ __forceinline__ void putmem(void *dest, const void *src, std::size_t n, int pe) {
  detail::put<detail::Group::Thread>(dest, src, n, pe);
}
__device__ __forceinline__ void putmem_warp(void *dest, const void *src, std::size_t n, int pe) {
  detail::put<detail::Group::Warp>(dest, src, n, pe);
}
__device__ __forceinline__ void putmem_block(void *dest, const void *src, std::size_t n, int pe) {
  detail::put<detail::Group::Block>(dest, src, n, pe);
}
__device__ __forceinline__ void putmem_nbi(void *dest, const void *src, std::size_t n, int pe) {
  detail::put<detail::Group::Thread>(dest, src, n, pe);
}
__device__ __forceinline__ void putmem_warp_nbi(void *dest, const void *src, std::size_t n, int pe) {
  detail::put<detail::Group::Warp>(dest, src, n, pe);
}
__device__ __forceinline__ void putmem_block_nbi(void *dest, const void *src, std::size_t n, int pe) {
  detail::put<detail::Group::Block>(dest, src, n, pe);
}

__device__ __forceinline__ void getmem(void *dest, const void *src, std::size_t n, int pe) {
  detail::get<detail::Group::Thread>(dest, src, n, pe);
}
__device__ __forceinline__ void getmem_warp(void *dest, const void *src, std::size_t n, int pe) {
  detail::get<detail::Group::Warp>(dest, src, n, pe);
}
__device__ __forceinline__ void getmem_block(void *dest, const void *src, std::size_t n, int pe) {
  detail::get<detail::Group::Block>(dest, src, n, pe);
}
__device__ __forceinline__ void getmem_nbi(void *dest, const void *src, std::size_t n, int pe) {
  detail::get<detail::Group::Thread>(dest, src, n, pe);
}
__device__ __forceinline__ void getmem_warp_nbi(void *dest, const void *src, std::size_t n, int pe) {
  detail::get<detail::Group::Warp>(dest, src, n, pe);
}
__device__ __forceinline__ void getmem_block_nbi(void *dest, const void *src, std::size_t n, int pe) {
  detail::get<detail::Group::Block>(dest, src, n, pe);
}

template <class S>
  requires detail::IntegerWord<S>
__device__ __forceinline__ void putmem_signal(void *dest, const void *src, std::size_t n, S *sig, S value,
                                              shmem::SignalOp op, int pe) {
  detail::put_signal<detail::Group::Thread>(dest, src, n, sig, value, op, pe);
}
template <class S>
  requires detail::IntegerWord<S>
__device__ __forceinline__ void putmem_signal_warp(void *dest, const void *src, std::size_t n, S *sig, S value,
                                                   shmem::SignalOp op, int pe) {
  detail::put_signal<detail::Group::Warp>(dest, src, n, sig, value, op, pe);
}
template <class S>
  requires detail::IntegerWord<S>
__device__ __forceinline__ void putmem_signal_block(void *dest, const void *src, std::size_t n, S *sig, S value,
                                                    shmem::SignalOp op, int pe) {
  detail::put_signal<detail::Group::Block>(dest, src, n, sig, value, op, pe);
}
template <class S>
  requires detail::IntegerWord<S>
__device__ __forceinline__ void putmem_signal_nbi(void *dest, const void *src, std::size_t n, S *sig, S value,
                                                  shmem::SignalOp op, int pe) {
  detail::put_signal<detail::Group::Thread>(dest, src, n, sig, value, op, pe);
}
template <class S>
  requires detail::IntegerWord<S>
__device__ __forceinline__ void putmem_signal_warp_nbi(void *dest, const void *src, std::size_t n, S *sig,
                                                       S value, shmem::SignalOp op, int pe) {
  detail::put_signal<detail::Group::Warp>(dest, src, n, sig, value, op, pe);
}
template <class S>
  requires detail::IntegerWord<S>
__device__ __forceinline__ void putmem_signal_block_nbi(void *dest, const void *src, std::size_t n, S *sig,
                                                        S value, shmem::SignalOp op, int pe) {
  detail::put_signal<detail::Group::Block>(dest, src, n, sig, value, op, pe);
}

}  // namespace tdist::device
