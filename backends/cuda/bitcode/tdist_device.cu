// backends/cuda/bitcode/tdist_device.cu - the device library's entry points for code that links
// LLVM bitcode instead of including the headers: Triton kernels (tdist.language) and the
// distributed dialect's cuda path. Compiled by clang (CUDA, device only) into libtdist_device.bc
// from the same headers that CUDA C++ kernels include; every entry point is one call of the
// header's function, with C types:
//   addresses are 64-bit integers (Triton passes a pointer as ptr.to(tl.int64, bitcast=True): its
//   externs take no pointer types); S is one of i32, i64, u64 (the signal words); op: 0 SET, 1 ADD (dl::SignalOp and
//   shmem::SignalOp differ in their numbering; this layer takes the one above); cmp: shmem::Cmp's
//   numbering (EQ 0, NE 1, GT 2, GE 3, LT 4, LE 5). An entry point with nothing to return returns
//   0 (an int32): Triton's externs must produce a value.
// Two families of entry points:
//   tdist_*          thread scope: the calling thread does the operation, as a CUDA C++ thread
//                    calling the header's function would (the dialect's cuda path);
//   tdist_program_*  program scope, for Triton (tdist.language): every thread of the program (the
//                    CTA) calls them, with the same arguments, as Triton runs scalar code; the
//                    operation happens once for the program, ordered after what every thread did
//                    before it (a CTA barrier, then its first thread), and a value it returns is
//                    the same in every thread. wait and signal_wait_until end with a CTA barrier, so
//                    no thread of the program goes on before the condition holds. A program of
//                    one warp (num_warps=1, what latency-bound kernels use) takes the warp's barrier
//                    instead of the CTA's and a shuffle instead of shared memory, and its waits poll
//                    in every lane (one load instruction a poll) with the first lane keeping the
//                    books (wait.cuh, WaitRole): no lane spins alone while the others are parked.
// The state is the visible global tdist_device_state (TDIST_DEVICE_STATE_EXTERNAL, state.cuh):
// the runtime fills it in each module that holds it when it attaches the module.
#define TDIST_DEVICE_STATE_EXTERNAL 1

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common/memref_descriptor.h"
#include "tdist/device/atomic.cuh"
#include "tdist/device/dl.cuh"
#include "tdist/device/rma.cuh"
#include "tdist/device/signal.cuh"
#include "tdist/device/team.cuh"

namespace dev = tdist::device;

namespace {

__device__ __forceinline__ tdist::shmem::SignalOp shmemOp(int op) {
  return op == 1 ? tdist::shmem::SignalOp::Add : tdist::shmem::SignalOp::Set;
}
__device__ __forceinline__ tdist::dl::SignalOp dlOp(int op) {
  return op == 1 ? tdist::dl::SignalOp::Add : tdist::dl::SignalOp::Set;
}

template <class T = void>
__device__ __forceinline__ T *at(std::uint64_t address) {
  return reinterpret_cast<T *>(static_cast<std::uintptr_t>(address));
}

// ---- program scope ---------------------------------------------------------------------------
__device__ __forceinline__ unsigned programThread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ unsigned programThreads() { return blockDim.x * blockDim.y * blockDim.z; }

// TDIST_PROGRAM_WARP=0 builds the CTA path for every program (to compare the two).
#ifndef TDIST_PROGRAM_WARP
#define TDIST_PROGRAM_WARP 1
#endif
constexpr unsigned kFullWarp = 0xffffffffu;

// A program of exactly one warp, every lane of it calling (Triton runs scalar code in every thread).
__device__ __forceinline__ bool oneWarp() { return TDIST_PROGRAM_WARP != 0 && programThreads() == 32; }

// The first lane's word in every lane of a one-warp program, ordered after what the first lane
// did (the warp barrier orders memory among its lanes).
template <class R>
__device__ __forceinline__ R fromFirstLane(R value) {
  __syncwarp();
  return static_cast<R>(__shfl_sync(kFullWarp, static_cast<unsigned long long>(value), 0));
}

// The first thread's result, handed to every thread of the program.
__shared__ std::uint64_t program_value;

// Runs op (returning a word of type R, or nothing) once for the program, after a CTA barrier (the
// warp's, for one warp), and returns its result to every thread.
template <class R, class Op>
__device__ __forceinline__ R onceForProgram(Op op) {
  if (oneWarp()) {
    __syncwarp();
    if constexpr (std::is_void_v<R>) {
      if (programThread() == 0) op();
      return;
    } else {
      R result{};
      if (programThread() == 0) result = op();
      return fromFirstLane(result);
    }
  }
  __syncthreads();
  if constexpr (std::is_void_v<R>) {
    if (programThread() == 0) op();
    return;
  } else {
    if (programThread() == 0) program_value = static_cast<std::uint64_t>(op());
    __syncthreads();
    return static_cast<R>(program_value);
  }
}

}  // namespace

