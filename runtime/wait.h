// runtime/wait.h - how every wait of the runtime waits: spin briefly, then yield (the program
// fiber, or the thread), then sleep with backoff; past the deadline, a diagnostic and exit.
//
// CI has 2 cores and runs 4+ PEs: a waiter that keeps its core starves the PE it waits for, so
// the spin is short and the yield comes early.
#pragma once

#include <chrono>
#include <cstdint>

#include "tdist/wait_description.h"

namespace tdist::wait_board {
struct Record;
}

namespace tdist::runtime {

struct Backend;

// One poll's pause: tells the core that this is a spin loop.
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// What a wait is for; WaitLoop::describe makes the WaitDescription that the diagnostic when its
// deadline passes and the wait board say.
struct WaitSite {
  const char *call = "";              // the API function that waits
  const void *address = nullptr;      // the polled word (on this PE's heap, or a peer's)
  int owner_pe = -1;                  // PE whose heap holds it; -1 = this PE
  const char *predicate = "EQ";       // how the observed value is compared
  std::int64_t expected = 0;
  // Reads the observed value: read(address, read_context). The context is what the reader needs
  // besides the address (a backend that reads the heap for the host needs the PE's state).
  std::int64_t (*read)(const void *address, void *context) = nullptr;
  void *read_context = nullptr;
  int slot = 0;                       // multi-slot waits: which slot is not ready
  int slots = 1;
  // The wait is for work this PE itself has under way (its copy engine, its GPU stream), not for
  // a peer: the PE is busy, and tdist-run's hang check must not count it as blocked.
  bool own_work = false;
};

// Escalating pause: spin, then yield, then sleep doubling up to a cap.
class Backoff {
 public:
  Backoff();
  void reset();
  void pause();
  std::chrono::steady_clock::time_point started() const { return start_; }

 private:
  std::chrono::steady_clock::time_point start_;
  std::uint32_t polls_ = 0;
  std::chrono::microseconds sleep_{0};
};

class WaitLoop {
 public:
  explicit WaitLoop(const WaitSite &site);
  ~WaitLoop();
  WaitLoop(const WaitLoop &) = delete;
  WaitLoop &operator=(const WaitLoop &) = delete;
  // After a failed poll: pause. Ends the process with kExitWaitTimeout past the deadline, and
  // with the global_exit status when a PE asked the job to end.
  void pause();
  // After the poll succeeded: tells the program scheduler that this program made progress.
  void finish();
  WaitSite &site() { return site_; }

 private:
  [[noreturn]] void expire();
  std::int64_t observe() const;             // the polled word's value, read the way the wait reads it
  WaitDescription describe() const;         // this wait as the diagnostics say it
  // Publishes this wait on the wait board once it has lasted, then refreshes what it observed.
  void publish();

  WaitSite site_;
  const Backend *backend_;  // looked up once per wait, not per poll
  Backoff backoff_;
  std::chrono::steady_clock::time_point deadline_;
  std::uint32_t polls_ = 0;
  bool in_programs_ = false;                    // the backend ran other programs meanwhile
  bool publish_tried_ = false;
  wait_board::Record *published_ = nullptr;     // this wait's record on the board, if it has one
  const void *published_address_ = nullptr;     // the word the record describes
};

// Polls until poll() is true.
template <class Poll>
inline void waitUntil(const WaitSite &site, Poll &&poll) {
  if (poll()) [[likely]] return;
  WaitLoop loop(site);
  while (!poll()) loop.pause();
  loop.finish();
}

// Ends this PE because global_exit was requested (by this PE or a peer) if it was.
void checkExitRequest();

}  // namespace tdist::runtime
