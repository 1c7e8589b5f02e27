// backends/cpu/copy_engine.h - the SDMA engine of the cpu backend: a copy thread per PE that
// carries transfers while the calling core goes on computing.
//
// Transfers run in submission order, so a signal queued after a copy is applied after it (the
// put-with-signal contract). quiet() waits until everything submitted so far is done.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

#include "runtime/backend.h"

namespace tdist::cpu {

class CopyEngine {
 public:
  CopyEngine();
  ~CopyEngine();  // drains, then stops the thread
  CopyEngine(const CopyEngine &) = delete;
  CopyEngine &operator=(const CopyEngine &) = delete;

  // Returns the task's ticket; the task is complete once completed() reaches it.
  std::uint64_t submit(const runtime::Transfer &task);
  std::uint64_t completed() const { return completed_.load(std::memory_order_acquire); }
  std::uint64_t submitted() const { return submitted_.load(std::memory_order_relaxed); }
  // Waits (with the runtime's backoff and deadline) until ticket is complete.
  void waitFor(std::uint64_t ticket, const char *call) const;

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<runtime::Transfer> queue_;
  bool stopping_ = false;
  std::atomic<std::uint64_t> submitted_{0};
  std::atomic<std::uint64_t> completed_{0};
  std::thread thread_;
};

}  // namespace tdist::cpu