extern "C" {

// ---- identity and addresses (dl.rank, dl.num_ranks, dl.symm_at) ------------------------------
__device__ int tdist_rank() { return dev::rank(); }
__device__ int tdist_num_ranks() { return dev::num_ranks(); }
__device__ std::uint64_t tdist_symm_at(std::uint64_t ptr, int pe) {
  return reinterpret_cast<std::uintptr_t>(dev::symm_at(at(ptr), pe));
}

// ---- dl.notify and dl.wait (the token is the observed bits, for consume_token) ---------------
#define TDIST_BITCODE_DL(NAME, S)                                                                  \
  __device__ int tdist_notify_##NAME(std::uint64_t sig, int pe, S value, int op) {                 \
    dev::notify(at<S>(sig), pe, value, dlOp(op));                                                  \
    return 0;                                                                                      \
  }                                                                                                \
  __device__ std::uint64_t tdist_wait_##NAME(std::uint64_t sig, int n, S value) {                  \
    return dev::wait(at<S>(sig), n, value).value;                                                  \
  }
TDIST_BITCODE_DL(i32, std::int32_t)
TDIST_BITCODE_DL(i64, std::int64_t)
TDIST_BITCODE_DL(u64, std::uint64_t)
#undef TDIST_BITCODE_DL

// ---- RMA (one thread; the warp and block forms need every thread of their group) -------------
__device__ int tdist_putmem(std::uint64_t dest, std::uint64_t src, std::size_t n, int pe) {
  dev::putmem(at(dest), at<const void>(src), n, pe);
  return 0;
}
__device__ int tdist_getmem(std::uint64_t dest, std::uint64_t src, std::size_t n, int pe) {
  dev::getmem(at(dest), at<const void>(src), n, pe);
  return 0;
}
__device__ int tdist_putmem_nbi(std::uint64_t dest, std::uint64_t src, std::size_t n, int pe) {
  dev::putmem_nbi(at(dest), at<const void>(src), n, pe);
  return 0;
}
__device__ int tdist_getmem_nbi(std::uint64_t dest, std::uint64_t src, std::size_t n, int pe) {
  dev::getmem_nbi(at(dest), at<const void>(src), n, pe);
  return 0;
}
__device__ int tdist_putmem_warp(std::uint64_t dest, std::uint64_t src, std::size_t n, int pe) {
  dev::putmem_warp(at(dest), at<const void>(src), n, pe);
  return 0;
}
__device__ int tdist_putmem_block(std::uint64_t dest, std::uint64_t src, std::size_t n, int pe) {
  dev::putmem_block(at(dest), at<const void>(src), n, pe);
  return 0;
}

