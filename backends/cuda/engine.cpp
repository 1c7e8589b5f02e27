// backends/cuda/engine.cpp - the cuda backend's engines for host calls: the copy engines
// (cudaMemcpyAsync on the PE's own stream) carry transfers, stream memory operations and
// one-thread kernels apply their signals, and waits for the stream keep the runtime's deadline.
//
// Ordering comes from the stream: a signal enqueued after a copy is applied after the copy is
// complete (a stream memory operation also fences before its write), which is the
// put-with-signal contract. Transfers of one PE therefore run in submission order.
#include <cstring>

#include "backends/cuda/cuda_state.h"
#include "backends/cuda/driver_api.h"
#include "backends/cuda/kernels.h"
#include "runtime/wait.h"

namespace tdist::cuda {
namespace {

std::int64_t readCompleted(const void *counter, void *) {
  return static_cast<std::int64_t>(static_cast<const std::atomic<std::uint64_t> *>(counter)->load());
}

// A signal word update after the data on the PE's stream. SET is a stream write (the driver
// orders it after the copy); ADD is the device library's atomic add, on the owner's word.
void enqueueSignal(runtime::RuntimeState &state, CudaState &cuda, const runtime::Transfer &t, const char *call) {
  if (t.signal_op == shmem::SignalOp::Set) {
    const DriverApi &cu = driver();
    auto address = reinterpret_cast<CUdeviceptr>(t.signal);
    if (t.signal_bytes == 4) {
      check(cu.streamWriteValue32(cuda.stream, address, static_cast<cuuint32_t>(t.signal_value),
                                  CU_STREAM_WRITE_VALUE_DEFAULT),
            "cuStreamWriteValue32 of a signal");
    } else {
      check(cu.streamWriteValue64(cuda.stream, address, t.signal_value, CU_STREAM_WRITE_VALUE_DEFAULT),
            "cuStreamWriteValue64 of a signal");
    }
    return;
  }
  SymmetricWord word = symmetricWord(state, t.signal, call);
  if (t.signal_bytes == 4) {
    check(launchSignalAdd(static_cast<std::int32_t *>(word.local), static_cast<std::int32_t>(t.signal_value),
                          word.pe, cuda.stream),
          "launching the ADD signal kernel");
  } else {
    check(launchSignalAdd(static_cast<std::uint64_t *>(word.local), t.signal_value, word.pe, cuda.stream),
          "launching the ADD signal kernel");
  }
}

constexpr std::size_t kResultSlab = 64;

// A result word, pinned host memory: with unified addressing (every 64-bit platform CUDA
// supports) the kernel writes it through the same pointer.
class ResultWord {
 public:
  explicit ResultWord(CudaState &cuda) : cuda_(cuda) {
    std::lock_guard<std::mutex> lock(cuda.result_mutex);
    if (cuda.free_results.empty()) {
      std::uint64_t *slab = nullptr;
      check(cudaHostAlloc(reinterpret_cast<void **>(&slab), kResultSlab * sizeof *slab, cudaHostAllocMapped),
            "cudaHostAlloc of word operation results");
      cuda.result_slabs.push_back(slab);
      for (std::size_t i = 0; i < kResultSlab; ++i) cuda.free_results.push_back(slab + i);
    }
    word_ = cuda.free_results.back();
    cuda.free_results.pop_back();
  }
  ~ResultWord() {
    std::lock_guard<std::mutex> lock(cuda_.result_mutex);
    cuda_.free_results.push_back(word_);
  }
  ResultWord(const ResultWord &) = delete;
  ResultWord &operator=(const ResultWord &) = delete;
  std::uint64_t *get() const { return word_; }

 private:
  CudaState &cuda_;
  std::uint64_t *word_;
};

template <class T>
std::uint64_t runWordOp(CudaState &cuda, runtime::WordOp op, SymmetricWord word, std::uint64_t operand,
                        std::uint64_t compare, const char *call) {
  ResultWord result(cuda);
  check(launchWordOp(op, static_cast<T *>(word.local), word.pe, static_cast<T>(operand), static_cast<T>(compare),
                     result.get(), cuda.stream),
        "launching the word operation kernel");
  cuda.submitted.fetch_add(1, std::memory_order_relaxed);
  waitForStream(cuda, call);
  return *static_cast<volatile std::uint64_t *>(result.get());
}

}  // namespace

void useDevice(const CudaState &cuda) {
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess || current != cuda.device) {
    check(cudaSetDevice(cuda.device), "cudaSetDevice");
  }
}

