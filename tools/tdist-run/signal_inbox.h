// signal_inbox.h - the signals tdist-run acts on, delivered as readable data on a descriptor.
//
// SIGCHLD (a PE ended) and SIGINT/SIGTERM/SIGHUP (stop the job) are blocked and read from a
// signalfd, so that the monitor waits for them, for PE output and for its deadlines in one poll()
// with no handler running in between.
#pragma once

#include <csignal>
#include <vector>

#include "fd_io.h"

namespace tdist::launcher {

// The signal state a PE must start with: the one tdist-run itself was started with, not the
// blocking and ignoring it does for its own purposes (both would survive exec).
struct ChildSignalState {
  sigset_t mask;              // restored with POSIX_SPAWN_SETSIGMASK
  sigset_t reset_to_default;  // reset with POSIX_SPAWN_SETSIGDEF
};

class SignalInbox {
 public:
  // Call before starting any PE, so that no SIGCHLD can arrive before it is watched.
  SignalInbox();
  SignalInbox(const SignalInbox &) = delete;
  SignalInbox &operator=(const SignalInbox &) = delete;

  int fd() const { return signalfd_.get(); }
  // Every signal that arrived since the last call, oldest first.
  std::vector<int> takeArrived();
  const ChildSignalState &childState() const { return child_state_; }

 private:
  UniqueFd signalfd_;
  ChildSignalState child_state_{};
};

}  // namespace tdist::launcher