// ---- signals ---------------------------------------------------------------------------------
#define TDIST_BITCODE_SIGNAL(NAME, S)                                                              \
  __device__ int tdist_signal_op_##NAME(std::uint64_t sig, S value, int op, int pe) {             \
    dev::signal_op(at<S>(sig), value, shmemOp(op), pe);                                            \
    return 0;                                                                                      \
  }                                                                                                \
  __device__ S tdist_signal_wait_until_##NAME(std::uint64_t sig, int cmp, S value) {               \
    return dev::signal_wait_until(at<S>(sig), static_cast<tdist::shmem::Cmp>(cmp), value);         \
  }                                                                                                \
  __device__ int tdist_putmem_signal_##NAME(std::uint64_t dest, std::uint64_t src, std::size_t n,  \
                                             std::uint64_t sig, S value, int op, int pe) {         \
    dev::putmem_signal(at(dest), at<const void>(src), n, at<S>(sig), value, shmemOp(op), pe);      \
    return 0;                                                                                      \
  }
TDIST_BITCODE_SIGNAL(i32, std::int32_t)
TDIST_BITCODE_SIGNAL(i64, std::int64_t)
TDIST_BITCODE_SIGNAL(u64, std::uint64_t)
#undef TDIST_BITCODE_SIGNAL

// ---- program scope: dl ------------------------------------------------------------------------
// wait: the program's first n threads each wait on one of the n slots (64 bytes apart; threads
// take more than one when n exceeds them), then a CTA barrier; the token folds what the thread saw.
#define TDIST_BITCODE_PROGRAM_DL(NAME, S)                                                          \
  __device__ int tdist_program_notify_##NAME(std::uint64_t sig, int pe, S value, int op) {         \
    onceForProgram<void>([&] { dev::notify(at<S>(sig), pe, value, dlOp(op)); });                  \
    return 0;                                                                                      \
  }                                                                                                \
  __device__ std::uint64_t tdist_program_wait_##NAME(std::uint64_t sig, int n, S value) {          \
    std::uint64_t seen = 0;                                                                        \
    constexpr int kStride = static_cast<int>(dev::kSignalLineBytes / sizeof(S));                   \
    if (oneWarp() && n >= 1 && n <= 32) {                                                          \
      const int lane = static_cast<int>(programThread());                                          \
      const dev::detail::WaitRole role = lane < n ? dev::detail::WaitRole::Leader                   \
                                                  : dev::detail::WaitRole::Follower;               \
      const S ready = dev::detail::wait_word<S>(at<S>(sig) + static_cast<std::ptrdiff_t>(lane % n) * kStride, \
                                                tdist::shmem::Cmp::EQ, value, "tdist::device::wait", role); \
      __syncwarp();                                                                                \
      return lane < n ? static_cast<std::uint64_t>(dev::ptx::bits_as<dev::ptx::Bits<S>>(ready)) : 0; \
    }                                                                                              \
    for (int i = static_cast<int>(programThread()); i < n; i += static_cast<int>(programThreads())) \
      seen ^= dev::wait(at<S>(sig) + static_cast<std::ptrdiff_t>(i) * kStride, 1, value).value;    \
    __syncthreads();                                                                               \
    return seen;                                                                                   \
  }
TDIST_BITCODE_PROGRAM_DL(i32, std::int32_t)
TDIST_BITCODE_PROGRAM_DL(i64, std::int64_t)
TDIST_BITCODE_PROGRAM_DL(u64, std::uint64_t)
#undef TDIST_BITCODE_PROGRAM_DL

