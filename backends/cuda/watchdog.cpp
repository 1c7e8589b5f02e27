// backends/cuda/watchdog.cpp - the watchdog thread of a PE and the wait diagnostic of the GPU.
//
// The diagnostic is every wait's (common/wait_format.h): a device wait's description adds its
// block and thread, so that tdist-run and the tests read one format whatever the backend.
#include "backends/cuda/watchdog.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "backends/cuda/cuda_state.h"
#include "backends/cuda/driver_api.h"
#include "common/wait_format.h"
#include "runtime/launcher_channel.h"
#include "runtime/published_wait.h"
#include "tdist/exit_codes.h"

namespace tdist::cuda {
namespace {

constexpr auto kPeriod = std::chrono::milliseconds(1);

struct HangSource {
  const runtime::RuntimeState *state = nullptr;
  const device::HangRecord *hang = nullptr;
};
std::mutex g_hang_mutex;
HangSource g_hang;
std::atomic<bool> g_reporting{false};

double timeoutSeconds(const runtime::RuntimeState &state) {
  return std::chrono::duration<double>(state.wait_timeout).count();
}

// Only one thread prints: the watchdog and a host call that met the trap's sticky error may
// both find the record. The loser waits for the winner's exit.
[[noreturn]] void endJob(int status) {
  std::fflush(stdout);
  std::fflush(stderr);
  runtime::reportEnding(status);  // the context's teardown makes this exit slow
  std::_Exit(status);
}
bool claimReport() {
  if (!g_reporting.exchange(true)) return true;
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// A copy of a description the device writes into host-mapped memory (volatile: byte by byte).
WaitDescription copyOf(const volatile WaitDescription &wait) {
  WaitDescription copy;
  const volatile unsigned char *from = reinterpret_cast<const volatile unsigned char *>(&wait);
  unsigned char *to = reinterpret_cast<unsigned char *>(&copy);
  for (std::size_t i = 0; i < sizeof copy; ++i) to[i] = from[i];
  copy.call[sizeof copy.call - 1] = copy.predicate[sizeof copy.predicate - 1] = copy.where[sizeof copy.where - 1] = '\0';
  return copy;
}

[[noreturn]] void printDeadline(const runtime::RuntimeState &state, const WaitDescription &wait) {
  char text[512];
  wait_format::deadline(wait, timeoutSeconds(state), text, sizeof text);
  std::fprintf(stderr, "tdist: %s\n", text);
  endJob(kExitWaitTimeout);
}

// The device wrote every field before `written` (with system fences).
[[noreturn]] void printHang(const runtime::RuntimeState &state, const device::HangRecord &record) {
  printDeadline(state, copyOf(record.wait));
}

bool hangWritten(const device::HangRecord *hang) {
  return hang != nullptr &&
         std::atomic_ref<const std::uint32_t>(hang->written).load(std::memory_order_acquire) != 0;
}

}  // namespace

void setHangRecord(const runtime::RuntimeState *state, const device::HangRecord *hang) {
  std::lock_guard<std::mutex> lock(g_hang_mutex);
  g_hang = {state, hang};
}

void reportRecordedHang() {
  HangSource source;
  {
    std::lock_guard<std::mutex> lock(g_hang_mutex);
    source = g_hang;
  }
  if (!hangWritten(source.hang)) return;
  if (claimReport()) printHang(*source.state, *source.hang);
}

Watchdog::Watchdog(runtime::RuntimeState &state, CudaState &cuda)
    : state_(state), cuda_(cuda), thread_([this] { run(); }) {}

Watchdog::~Watchdog() {
  stopping_.store(true, std::memory_order_relaxed);
  thread_.join();
  if (forwarded_ != nullptr) runtime::releaseWaitBoard(*forwarded_);
  for (StreamQueue &queue : queues_) {
    for (Watched &w : queue.waits) {
      cudaEventDestroy(w.wait.started);
      cudaEventDestroy(w.wait.satisfied);
    }
  }
  for (cudaEvent_t event : free_events_) cudaEventDestroy(event);
}

void Watchdog::takeEvents(cudaEvent_t *started, cudaEvent_t *satisfied, const char *call) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_events_.size() >= 2) {
      *started = free_events_.back();
      free_events_.pop_back();
      *satisfied = free_events_.back();
      free_events_.pop_back();
      return;
    }
  }
  check(cudaEventCreateWithFlags(started, cudaEventDisableTiming), call);
  cudaError_t status = cudaEventCreateWithFlags(satisfied, cudaEventDisableTiming);
  if (status != cudaSuccess) cudaEventDestroy(*started);
  check(status, call);
}

void Watchdog::watch(StreamWait wait) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (StreamQueue &queue : queues_) {
    if (queue.stream == wait.stream) {
      queue.waits.push_back(Watched{.wait = wait});
      return;
    }
  }
  queues_.push_back(StreamQueue{.stream = wait.stream, .waits = {Watched{.wait = wait}}});
}

