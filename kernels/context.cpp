// kernels/context.cpp - the context of the kernel library: its symmetric signal slots (zeroed
// once, never reset: every call waits for its own epoch or a later one), its scratch and, on
// cpu, the table of the entry handshake (kernels/checks.h).
#include "tdist/kernels/context.h"

#include <cstdio>

#include "kernels/checks.h"
#include "kernels/context_state.h"

#ifdef TDIST_KERNELS_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "tdist/cuda.h"
#endif

namespace tdist::kernels {
namespace {

constexpr std::size_t kSlotBytes = 64;
constexpr long long kMaxSignals = 1 << 20;

std::string describeOptions(const std::uint64_t value[3]) {
  return "max_signals " + std::to_string(value[0]) + ", scratch_bytes " + std::to_string(value[1]);
}

}  // namespace

Context::Context(const ContextOptions &options) : state_(std::make_unique<State>()) {
  constexpr const char *kName = "tdist::kernels::Context";
  int code = 0;
  std::string error;
  try {
    detail::requireRange(kName, "max_signals", options.max_signals, 1, kMaxSignals);
  } catch (const Error &e) {
    code = static_cast<int>(e.code());
    error = e.what();
  }
  detail::CallSignature signature;
  signature.value[0] = static_cast<std::uint64_t>(options.max_signals);
  signature.value[1] = options.scratch_bytes;
  signature.describe = describeOptions;
  // On the host: the context has no handshake table yet.
  detail::agree(kName, signature, code, error);

  state_->backend = backendName();
  state_->max_signals = options.max_signals;
  state_->signals = allocateZeroed(static_cast<std::size_t>(options.max_signals), kSlotBytes);
  try {
    state_->scratch = options.scratch_bytes ? allocate(options.scratch_bytes) : nullptr;
    if (state_->backend == "cpu") {
      state_->handshake = allocateZeroed(2 * static_cast<std::size_t>(nPes()), sizeof(detail::HandshakeRow));
    }
  } catch (...) {
    if (state_->scratch != nullptr) deallocate(state_->scratch);
    deallocate(state_->signals);
    throw;
  }
  state_->scratch_bytes = options.scratch_bytes;
#ifdef TDIST_KERNELS_HAVE_CUDA
  if (state_->backend == "cuda") {
    state_->stream = options.stream ? options.stream : static_cast<void *>(tdist::cuda::stream());
  }
#endif
}

Context::~Context() {
  // Collective like the allocation; a destructor never throws (say, after finalize).
  try {
    if (state_->handshake != nullptr) deallocate(state_->handshake);
    if (state_->scratch != nullptr) deallocate(state_->scratch);
    deallocate(state_->signals);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tdist::kernels::Context: freeing the context failed: %s\n", e.what());
  }
}

std::uint64_t Context::nextEpoch() { return ++state_->epoch; }

std::uint64_t *Context::slot(int index) const {
  if (index < 0 || index >= state_->max_signals) {
    throw Error(ErrorCode::InvalidParam, "tdist::kernels::Context: signal slot " + std::to_string(index) +
                                             " is outside 0 .. " + std::to_string(state_->max_signals - 1));
  }
  return reinterpret_cast<std::uint64_t *>(static_cast<std::byte *>(state_->signals) + index * kSlotBytes);
}

int Context::maxSignals() const { return state_->max_signals; }
void *Context::scratch() const { return state_->scratch; }
std::size_t Context::scratchBytes() const { return state_->scratch_bytes; }
void *Context::stream() const { return state_->stream; }

void Context::synchronize() {
#ifdef TDIST_KERNELS_HAVE_CUDA
  if (state_->backend == "cuda") {
    const cudaError_t status = cudaStreamSynchronize(static_cast<cudaStream_t>(state_->stream));
    if (status != cudaSuccess) {
      throw Error(ErrorCode::Internal, std::string("tdist::kernels::Context::synchronize: ") +
                                           cudaGetErrorString(status));
    }
  }
#endif
}

const std::string &Context::backend() const { return state_->backend; }

}  // namespace tdist::kernels