// ---- program scope: shmem --------------------------------------------------------------------
// RMA: the block forms (every thread copies its share); signals and atomics: once for the program.
__device__ int tdist_program_putmem(std::uint64_t dest, std::uint64_t src, std::size_t n, int pe) {
  dev::putmem_block(at(dest), at<const void>(src), n, pe);
  return 0;
}
__device__ int tdist_program_getmem(std::uint64_t dest, std::uint64_t src, std::size_t n, int pe) {
  dev::getmem_block(at(dest), at<const void>(src), n, pe);
  return 0;
}
__device__ int tdist_program_putmem_nbi(std::uint64_t dest, std::uint64_t src, std::size_t n, int pe) {
  dev::putmem_block_nbi(at(dest), at<const void>(src), n, pe);
  return 0;
}
__device__ int tdist_program_getmem_nbi(std::uint64_t dest, std::uint64_t src, std::size_t n, int pe) {
  dev::getmem_block_nbi(at(dest), at<const void>(src), n, pe);
  return 0;
}
#define TDIST_BITCODE_PROGRAM_WORD(NAME, S)                                                        \
  __device__ int tdist_program_putmem_signal_##NAME(std::uint64_t dest, std::uint64_t src, std::size_t n, \
                                                     std::uint64_t sig, S value, int op, int pe) { \
    dev::putmem_signal_block(at(dest), at<const void>(src), n, at<S>(sig), value, shmemOp(op), pe); \
    return 0;                                                                                      \
  }                                                                                                \
  __device__ int tdist_program_signal_op_##NAME(std::uint64_t sig, S value, int op, int pe) {      \
    onceForProgram<void>([&] { dev::signal_op(at<S>(sig), value, shmemOp(op), pe); });            \
    return 0;                                                                                      \
  }                                                                                                \
  __device__ S tdist_program_signal_wait_until_##NAME(std::uint64_t sig, int cmp, S value) {       \
    if (oneWarp())                                                                                 \
      return fromFirstLane(dev::detail::wait_word<S>(                                              \
          at<S>(sig), static_cast<tdist::shmem::Cmp>(cmp), value, "tdist::device::signal_wait_until", \
          programThread() == 0 ? dev::detail::WaitRole::Leader : dev::detail::WaitRole::Follower)); \
    return onceForProgram<S>(                                                                      \
        [&] { return dev::signal_wait_until(at<S>(sig), static_cast<tdist::shmem::Cmp>(cmp), value); }); \
  }                                                                                                \
  __device__ S tdist_program_atomic_fetch_add_##NAME(std::uint64_t dest, S value, int pe) {       \
    return onceForProgram<S>([&] { return dev::atomic_fetch_add(at<S>(dest), value, pe); });       \
  }                                                                                                \
  __device__ S tdist_program_atomic_compare_swap_##NAME(std::uint64_t dest, S cond, S value, int pe) { \
    return onceForProgram<S>([&] { return dev::atomic_compare_swap(at<S>(dest), cond, value, pe); }); \
  }                                                                                                \
  __device__ S tdist_program_atomic_swap_##NAME(std::uint64_t dest, S value, int pe) {             \
    return onceForProgram<S>([&] { return dev::atomic_swap(at<S>(dest), value, pe); });            \
  }                                                                                                \
  __device__ S tdist_program_atomic_fetch_##NAME(std::uint64_t source, int pe) {                   \
    return onceForProgram<S>([&] { return dev::atomic_fetch(at<const S>(source), pe); });          \
  }                                                                                                \
  __device__ int tdist_program_atomic_set_##NAME(std::uint64_t dest, S value, int pe) {            \
    onceForProgram<void>([&] { dev::atomic_set(at<S>(dest), value, pe); });                       \
    return 0;                                                                                      \
  }                                                                                                \
  __device__ int tdist_program_atomic_add_##NAME(std::uint64_t dest, S value, int pe) {            \
    onceForProgram<void>([&] { dev::atomic_add(at<S>(dest), value, pe); });                       \
    return 0;                                                                                      \
  }
TDIST_BITCODE_PROGRAM_WORD(i32, std::int32_t)
TDIST_BITCODE_PROGRAM_WORD(i64, std::int64_t)
TDIST_BITCODE_PROGRAM_WORD(u64, std::uint64_t)
#undef TDIST_BITCODE_PROGRAM_WORD

