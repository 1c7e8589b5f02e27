// job_monitor.h - watches a started job until every PE has ended, and ends it early when it must.
//
// A job ends early when a PE fails (non-zero status or a signal), when a PE exits with status 0
// after init without calling finalize (its peers would wait for it until their deadline), when
// the job's deadline passes, or when tdist-run is asked to stop. Ending means: say why on
// stderr, signal every PE (SIGTERM, or the stop request itself), SIGKILL whatever still runs
// after a grace period, reap them all.
// One poll() waits for all of it: PE exits and stop requests (signalfd), PE output and status,
// the link to the other nodes of a job across hosts (node_link.h), and the deadlines, so that
// nothing can be missed between two blocking calls.
//
// Across hosts the job also ends early when another node's ended (its word on the link, or its
// link dropped), and every node ends its own the same way; the monitor runs on after its PEs
// exited 0 until every node's have (node 0's word), so that each node exits with the job's
// status.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "hang_check.h"
#include "node_link.h"
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
  // with --hang-check 0; link is null unless the job runs across hosts, where this host's PEs are
  // the job's from first_pe on.
  JobMonitor(ProcessGroup &pes, SignalInbox &signals, StatusChannels &status,
             OutputTagger *tagger, double job_timeout_s, HangCheck *hang_check = nullptr,
             NodeLink *link = nullptr, int first_pe = 0);

  // Returns when every PE has ended, with tdist-run's exit status: 0 when all exited 0, else why
  // the job ended early (exit_status.h).
  int run();

 private:
  using Clock = std::chrono::steady_clock;

  void onPeEnded(const PeExit &exit);
  void onStopRequest(int signo);
  void onLinkEvent(const LinkEvent &event);
  void onTimers(Clock::time_point now);
  void onHangCheck(Clock::time_point now);
  // Ends this node's PEs; across hosts, the other nodes hear why from node origin (-1: this one).
  void endJob(int exit_status, int signo, const std::string &why, int origin = -1);
  int pollTimeoutMs(Clock::time_point now) const;
  // This node's PEs are done and the job is not: the word of the other nodes is still to come.
  bool awaitingOtherNodes() const { return link_ && !ending_ && !link_->finished(); }
  // The running PEs by their job numbers.
  std::vector<int> runningPes() const;

  ProcessGroup &pes_;
  SignalInbox &signals_;
  StatusChannels &status_;
  OutputTagger *tagger_;
  double job_timeout_s_;
  HangCheck *hang_check_;
  NodeLink *link_;
  int first_pe_;
  std::optional<Clock::time_point> job_deadline_;
  bool said_done_ = false;  // across hosts: the other nodes know that this node's PEs exited 0

  bool ending_ = false;
  int ending_signal_ = 0;                   // what the PEs were sent first
  std::optional<Clock::time_point> kill_at_;  // when SIGKILL follows, until it is sent
  int exit_status_ = 0;
};

}  // namespace tdist::launcher
