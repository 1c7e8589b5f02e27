// kernels/context.cpp - the context of the kernel library: its backend's table (chosen here,
// once), its tuning table (read here, once: kernels/tuning.h), its symmetric signal slots (zeroed
// once, never reset: every call waits for its own epoch or a later one), its scratch, and what its
// backend keeps (KernelBackend::open).
#include "tdist/kernels/context.h"

#include <atomic>
#include <cstdio>

#include "kernels/backend.h"
#include "kernels/checks.h"
#include "kernels/context_state.h"
#include "kernels/tuning.h"

namespace tdist::kernels {
namespace {

constexpr long long kMaxSignals = 1 << 20;

// The table's path may differ between PEs (each its own copy); what they compare is the table
// each read (tuningDigest).
void addOptions(detail::CallSignature &s, const ContextOptions &options, const std::string &tuning_digest) {
  const auto &[scratch_bytes, max_signals, stream, tuning_table] = options;  // the stream is each PE's own
  s.add("options.scratch_bytes", static_cast<long long>(scratch_bytes));
  s.add("options.max_signals", max_signals);
  (void)stream;
  (void)tuning_table;
  s.add("tuning_table", tuning_digest);
}

// Allocates on the heap; a heap too small for it is an error that names the options to change.
void *allocateFor(const char *what, std::size_t bytes, bool zeroed) {
  try {
    return zeroed ? allocateZeroed(bytes, 1) : allocate(bytes);
  } catch (const Error &e) {
    if (e.code() != ErrorCode::HeapExhausted) throw;
    throw Error(ErrorCode::HeapExhausted,
                std::string("tdist::kernels::Context: its ") + what + " (" + std::to_string(bytes) +
                    " bytes) does not fit the symmetric heap (" + e.what() +
                    "): pass a smaller ContextOptions::" + (zeroed ? "max_signals" : "scratch_bytes") +
                    ", or run with a larger heap (tdist-run --heap, TDIST_HEAP_SIZE)");
  }
}

// Contexts alive in this process (the backend's release runs when none is left).
std::atomic<int> live_contexts{0};

}  // namespace

const KernelBackend &kernelBackendFor(const std::string &name) {
#ifdef TDIST_KERNELS_HAVE_CUDA
  if (name == cuda::kBackend.name) return cuda::kBackend;
#endif
  if (name == cpu::kBackend.name) return cpu::kBackend;
  throw Error(ErrorCode::NotSupported, "tdist::kernels: the kernel library has no bodies for the " + name + " backend");
}

int minSignals() { return kernelBackendFor(backendName()).min_signals(nPes()); }

Context::Context(const ContextOptions &options) : state_(std::make_unique<State>()) {
  constexpr const char *kName = "tdist::kernels::Context";
  const KernelBackend &backend = kernelBackendFor(backendName());
  int code = 0;
  std::string error;
  std::shared_ptr<const TuningTable> tuning;
  std::string tuning_path;
  try {
    tuning = detail::loadTuningTable(options.tuning_table, backend.name, tuning_path);
    const int fewest = backend.min_signals(nPes());
    if (options.max_signals < fewest || options.max_signals > kMaxSignals) {
      throw Error(ErrorCode::InvalidParam,
                  std::string(kName) + ": config.max_signals = " + std::to_string(options.max_signals) +
                      " is outside " + std::to_string(fewest) + " .. " + std::to_string(kMaxSignals) + " (on " +
                      std::to_string(nPes()) + " PEs the " + backend.name + " backend's collectives need " +
                      std::to_string(fewest) + " signal slots at least: tdist::kernels::minSignals())");
    }
  } catch (const Error &e) {
    code = static_cast<int>(e.code());
    error = e.what();
  }
  detail::CallSignature signature;
  addOptions(signature, options, detail::tuningDigest(tuning.get()));
  // On the host: the context has no handshake table yet.
  detail::agree(kName, signature, code, error);
  state_->tuning = std::move(tuning);
  state_->tuning_path = std::move(tuning_path);

  state_->backend = &backend;
  state_->backend_name = backend.name;
  state_->network_peers = detail::anyPeerThroughNetwork();
  state_->max_signals = options.max_signals;
  state_->signals = allocateFor("signal slots", static_cast<std::size_t>(options.max_signals) * kSlotBytes, true);
  try {
    state_->scratch = options.scratch_bytes ? allocateFor("scratch", options.scratch_bytes, false) : nullptr;
    state_->scratch_bytes = options.scratch_bytes;
    backend.open(*this, options);
  } catch (...) {
    if (state_->scratch != nullptr) deallocate(state_->scratch);
    deallocate(state_->signals);
    throw;
  }
  ++live_contexts;
}

Context::~Context() {
  // Collective like the allocation; a destructor never throws (say, after finalize). First every
  // call made on the context is complete on this PE (cuda: its stream), and so, once the
  // collective free returns, on every PE: no kernel of the context still reads or writes the
  // memory that the heap may hand out again (every peer write of a call is one its receiver
  // waits for within the call).
  try {
    synchronize();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tdist::kernels::Context: waiting for the context's calls failed: %s\n", e.what());
  }
  try {
    state_->backend->close(*this);
    if (state_->scratch != nullptr) deallocate(state_->scratch);
    deallocate(state_->signals);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tdist::kernels::Context: freeing the context failed: %s\n", e.what());
  }
  if (--live_contexts == 0) state_->backend->release();
}

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

void Context::synchronize() { state_->backend->synchronize(*this); }

const std::string &Context::backend() const { return state_->backend_name; }
const std::string &Context::tuning_table() const { return state_->tuning_path; }

}  // namespace tdist::kernels