// quiet and fence: every thread's own operations, then a CTA barrier; the barriers of the world.
__device__ int tdist_program_quiet() {
  dev::quiet();
  __syncthreads();
  return 0;
}
__device__ int tdist_program_fence() {
  dev::fence();
  __syncthreads();
  return 0;
}
__device__ int tdist_program_barrier_all() {
  dev::barrier_all_block();
  return 0;
}
__device__ int tdist_program_sync_all() {
  dev::sync_all_block();
  return 0;
}

// ---- ordering --------------------------------------------------------------------------------
__device__ int tdist_quiet() {
  dev::quiet();
  return 0;
}
__device__ int tdist_fence() {
  dev::fence();
  return 0;
}

}  // extern "C"

// ---- the template library, for the distributed dialect's cuda path ---------------------------
// Compiled IR calls the device library by the link names of seed 001 §4.2 (docs/COMPILER.md):
// `_mlir_ciface_` and the aclshmem symbol, `_m<rank>` per memref, with the C signatures of the cpu
// backend's template library (host/template_library/generate_symbols.cpp), so that one IR file
// links on both: a memref is a pointer to its descriptor (MLIR's C interface), a memref result the
// first parameter; pe, n, sig_op and token are int32, element counts int64; sig_op is aclshmem's
// (SET 0, ADD 1). A wait returns its token as an int32, the token type of the dialect's kernels,
// where the cpu library returns an int64: x86-64 hands its low half to a caller that declared an
// i32, but on the GPU a call whose type differs from its callee's is undefined (NVPTX makes it an
// indirect call through a prototype of the caller's type). The cuda pipeline runs a program of the
// grid as a block of one thread, so each of these is a thread-scope call, done by the caller.
// barrier_all and sync_all are not here: called by every program of a grid they need the programs
// to meet first (the cpu library's host/barrier.cpp), which a kernel of several blocks cannot do
// without a grid barrier; the cuda pipeline reports a module that calls them
// (tdist-check-device-library).
namespace {

// MLIR's descriptor of a strided memref of rank N (the cpu template library's). Its layout does
// not depend on the element type, which only the link name carries.
template <int N>
using MemRef = tdist::memref::Strided<void, N>;

// The element a memref's offset points at: a slot, a signal or the start of a transfer.
template <class T, int N>
__device__ __forceinline__ T *first(const MemRef<N> *memref) {
  return static_cast<T *>(memref->aligned) + memref->offset;
}

template <int N>
__device__ __forceinline__ void symmAt(MemRef<N> *result, const MemRef<N> *in, std::int32_t pe) {
  MemRef<N> moved = *in;
  moved.allocated = dev::symm_at(in->allocated, pe);
  moved.aligned = dev::symm_at(in->aligned, pe);
  *result = moved;
}

template <int N>
__device__ __forceinline__ void consumeToken(MemRef<N> *result, const MemRef<N> *in, std::int32_t token) {
  const tdist::dl::Token made{static_cast<std::uint32_t>(token)};
  MemRef<N> ready = *in;
  ready.allocated = dev::consume_token(in->allocated, made);
  ready.aligned = dev::consume_token(in->aligned, made);
  *result = ready;
}

// The token folds the observed bits (dl.cuh); its low 32 bits carry the dependency as well.
template <class T>
__device__ __forceinline__ std::int32_t waitFor(T *slot, std::int32_t n, T value) {
  return static_cast<std::int32_t>(dev::wait(slot, n, value).value);
}

// A point put is also how the dialect's 64-bit notify SET arrives (aclshmem_int64_p, seed 001
// §3), and a notify is a release store (DESIGN §4), though OpenSHMEM's p promises no order: on the
// cpu every x86 store is one; here a signal word takes signal_op's release store, and any other
// element a fence before its store.
template <class T>
__device__ __forceinline__ void pointPut(T *dest, T value, std::int32_t pe) {
  if constexpr (dev::detail::IntegerWord<T>) {
    dev::signal_op(dest, value, tdist::shmem::SignalOp::Set, pe);
  } else {
    dev::fence();
    dev::p(dest, value, pe);
  }
}

__device__ __forceinline__ std::size_t bytesOf(std::int64_t nelems, std::size_t size) {
  return static_cast<std::size_t>(nelems) * size;
}

}  // namespace

