// backends/cuda/stream_api.cpp - tdist/cuda.h: the PE's GPU and stream, and the stream-ordered
// calls. Arguments are checked as the host calls check theirs (runtime::peerAddress and
// runtime/call_checks.h), so a wrong PE or an address off the heap reads the same on every backend.
#include <limits>
#include <string>

#include "backends/cuda/cuda_state.h"
#include "backends/cuda/driver_api.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/watchdog.h"
#include "runtime/call_checks.h"
#include "runtime/runtime_state.h"
#include "runtime/teams.h"
#include "tdist/cuda.h"

namespace tdist::runtime {
extern const Backend kCudaBackend;  // backends/cuda/backend.cpp
}

namespace tdist::cuda {
namespace {

using shmem::Cmp;
using shmem::SignalOp;

struct Caller {
  runtime::RuntimeState &state;
  CudaState &cuda;
};

// The initialized runtime on the cuda backend, the PE's GPU current on this thread.
Caller requireCuda(const char *call) {
  runtime::RuntimeState &state = runtime::requireState(call);
  if (state.backend != &runtime::kCudaBackend) {
    throw Error(ErrorCode::NotSupported, std::string(call) + ": the runtime runs on the " + state.backend->name +
                                             " backend, not cuda (TDIST_BACKEND=cuda selects it)");
  }
  CudaState &cuda = cudaState(state);
  useDevice(cuda);
  return {state, cuda};
}

// SET: a stream write into pe's word; ADD: the device library's atomic add, in a kernel.
template <class S>
void enqueueSignal(Caller c, S *sig_addr, S signal, SignalOp op, int pe, cudaStream_t s, const char *call) {
  std::byte *remote = runtime::peerAddress(c.state, sig_addr, sizeof(S), pe, call, "sig_addr");
  if (op == SignalOp::Add) {
    check(launchSignalAdd(sig_addr, signal, pe, s), call);
    return;
  }
  const DriverApi &cu = driver();
  auto address = reinterpret_cast<CUdeviceptr>(remote);
  if constexpr (sizeof(S) == 4) {
    check(cu.streamWriteValue32(s, address, static_cast<cuuint32_t>(signal), CU_STREAM_WRITE_VALUE_DEFAULT), call);
  } else {
    check(cu.streamWriteValue64(s, address, static_cast<cuuint64_t>(signal), CU_STREAM_WRITE_VALUE_DEFAULT), call);
  }
}

// EQ, GE and GT (as GE value + 1) are stream waits that the watchdog bounds; the rest, and a GT
// that value + 1 would overflow, the device wait kernel, which bounds itself.
template <class S>
bool streamWaitable(Cmp cmp, S value) {
  return cmp == Cmp::EQ || cmp == Cmp::GE || (cmp == Cmp::GT && value != std::numeric_limits<S>::max());
}

template <class S>
void enqueueStreamWait(Caller c, S *sig_addr, Cmp cmp, S value, cudaStream_t s, const char *call) {
  const DriverApi &cu = driver();
  StreamWait wait{.stream = s, .call = call, .word = sig_addr, .bytes = sizeof(S),
                  .predicate = static_cast<std::int32_t>(cmp), .expected = static_cast<std::int64_t>(value)};
  c.cuda.watchdog->takeEvents(&wait.started, &wait.satisfied, call);
  const S target = cmp == Cmp::GT ? static_cast<S>(value + 1) : value;
  const unsigned flags = cmp == Cmp::EQ ? CU_STREAM_WAIT_VALUE_EQ : CU_STREAM_WAIT_VALUE_GEQ;
  auto address = reinterpret_cast<CUdeviceptr>(sig_addr);
  check(cudaEventRecord(wait.started, s), call);
  if constexpr (sizeof(S) == 4) {
    check(cu.streamWaitValue32(s, address, static_cast<cuuint32_t>(target), flags), call);
  } else {
    check(cu.streamWaitValue64(s, address, static_cast<cuuint64_t>(target), flags), call);
  }
  check(cudaEventRecord(wait.satisfied, s), call);
  c.cuda.watchdog->watch(std::move(wait));
}

void orderAfterEngine(CudaState &cuda, cudaStream_t s, const char *call) {
  if (s == cuda.stream) return;  // the engine's own stream is ordered already
  std::lock_guard<std::mutex> lock(cuda.order_mutex);
  check(cudaEventRecord(cuda.order_event, cuda.stream), call);
  check(cudaStreamWaitEvent(s, cuda.order_event, 0), call);
}

void barrierOn(shmem::Team team, cudaStream_t s, const char *call) {
  Caller c = requireCuda(call);
  runtime::requireTeam(c.state, team, call);
  orderAfterEngine(c.cuda, s, call);  // the device barrier's quiet covers kernels, not the engine
  check(launchBarrier(team, s), call);
}

}  // namespace

int device() { return requireCuda("tdist::cuda::device").cuda.device; }
int pes_on_device() { return requireCuda("tdist::cuda::pes_on_device").cuda.pes_on_device; }
cudaStream_t stream() { return requireCuda("tdist::cuda::stream").cuda.stream; }

void putmem_on_stream(void *dest, const void *source, std::size_t nbytes, int pe, cudaStream_t s) {
  constexpr const char *call = "tdist::cuda::putmem_on_stream";
  Caller c = requireCuda(call);
  std::byte *remote = runtime::peerAddress(c.state, dest, nbytes, pe, call, "dest");
  if (nbytes != 0) check(cudaMemcpyAsync(remote, source, nbytes, cudaMemcpyDefault, s), call);
}

void getmem_on_stream(void *dest, const void *source, std::size_t nbytes, int pe, cudaStream_t s) {
  constexpr const char *call = "tdist::cuda::getmem_on_stream";
  Caller c = requireCuda(call);
  std::byte *remote = runtime::peerAddress(c.state, source, nbytes, pe, call, "source");
  if (nbytes != 0) check(cudaMemcpyAsync(dest, remote, nbytes, cudaMemcpyDefault, s), call);
}

template <class S>
void putmem_signal_on_stream(void *dest, const void *source, std::size_t nbytes, S *sig_addr, S signal,
                             SignalOp op, int pe, cudaStream_t s) {
  constexpr const char *call = "tdist::cuda::putmem_signal_on_stream";
  Caller c = requireCuda(call);
  runtime::checkSignalOp(op, call);
  runtime::requireAtomicAlignment<S>(sig_addr, call, "sig_addr");
  std::byte *remote = nbytes == 0 ? nullptr : runtime::peerAddress(c.state, dest, nbytes, pe, call, "dest");
  runtime::peerAddress(c.state, sig_addr, sizeof(S), pe, call, "sig_addr");  // before any work is enqueued
  if (nbytes != 0) check(cudaMemcpyAsync(remote, source, nbytes, cudaMemcpyDefault, s), call);
  enqueueSignal(c, sig_addr, signal, op, pe, s, call);
}

template <class S>
void signal_op_on_stream(S *sig_addr, S signal, SignalOp op, int pe, cudaStream_t s) {
  constexpr const char *call = "tdist::cuda::signal_op_on_stream";
  Caller c = requireCuda(call);
  runtime::checkSignalOp(op, call);
  runtime::requireAtomicAlignment<S>(sig_addr, call, "sig_addr");
  enqueueSignal(c, sig_addr, signal, op, pe, s, call);
}

template <class S>
void signal_wait_until_on_stream(S *sig_addr, Cmp cmp, S value, cudaStream_t s) {
  constexpr const char *call = "tdist::cuda::signal_wait_until_on_stream";
  Caller c = requireCuda(call);
  runtime::checkCmp(cmp, call);
  runtime::requireAtomicAlignment<S>(sig_addr, call, "sig_addr");
  runtime::peerAddress(c.state, sig_addr, sizeof(S), c.state.my_pe, call, "sig_addr");
  if (streamWaitable(cmp, value)) {
    enqueueStreamWait(c, sig_addr, cmp, value, s, call);
  } else {
    check(launchSignalWait(sig_addr, cmp, value, s), call);
  }
}

void quiet_on_stream(cudaStream_t s) {
  constexpr const char *call = "tdist::cuda::quiet_on_stream";
  Caller c = requireCuda(call);
  orderAfterEngine(c.cuda, s, call);
}

void barrier_all_on_stream(cudaStream_t s) { barrierOn(shmem::kTeamWorld, s, "tdist::cuda::barrier_all_on_stream"); }

void barrier_on_stream(shmem::Team team, cudaStream_t s) { barrierOn(team, s, "tdist::cuda::barrier_on_stream"); }

template void putmem_signal_on_stream<std::int32_t>(void *, const void *, std::size_t, std::int32_t *, std::int32_t,
                                                    SignalOp, int, cudaStream_t);
template void putmem_signal_on_stream<std::int64_t>(void *, const void *, std::size_t, std::int64_t *, std::int64_t,
                                                    SignalOp, int, cudaStream_t);
template void putmem_signal_on_stream<std::uint64_t>(void *, const void *, std::size_t, std::uint64_t *,
                                                     std::uint64_t, SignalOp, int, cudaStream_t);
template void signal_op_on_stream<std::int32_t>(std::int32_t *, std::int32_t, SignalOp, int, cudaStream_t);
template void signal_op_on_stream<std::int64_t>(std::int64_t *, std::int64_t, SignalOp, int, cudaStream_t);
template void signal_op_on_stream<std::uint64_t>(std::uint64_t *, std::uint64_t, SignalOp, int, cudaStream_t);
template void signal_wait_until_on_stream<std::int32_t>(std::int32_t *, Cmp, std::int32_t, cudaStream_t);
template void signal_wait_until_on_stream<std::int64_t>(std::int64_t *, Cmp, std::int64_t, cudaStream_t);
template void signal_wait_until_on_stream<std::uint64_t>(std::uint64_t *, Cmp, std::uint64_t, cudaStream_t);

}  // namespace tdist::cuda
