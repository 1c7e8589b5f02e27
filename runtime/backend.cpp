// runtime/backend.cpp - choosing the backend at init, and the signal update of a transfer.
#include "runtime/backend.h"

#include <atomic>

#include "runtime/trace.h"
#include "tdist/error.h"

namespace tdist::runtime {
namespace {

std::string names(std::span<const Backend *const> backends) {
  std::string text;
  for (const Backend *b : backends) text += (text.empty() ? "" : ", ") + std::string(b->name);
  return text.empty() ? "none" : text;
}

}  // namespace

void applySignal(void *word, std::uint8_t bytes, std::uint64_t value, shmem::SignalOp op) {
  // Timed before the update: the wait it releases must not be seen to end before it.
  const std::uint64_t t_ns = trace::active() ? trace::clockNs() : 0;
  std::int64_t after = 0;  // the word's value after the update, for the trace
  if (bytes == 4) {
    std::atomic_ref<std::uint32_t> ref(*static_cast<std::uint32_t *>(word));
    const auto v = static_cast<std::uint32_t>(value);
    if (op == shmem::SignalOp::Set) ref.store(v, std::memory_order_release);
    else after = static_cast<std::int32_t>(ref.fetch_add(v, std::memory_order_acq_rel) + v);
    if (op == shmem::SignalOp::Set) after = static_cast<std::int32_t>(v);
  } else {
    std::atomic_ref<std::uint64_t> ref(*static_cast<std::uint64_t *>(word));
    if (op == shmem::SignalOp::Set) ref.store(value, std::memory_order_release);
    else after = static_cast<std::int64_t>(ref.fetch_add(value, std::memory_order_acq_rel) + value);
    if (op == shmem::SignalOp::Set) after = static_cast<std::int64_t>(value);
  }
  if (t_ns != 0) [[unlikely]] trace::recordNotify(word, after, t_ns);
}

const Backend &selectBackend(std::string_view name, std::span<const Backend *const> backends) {
  if (backends.empty()) throw Error(ErrorCode::Internal, "init: this build has no backend");
  const Backend *chosen = name.empty() ? backends.front() : nullptr;
  for (const Backend *b : backends) {
    if (chosen == nullptr && name == b->name) chosen = b;
  }
  if (chosen == nullptr) {
    throw Error(ErrorCode::InvalidParam, "init: unknown backend '" + std::string(name) +
                                             "' (this build has: " + names(backends) + ")");
  }
  std::string why;
  if (!chosen->can_run(&why)) {
    throw Error(ErrorCode::NotSupported, "init: backend '" + std::string(chosen->name) +
                                             "' cannot run here: " + why);
  }
  return *chosen;
}

}  // namespace tdist::runtime
