// backends/cuda/watchdog.h - the host side of "a GPU wait never hangs silently".
//
// A device wait past its deadline writes the PE's hang record (host-mapped) and traps; a wait
// that the stream itself carries (cuStreamWaitValue) cannot, so the host registers it here. A
// thread per PE, from engines_start to detach, turns either into the runtime's wait diagnostic
// and ends the job with the wait status (97), and carries out a global_exit request of a peer
// while this PE's host is blocked in CUDA: it raises the abort flag, so that spinning kernels
// trap, and exits with the requested status. It also forwards the device wait the GPU is blocked
// in (device::WaitNote) to the PE's record on the job's wait board, for tdist-run's hang check,
// unless a host wait of the PE holds the record.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/wait_board.h"
#include "runtime/runtime_state.h"
#include "tdist/device/state.h"

namespace tdist::cuda {

struct CudaState;

// A wait carried by a stream: `started` is recorded before it, `satisfied` after it; its
// deadline counts from when `started` completes (the wait's first unsatisfied moment).
struct StreamWait {
  cudaStream_t stream = nullptr;
  cudaEvent_t started = nullptr;
  cudaEvent_t satisfied = nullptr;
  const char *call = "";  // a string literal: the API function
  const void *word = nullptr;  // on this PE's heap, device memory
  unsigned bytes = 4;
  std::int32_t predicate = 0;  // shmem::Cmp
  std::int64_t expected = 0;
};

class Watchdog {
 public:
  Watchdog(runtime::RuntimeState &state, CudaState &cuda);
  ~Watchdog();  // stops the thread; destroys the events of waits still registered
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

  // Two events for a wait's `started` and `satisfied`, reused once a watched wait is satisfied:
  // creating and destroying them per wait would cost more than the wait's enqueue.
  void takeEvents(cudaEvent_t *started, cudaEvent_t *satisfied, const char *call);
  // Takes ownership of the wait's events.
  void watch(StreamWait wait);

 private:
  struct Watched {
    StreamWait wait;
    std::chrono::steady_clock::time_point deadline{};  // set once `started` completed
    bool running = false;
  };
  // The waits of one stream, oldest first. A stream reaches them in order, so only the oldest can
  // be the one it is blocked in: a check costs one or two event queries per stream, however many
  // waits are enqueued behind it.
  struct StreamQueue {
    cudaStream_t stream = nullptr;
    std::deque<Watched> waits;
  };

  void run();
  void checkStreamWaits();
  void forwardDeviceWait();
  [[noreturn]] void expire(const StreamWait &wait);

  runtime::RuntimeState &state_;
  CudaState &cuda_;
  std::mutex mutex_;
  std::vector<StreamQueue> queues_;
  std::vector<cudaEvent_t> free_events_;
  std::atomic<bool> stopping_{false};
  wait_board::Record *forwarded_ = nullptr;  // the board record while it shows a device wait
  std::uint32_t forwarded_sequence_ = 0;     // the note's sequence it shows
  std::thread thread_;
};

// Makes hang the record that reportRecordedHang reads (null: none, after detach).
void setHangRecord(const runtime::RuntimeState *state, const device::HangRecord *hang);
// When a device wait of this PE has written its hang record: prints the diagnostic and ends the
// process with kExitWaitTimeout. Otherwise returns.
void reportRecordedHang();

}  // namespace tdist::cuda
