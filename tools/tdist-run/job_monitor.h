// job_monitor.h - watches a started job until every PE has ended, and ends it early when it must.
//
// A job ends early when a PE fails (non-zero status or a signal), when a PE exits with status 0
// after init without calling finalize (its peers would wait for it until their deadline), when
// the job's deadline passes, or when tdist-run is asked to stop. Ending means: say why on
// stderr, signal every PE (SIGTERM, or the stop request itself), SIGKILL whatever still runs
// after a grace period, reap them all.
// One poll() waits for all of it: PE exits and stop requests (signalfd), PE output and status,
// and the deadlines, so that nothing can be missed between two blocking calls.
#pragma once

#include <chrono>
#include <optional>

#include "hang_check.h"
#include "output_tagger.h"
#include "process_group.h"
#include "signal_inbox.h"
#include "status_channel.h"

namespace tdist::launcher {

// Long enough for a PE to print its diagnostics and unlink its segments, short enough that a
// failed CI job ends promptly.
constexpr std::chrono::seconds kGracePeriod{2};

class JobMonitor {
 public:
  // tagger is null without --tag-output; job_timeout_s 0 means no deadline; hang_check is null
  // with --hang-check 0.
  JobMonitor(ProcessGroup &pes, SignalInbox &signals, StatusChannels &status,
             OutputTagger *tagger, double job_timeout_s, HangCheck *hang_check = nullptr);

  // Returns when every PE has ended, with tdist-run's exit status: 0 when all exited 0, else why
  // the job ended early (exit_status.h).
  int run();

 private:
  using Clock = std::chrono::steady_clock;

  void onPeEnded(const PeExit &exit);
  void onStopRequest(int signo);
  void onTimers(Clock::time_point now);
  void endJob(int exit_status, int signo);
  int pollTimeoutMs(Clock::time_point now) const;

  ProcessGroup &pes_;
  SignalInbox &signals_;
  StatusChannels &status_;
  OutputTagger *tagger_;
  double job_timeout_s_;
  HangCheck *hang_check_;
  std::optional<Clock::time_point> job_deadline_;

  bool ending_ = false;
  int ending_signal_ = 0;                   // what the PEs were sent first
  std::optional<Clock::time_point> kill_at_;  // when SIGKILL follows, until it is sent
  int exit_status_ = 0;
};

}  // namespace tdist::launcher