SymmetricWord symmetricWord(const runtime::RuntimeState &state, void *address, const char *call) {
  const CudaState &cuda = *static_cast<const CudaState *>(state.backend_state);
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  const auto base = static_cast<std::uintptr_t>(cuda.base);
  if (cuda.base == 0 || at < base || at - base >= cuda.reserved) [[unlikely]] {
    char text[160];
    std::snprintf(text, sizeof text, "%s: address %p is on no PE's heap", call, address);
    throw Error(ErrorCode::InvalidParam, text);
  }
  const std::size_t stride = cuda.layout.stride;
  const std::size_t offset = (at - base) % stride;
  return {reinterpret_cast<void *>(base + static_cast<std::size_t>(state.my_pe) * stride + offset),
          static_cast<int>((at - base) / stride)};
}

void waitForStream(CudaState &cuda, const char *call) {
  // What was submitted when the wait began: the stream is idle once everything before it is.
  const std::uint64_t target = cuda.submitted.load(std::memory_order_relaxed);
  runtime::WaitSite site;
  site.call = call;
  site.address = &cuda.completed;
  site.predicate = "cuda stream tasks completed GE";
  site.expected = static_cast<std::int64_t>(target);
  site.read = readCompleted;
  site.own_work = true;
  runtime::waitUntil(site, [&] {
    cudaError_t status = cudaStreamQuery(cuda.stream);
    if (status == cudaErrorNotReady) return false;
    check(status, call);
    std::uint64_t done = cuda.completed.load(std::memory_order_relaxed);
    while (done < target && !cuda.completed.compare_exchange_weak(done, target, std::memory_order_release)) {
    }
    return true;
  });
}

void submit(runtime::RuntimeState &state, const runtime::Transfer &transfer, bool blocking, const char *call) {
  CudaState &cuda = cudaState(state);
  useDevice(cuda);
  if (transfer.bytes != 0) {
    check(cudaMemcpyAsync(transfer.dest, transfer.source, transfer.bytes, cudaMemcpyDefault, cuda.stream), call);
  }
  if (transfer.signal != nullptr) enqueueSignal(state, cuda, transfer, call);
  cuda.submitted.fetch_add(1, std::memory_order_relaxed);
  if (blocking) waitForStream(cuda, call);
}

void quiet(runtime::RuntimeState &state, const char *call) {
  CudaState &cuda = cudaState(state);
  if (cuda.stream == nullptr) return;
  useDevice(cuda);
  waitForStream(cuda, call);
}

std::uint64_t wordOp(runtime::RuntimeState &state, runtime::WordOp op, void *address, unsigned bytes,
                     std::uint64_t operand, std::uint64_t compare, const char *call) {
  CudaState &cuda = cudaState(state);
  useDevice(cuda);
  const SymmetricWord word = symmetricWord(state, address, call);
  if (bytes == 4) return runWordOp<std::uint32_t>(cuda, op, word, operand, compare, call);
  if (bytes == 8) return runWordOp<std::uint64_t>(cuda, op, word, operand, compare, call);
  throw Error(ErrorCode::Internal, std::string(call) + ": a word operation on " + std::to_string(bytes) +
                                       " bytes (only 4 and 8 exist)");
}

void zero(runtime::RuntimeState &state, void *address, std::size_t bytes) {
  CudaState &cuda = cudaState(state);
  useDevice(cuda);
  check(cudaMemsetAsync(address, 0, bytes, cuda.stream), "cudaMemsetAsync clearing heap bytes");
  cuda.submitted.fetch_add(1, std::memory_order_relaxed);
  waitForStream(cuda, "aclshmem_calloc");
}

}  // namespace tdist::cuda