void Watchdog::run() {
  cudaSetDevice(cuda_.device);  // events and copies below are of the PE's GPU
  while (!stopping_.load(std::memory_order_relaxed)) {
    if (hangWritten(cuda_.hang) && claimReport()) printHang(state_, *cuda_.hang);
    // A peer's global_exit: kernels spinning on this PE end at the abort flag, then the PE
    // leaves with the requested status, as runtime::checkExitRequest does on the host.
    if (state_.channel.mapped()) {
      const std::int64_t request = state_.channel.local().exit_request.value.load(std::memory_order_acquire);
      if (request != 0 && claimReport()) {
        std::atomic_ref<std::int32_t>(*cuda_.abort_flag).store(1, std::memory_order_release);
        runtime::reportFinalized();
        endJob(static_cast<int>(request - 1));
      }
    }
    checkStreamWaits();
    forwardDeviceWait();
    std::this_thread::sleep_for(kPeriod);
  }
}

void Watchdog::checkStreamWaits() {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  for (std::size_t q = 0; q < queues_.size();) {
    std::deque<Watched> &waits = queues_[q].waits;
    while (!waits.empty() && cudaEventQuery(waits.front().wait.satisfied) == cudaSuccess) {
      free_events_.push_back(waits.front().wait.started);
      free_events_.push_back(waits.front().wait.satisfied);
      waits.pop_front();
    }
    if (waits.empty()) {
      // Forget the stream: the user may destroy it, and a new one may get its handle.
      queues_[q] = std::move(queues_.back());
      queues_.pop_back();
      continue;
    }
    Watched &oldest = waits.front();
    if (!oldest.running && cudaEventQuery(oldest.wait.started) == cudaSuccess) {
      oldest.running = true;
      oldest.deadline = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(state_.wait_timeout);
    }
    if (oldest.running && now >= oldest.deadline && claimReport()) expire(oldest.wait);
    ++q;
  }
}

// The GPU blocked in a wait is what the PE is blocked in, unless a host wait of the PE holds the
// record (claimWaitBoard). The note is the device's, written with system fences around an odd
// sequence: a copy taken between two equal even sequences is whole.
void Watchdog::forwardDeviceWait() {
  const volatile device::WaitNote *note = cuda_.wait_note;
  if (note == nullptr) return;
  const std::uint32_t sequence = note->sequence;
  std::atomic_thread_fence(std::memory_order_acquire);
  const bool blocked = (sequence & 1) == 0 && note->waiting != 0;
  if (!blocked) {
    if (forwarded_ != nullptr && (sequence & 1) == 0) {
      runtime::releaseWaitBoard(*forwarded_);
      forwarded_ = nullptr;
    }
    return;
  }
  if (forwarded_ != nullptr && sequence == forwarded_sequence_) {
    wait_board::refresh(*forwarded_, note->wait.observed);
    return;
  }
  WaitDescription copy = copyOf(note->wait);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (note->sequence != sequence) return;  // rewritten meanwhile: the next turn reads it
  if (forwarded_ == nullptr) {
    if (!runtime::claimWaitBoard()) return;
    forwarded_ = runtime::waitBoardRecord();
  }
  // Since when the host first saw it: the GPU's timer is not the host's clock.
  wait_board::publish(*forwarded_, copy,
                      std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch()).count());
  forwarded_sequence_ = sequence;
}

// The observed value is read on a stream of its own (the waiting stream is blocked), with a
// bound: a GPU that cannot serve 8 bytes in a second is reported as such.
void Watchdog::expire(const StreamWait &wait) {
  WaitDescription description;
  description.pe = description.owner_pe = state_.my_pe;
  description.offset = static_cast<std::uint64_t>(static_cast<const std::byte *>(wait.word) - state_.heap.base());
  description.expected = wait.expected;
  description.observed_unreadable = 1;
  copyWaitText(description.call, wait.call);
  copyWaitText(description.predicate, waitPredicateName(wait.predicate));
  cudaStream_t reader = nullptr;
  std::uint64_t *word = nullptr;
  if (cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking) == cudaSuccess &&
      cudaHostAlloc(reinterpret_cast<void **>(&word), sizeof *word, cudaHostAllocDefault) == cudaSuccess) {
    *word = 0;
    if (cudaMemcpyAsync(word, wait.word, wait.bytes, cudaMemcpyDeviceToHost, reader) == cudaSuccess) {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      cudaError_t status;
      while ((status = cudaStreamQuery(reader)) == cudaErrorNotReady && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(kPeriod);
      }
      if (status == cudaSuccess) {
        description.observed =
            wait.bytes == 4 ? static_cast<std::int32_t>(*word) : static_cast<std::int64_t>(*word);
        description.observed_unreadable = 0;
      }
    }
  }
  printDeadline(state_, description);
}

}  // namespace tdist::cuda