// The element types of the link names ({type}) and how a kernel holds them; the 16-bit floating
// types are only moved (symm_at, consume_token, puts and gets), as on the cpu.
#define TDIST_SCALAR_ELEMENTS(X)                                                                   \
  X(float, float)                                                                                  \
  X(double, double)                                                                                \
  X(int8, std::int8_t)                                                                             \
  X(int16, std::int16_t)                                                                           \
  X(int32, std::int32_t)                                                                           \
  X(int64, std::int64_t)                                                                           \
  X(uint8, std::uint8_t)                                                                           \
  X(uint16, std::uint16_t)                                                                         \
  X(uint32, std::uint32_t)                                                                         \
  X(uint64, std::uint64_t)
#define TDIST_ELEMENTS(X)                                                                          \
  X(bfloat16, std::uint16_t)                                                                       \
  X(half, std::uint16_t)                                                                           \
  TDIST_SCALAR_ELEMENTS(X)

extern "C" {

// ---- identity --------------------------------------------------------------------------------
__device__ std::int32_t _mlir_ciface_aclshmem_my_pe() { return dev::rank(); }
__device__ std::int32_t _mlir_ciface_aclshmem_n_pes() { return dev::num_ranks(); }

// ---- symm_at (aclshmem_ptr on a memref) and consume_token, by element type and rank -----------
#define TDIST_CIFACE_SYMM_AT(NAME, N)                                                              \
  __device__ void _mlir_ciface_aclshmem_ptr_##NAME##_m##N##_m##N(MemRef<N> *result, const MemRef<N> *in, \
                                                                  std::int32_t pe) {               \
    symmAt(result, in, pe);                                                                        \
  }
#define TDIST_CIFACE_CONSUME_TOKEN(NAME, N)                                                        \
  __device__ void _mlir_ciface_aclshmem_consume_token_##NAME##_ptr_##N##d_m##N##_m##N(           \
      MemRef<N> *result, const MemRef<N> *in, std::int32_t token) {                                \
    consumeToken(result, in, token);                                                               \
  }
#define TDIST_CIFACE_MEMORY(NAME, T)                                                               \
  TDIST_CIFACE_SYMM_AT(NAME, 0)                                                                    \
  TDIST_CIFACE_SYMM_AT(NAME, 1)                                                                    \
  TDIST_CIFACE_SYMM_AT(NAME, 2)                                                                    \
  TDIST_CIFACE_SYMM_AT(NAME, 3)                                                                    \
  TDIST_CIFACE_SYMM_AT(NAME, 4)                                                                    \
  TDIST_CIFACE_CONSUME_TOKEN(NAME, 1)                                                              \
  TDIST_CIFACE_CONSUME_TOKEN(NAME, 2)                                                              \
  TDIST_CIFACE_CONSUME_TOKEN(NAME, 3)                                                              \
  TDIST_CIFACE_CONSUME_TOKEN(NAME, 4)                                                              \
  __device__ void _mlir_ciface_aclshmem_consume_token_##NAME##_ptr_1d_m0_m0(                      \
      MemRef<0> *result, const MemRef<0> *in, std::int32_t token) {                                \
    consumeToken(result, in, token);                                                               \
  }
TDIST_ELEMENTS(TDIST_CIFACE_MEMORY)
#undef TDIST_CIFACE_MEMORY
#undef TDIST_CIFACE_CONSUME_TOKEN
#undef TDIST_CIFACE_SYMM_AT

