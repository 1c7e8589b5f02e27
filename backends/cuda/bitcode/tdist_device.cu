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
// The state is the visible global tdist_device_state (TDIST_DEVICE_STATE_EXTERNAL, state.cuh):
// the runtime fills it in each module that holds it when it attaches the module.
#define TDIST_DEVICE_STATE_EXTERNAL 1

#include <cstddef>
#include <cstdint>

#include "tdist/device/dl.cuh"
#include "tdist/device/rma.cuh"
#include "tdist/device/signal.cuh"

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
