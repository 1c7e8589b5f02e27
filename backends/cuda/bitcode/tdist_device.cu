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
//                    no thread of the program goes on before the condition holds.
// The state is the visible global tdist_device_state (TDIST_DEVICE_STATE_EXTERNAL, state.cuh):
// the runtime fills it in each module that holds it when it attaches the module.
#define TDIST_DEVICE_STATE_EXTERNAL 1

#include <cstddef>
#include <cstdint>
#include <type_traits>

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

// The first thread's result, handed to every thread of the program.
__shared__ std::uint64_t program_value;

// Runs op (returning a word of type R, or nothing) once for the program, after a CTA barrier, and
// returns its result to every thread.
template <class R, class Op>
__device__ __forceinline__ R onceForProgram(Op op) {
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