// ---- wait (slot, n, value) and the point put (dest, value, pe) and get (source, pe) -----------
#define TDIST_CIFACE_WORD(NAME, T)                                                                 \
  __device__ std::int32_t _mlir_ciface_aclshmem_wait_##NAME(T *slot, std::int32_t n, T value) {    \
    return waitFor(slot, n, value);                                                                \
  }                                                                                                \
  __device__ std::int32_t _mlir_ciface_aclshmem_wait_##NAME##_m0(MemRef<0> *slot, std::int32_t n, T value) { \
    return waitFor(first<T>(slot), n, value);                                                      \
  }                                                                                                \
  __device__ std::int32_t _mlir_ciface_aclshmem_wait_##NAME##_m1(MemRef<1> *slot, std::int32_t n, T value) { \
    return waitFor(first<T>(slot), n, value);                                                      \
  }                                                                                                \
  __device__ void _mlir_ciface_aclshmem_##NAME##_p(T *dest, T value, std::int32_t pe) { pointPut(dest, value, pe); } \
  __device__ void _mlir_ciface_aclshmem_##NAME##_p_m0(MemRef<0> *dest, T value, std::int32_t pe) { \
    pointPut(first<T>(dest), value, pe);                                                           \
  }                                                                                                \
  __device__ void _mlir_ciface_aclshmem_##NAME##_p_m1(MemRef<1> *dest, T value, std::int32_t pe) { \
    pointPut(first<T>(dest), value, pe);                                                           \
  }                                                                                                \
  __device__ T _mlir_ciface_aclshmem_##NAME##_g(T *source, std::int32_t pe) { return dev::g(source, pe); } \
  __device__ T _mlir_ciface_aclshmem_##NAME##_g_m0(MemRef<0> *source, std::int32_t pe) {          \
    return dev::g(first<T>(source), pe);                                                           \
  }                                                                                                \
  __device__ T _mlir_ciface_aclshmem_##NAME##_g_m1(MemRef<1> *source, std::int32_t pe) {          \
    return dev::g(first<T>(source), pe);                                                           \
  }
TDIST_SCALAR_ELEMENTS(TDIST_CIFACE_WORD)
#undef TDIST_CIFACE_WORD

// ---- notify: aclshmemx_signal_op on an int32 signal (sig, value, sig_op, pe) ------------------
__device__ void _mlir_ciface_aclshmemx_signal_op(std::int32_t *sig, std::int32_t value, std::int32_t sig_op,
                                                 std::int32_t pe) {
  dev::signal_op(sig, value, shmemOp(sig_op), pe);
}
__device__ void _mlir_ciface_aclshmemx_signal_op_m0(MemRef<0> *sig, std::int32_t value, std::int32_t sig_op,
                                                    std::int32_t pe) {
  dev::signal_op(first<std::int32_t>(sig), value, shmemOp(sig_op), pe);
}
__device__ void _mlir_ciface_aclshmemx_signal_op_m1(MemRef<1> *sig, std::int32_t value, std::int32_t sig_op,
                                                    std::int32_t pe) {
  dev::signal_op(first<std::int32_t>(sig), value, shmemOp(sig_op), pe);
}

// ---- ordering --------------------------------------------------------------------------------
__device__ void _mlir_ciface_aclshmem_quiet() { dev::quiet(); }
__device__ void _mlir_ciface_aclshmem_fence() { dev::fence(); }

