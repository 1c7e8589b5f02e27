// backends/cuda/bitcode/tdist_device.cu - the device library's entry points for code that links
// LLVM bitcode instead of including the headers: Triton kernels (tdist.language) and the
// distributed dialect's cuda path. Compiled by clang (CUDA, device only) into libtdist_device.bc
// from the same headers that CUDA C++ kernels include; every entry point is one call of the
// header's function, with C types:
//   S is one of i32, i64, u64 (the signal words); op: 0 SET, 1 ADD (dl::SignalOp and
//   shmem::SignalOp differ in their numbering; this layer takes the one above); cmp: shmem::Cmp's
//   numbering (EQ 0, NE 1, GT 2, GE 3, LT 4, LE 5).
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

}  // namespace

extern "C" {

// ---- identity and addresses (dl.rank, dl.num_ranks, dl.symm_at) ------------------------------
__device__ int tdist_rank() { return dev::rank(); }
__device__ int tdist_num_ranks() { return dev::num_ranks(); }
__device__ void *tdist_symm_at(void *ptr, int pe) { return dev::symm_at(ptr, pe); }

// ---- dl.notify and dl.wait (the token is the observed bits, for consume_token) ---------------
#define TDIST_BITCODE_DL(NAME, S)                                                                  \
  __device__ void tdist_notify_##NAME(S *sig, int pe, S value, int op) { dev::notify(sig, pe, value, dlOp(op)); } \
  __device__ std::uint64_t tdist_wait_##NAME(S *sig, int n, S value) { return dev::wait(sig, n, value).value; }
TDIST_BITCODE_DL(i32, std::int32_t)
TDIST_BITCODE_DL(i64, std::int64_t)
TDIST_BITCODE_DL(u64, std::uint64_t)
#undef TDIST_BITCODE_DL

// ---- RMA (one thread; the warp and block forms need every thread of their group) -------------
__device__ void tdist_putmem(void *dest, const void *src, std::size_t n, int pe) { dev::putmem(dest, src, n, pe); }
__device__ void tdist_getmem(void *dest, const void *src, std::size_t n, int pe) { dev::getmem(dest, src, n, pe); }
__device__ void tdist_putmem_nbi(void *dest, const void *src, std::size_t n, int pe) {
  dev::putmem_nbi(dest, src, n, pe);
}
__device__ void tdist_getmem_nbi(void *dest, const void *src, std::size_t n, int pe) {
  dev::getmem_nbi(dest, src, n, pe);
}
__device__ void tdist_putmem_warp(void *dest, const void *src, std::size_t n, int pe) {
  dev::putmem_warp(dest, src, n, pe);
}
__device__ void tdist_putmem_block(void *dest, const void *src, std::size_t n, int pe) {
  dev::putmem_block(dest, src, n, pe);
}

// ---- signals ---------------------------------------------------------------------------------
#define TDIST_BITCODE_SIGNAL(NAME, S)                                                              \
  __device__ void tdist_signal_op_##NAME(S *sig, S value, int op, int pe) {                        \
    dev::signal_op(sig, value, shmemOp(op), pe);                                                   \
  }                                                                                                \
  __device__ S tdist_signal_wait_until_##NAME(S *sig, int cmp, S value) {                          \
    return dev::signal_wait_until(sig, static_cast<tdist::shmem::Cmp>(cmp), value);                \
  }                                                                                                \
  __device__ void tdist_putmem_signal_##NAME(void *dest, const void *src, std::size_t n, S *sig, S value, int op, \
                                             int pe) {                                             \
    dev::putmem_signal(dest, src, n, sig, value, shmemOp(op), pe);                                 \
  }
TDIST_BITCODE_SIGNAL(i32, std::int32_t)
TDIST_BITCODE_SIGNAL(i64, std::int64_t)
TDIST_BITCODE_SIGNAL(u64, std::uint64_t)
#undef TDIST_BITCODE_SIGNAL

// ---- ordering --------------------------------------------------------------------------------
__device__ void tdist_quiet() { dev::quiet(); }
__device__ void tdist_fence() { dev::fence(); }

}  // extern "C"
