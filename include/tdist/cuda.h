// tdist/cuda.h - host API of the cuda backend: the PE's GPU and stream, and stream-ordered
// puts, signals, waits and barriers (NVSHMEM's *_on_stream family).
//
// Every call here needs the runtime initialized on the cuda backend; otherwise it throws
// tdist::Error. A call on a stream only enqueues work: it is done once the stream reaches it.
// Addresses are symmetric addresses of this PE, translated to pe's copy as tdist/shmem.h does.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "tdist/device/state.h"
#include "tdist/error.h"
#include "tdist/shmem.h"
#include "tdist/trace.h"

// Everything declared here is exported from libtdist_runtime; the rest of it is hidden.
#pragma GCC visibility push(default)

namespace tdist::cuda {

// Registers the publisher of one translation unit's __constant__ device state
// (tdist/device/state.cuh does it at static-init time, possibly before main). The backend calls
// every publisher once the state is filled at init, at once for a registration made after
// init, and with a zeroed state (generation 0) at finalize. Returns the registration's index.
int registerDeviceState(void (*publish)(const device::DeviceState &));

// A module loaded by someone else (Triton's, for kernels of tdist.language) that links the device
// library as bitcode holds the state in a global of its own, `tdist_device_state`. attach_module
// has the backend fill it as it fills its own copies: at once when the runtime is initialized, at
// every later init, zeroed at finalize. Returns false, touching nothing, when the module has no
// such global; throws Error(InvalidParam) when the global's size is not this runtime's
// DeviceState (the device library and the runtime come from different builds), and
// Error(NotSupported) without a CUDA driver. module: a CUmodule. Needs no init; thread-safe.
bool attach_module(void *module);

// The GPU ordinal this PE drives: TDIST_LOCAL_PE (else my_pe) modulo the device count.
int device();
// The PEs of the job that drive this PE's GPU, this one counted (1 when it has the GPU alone).
// They share its SMs: a kernel that holds its SMs while it waits for a peer (a persistent GEMM)
// takes at most its share, or a peer's kernels could find no SM to run on.
int pes_on_device();
// The PE's own stream, on which the runtime carries host-initiated transfers.
cudaStream_t stream();

// A CUDA status, checked the one way tdist checks them: nothing when it is cudaSuccess, else
// tdist::Error(code) "<what>: <CUDA's error name> (<CUDA's message>)". A failure that follows a
// device wait's trap is first reported as that wait's diagnostic (the job then ends with the wait
// status): the trap is the cause, the sticky error only its echo. The backend, the kernel library
// and tdist-bench check their CUDA calls with it; kernels of one's own can too.
[[noreturn]] void throw_cuda_error(cudaError_t status, const char *what, ErrorCode code);
inline void check(cudaError_t status, const char *what, ErrorCode code = ErrorCode::Internal) {
  if (status != cudaSuccess) [[unlikely]] throw_cuda_error(status, what, code);
}
// After a kernel launch: a bad launch configuration shows here, a fault in the kernel only at the
// next synchronisation.
inline void check_launch(const char *kernel) { check(cudaGetLastError(), kernel); }

// Bytes to pe's copy of dest (put) or from pe's copy of source (get), ordered on stream s.
void putmem_on_stream(void *dest, const void *source, std::size_t nbytes, int pe, cudaStream_t s);
void getmem_on_stream(void *dest, const void *source, std::size_t nbytes, int pe, cudaStream_t s);

// Signals: S is int32_t, int64_t or uint64_t. The data is delivered before the signal.
template <class S>
TDIST_EXPORT void putmem_signal_on_stream(void *dest, const void *source, std::size_t nbytes,
                                          S *sig_addr, S signal, shmem::SignalOp op, int pe,
                                          cudaStream_t s);
template <class S>
TDIST_EXPORT void signal_op_on_stream(S *sig_addr, S signal, shmem::SignalOp op, int pe,
                                      cudaStream_t s);
// Later work on s waits until this PE's sig_addr satisfies cmp value. EQ, GE and GT are
// stream memory operations, whose GE compares the wrapping difference (as two's complement of
// S's width); NE, LT and LE a one-thread wait kernel. Past the wait deadline the job ends with
// the wait diagnostic (status 97).
template <class S>
TDIST_EXPORT void signal_wait_until_on_stream(S *sig_addr, shmem::Cmp cmp, S value, cudaStream_t s);

// Later work on s comes after every transfer this PE submitted before the call.
void quiet_on_stream(cudaStream_t s);
// The device barrier over the world team or team (quiet first), as one thread on s.
void barrier_all_on_stream(cudaStream_t s);
void barrier_on_stream(shmem::Team team, cudaStream_t s);

// A span of the work enqueued on `stream` from its construction to its destruction, as the GPU
// ran it: in a job traced by tdist-run --trace, a slice on the PE's track "GPU stream S" (S: the
// stream's index on this PE, in order of first use), timed by two CUDA events. Spans nest on a
// stream as scopes do. Without a trace, or while the stream is captured into a CUDA graph, it
// records nothing (one branch without a trace). The kernel library marks its calls and steps
// with it; kernels of one's own can too:
//   { tdist::cuda::StreamSpan span(s, tdist::trace::Category::Compute, "my_gemm"); my_gemm<<<g, b, 0, s>>>(...); }
class StreamSpan {
 public:
  StreamSpan(cudaStream_t stream, trace::Category category, const char *name, int m = -1, int n = -1) {
    if (trace::active()) [[unlikely]] open(stream, category, name, m, n);
  }
  ~StreamSpan() {
    if (id_ >= 0) [[unlikely]] close();
  }
  StreamSpan(const StreamSpan &) = delete;
  StreamSpan &operator=(const StreamSpan &) = delete;

 private:
  void open(cudaStream_t stream, trace::Category category, const char *name, int m, int n);
  void close();
  cudaStream_t stream_ = nullptr;
  long long id_ = -1;  // -1: nothing recorded
};

}  // namespace tdist::cuda

#pragma GCC visibility pop