// ---- transfers: bytes (dest, source, bytes, pe), then by element type, pointers and memrefs ---
__device__ void _mlir_ciface_aclshmem_putmem(void *dest, void *source, std::int64_t bytes, std::int32_t pe) {
  dev::putmem(dest, source, bytesOf(bytes, 1), pe);
}
__device__ void _mlir_ciface_aclshmem_getmem(void *dest, void *source, std::int64_t bytes, std::int32_t pe) {
  dev::getmem(dest, source, bytesOf(bytes, 1), pe);
}
__device__ void _mlir_ciface_aclshmem_putmem_nbi(void *dest, void *source, std::int64_t bytes, std::int32_t pe) {
  dev::putmem_nbi(dest, source, bytesOf(bytes, 1), pe);
}
__device__ void _mlir_ciface_aclshmem_getmem_nbi(void *dest, void *source, std::int64_t bytes, std::int32_t pe) {
  dev::getmem_nbi(dest, source, bytesOf(bytes, 1), pe);
}
__device__ void _mlir_ciface_aclshmem_putmem_signal(void *dest, void *source, std::int64_t bytes, std::int32_t *sig,
                                                    std::int32_t signal, std::int32_t sig_op, std::int32_t pe) {
  dev::putmem_signal(dest, source, bytesOf(bytes, 1), sig, signal, shmemOp(sig_op), pe);
}
__device__ void _mlir_ciface_aclshmem_putmem_signal_nbi(void *dest, void *source, std::int64_t bytes,
                                                        std::int32_t *sig, std::int32_t signal, std::int32_t sig_op,
                                                        std::int32_t pe) {
  dev::putmem_signal_nbi(dest, source, bytesOf(bytes, 1), sig, signal, shmemOp(sig_op), pe);
}

#define TDIST_CIFACE_TRANSFER(NAME, T, KIND, MOVE)                                                 \
  __device__ void _mlir_ciface_aclshmem_##NAME##_##KIND(T *dest, T *source, std::int64_t nelems,   \
                                                        std::int32_t pe) {                         \
    MOVE(dest, source, bytesOf(nelems, sizeof(T)), pe);                                            \
  }                                                                                                \
  __device__ void _mlir_ciface_aclshmem_##NAME##_##KIND##_m1_m1(MemRef<1> *dest, MemRef<1> *source, \
                                                                std::int64_t nelems, std::int32_t pe) { \
    MOVE(first<T>(dest), first<T>(source), bytesOf(nelems, sizeof(T)), pe);                        \
  }
#define TDIST_CIFACE_PUT_SIGNAL(NAME, T, KIND, MOVE)                                               \
  __device__ void _mlir_ciface_aclshmem_##NAME##_##KIND(T *dest, T *source, std::int64_t nelems,   \
                                                        std::int32_t *sig, std::int32_t signal,    \
                                                        std::int32_t sig_op, std::int32_t pe) {    \
    MOVE(dest, source, bytesOf(nelems, sizeof(T)), sig, signal, shmemOp(sig_op), pe);              \
  }                                                                                                \
  __device__ void _mlir_ciface_aclshmem_##NAME##_##KIND##_m1_m1_m1(                               \
      MemRef<1> *dest, MemRef<1> *source, std::int64_t nelems, MemRef<1> *sig, std::int32_t signal, \
      std::int32_t sig_op, std::int32_t pe) {                                                      \
    MOVE(first<T>(dest), first<T>(source), bytesOf(nelems, sizeof(T)), first<std::int32_t>(sig), signal, \
         shmemOp(sig_op), pe);                                                                     \
  }
#define TDIST_CIFACE_TRANSFERS(NAME, T)                                                            \
  TDIST_CIFACE_TRANSFER(NAME, T, put, dev::putmem)                                                 \
  TDIST_CIFACE_TRANSFER(NAME, T, get, dev::getmem)                                                 \
  TDIST_CIFACE_TRANSFER(NAME, T, put_nbi, dev::putmem_nbi)                                         \
  TDIST_CIFACE_TRANSFER(NAME, T, get_nbi, dev::getmem_nbi)                                         \
  TDIST_CIFACE_PUT_SIGNAL(NAME, T, put_signal, dev::putmem_signal)                                 \
  TDIST_CIFACE_PUT_SIGNAL(NAME, T, put_signal_nbi, dev::putmem_signal_nbi)
TDIST_ELEMENTS(TDIST_CIFACE_TRANSFERS)
#undef TDIST_CIFACE_TRANSFERS
#undef TDIST_CIFACE_PUT_SIGNAL
#undef TDIST_CIFACE_TRANSFER

}  // extern "C"

#undef TDIST_ELEMENTS
#undef TDIST_SCALAR_ELEMENTS
