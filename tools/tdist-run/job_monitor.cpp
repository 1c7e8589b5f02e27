#include "job_monitor.h"

#include <cerrno>
#include <cstring>
#include <sstream>
#include <system_error>
#include <unistd.h>

#include "exit_status.h"
#include "fd_io.h"
#include "tdist/exit_codes.h"

namespace tdist::launcher {
namespace {

// "PE 3" or "PEs 0, 3".
std::string peList(const std::vector<int> &pes) {
  std::string text = pes.size() == 1 ? "PE " : "PEs ";
  for (std::size_t i = 0; i < pes.size(); ++i) text += (i ? ", " : "") + std::to_string(pes[i]);
  return text;
}

std::string describeSignal(int signo) {
  return "signal " + std::to_string(signo) + " (" + ::strsignal(signo) + ")";
}

std::string formatSeconds(double seconds) {
  std::ostringstream text;  // %g-like: "30", "1.5"
  text << seconds;
  return text.str();
}

}  // namespace

JobMonitor::JobMonitor(ProcessGroup &pes, SignalInbox &signals, StatusChannels &status,
                       OutputTagger *tagger, double job_timeout_s, HangCheck *hang_check,
                       NodeLink *link, int first_pe)
    : pes_(pes), signals_(signals), status_(status), tagger_(tagger),
      job_timeout_s_(job_timeout_s), hang_check_(hang_check), link_(link), first_pe_(first_pe) {}

int JobMonitor::run() {
  if (job_timeout_s_ > 0)
    job_deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(job_timeout_s_));
  while (pes_.anyRunning() || awaitingOtherNodes()) {
    std::vector<pollfd> fds = {{.fd = signals_.fd(), .events = POLLIN, .revents = 0}};
    status_.addPollFds(fds);
    if (tagger_) tagger_->addPollFds(fds);
    if (link_) link_->addPollFds(fds);
    int ready = ::poll(fds.data(), fds.size(), pollTimeoutMs(Clock::now()));
    if (ready < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "poll");
    if (ready > 0) {
      if (fds[0].revents != 0)
        for (int signo : signals_.takeArrived())
          if (signo != SIGCHLD) onStopRequest(signo);
      status_.service(fds);
      if (tagger_) tagger_->service(fds);
    }
    if (link_)
      for (const LinkEvent &event : link_->service(fds, Clock::now())) onLinkEvent(event);
    // Reaping on every turn, not only after a SIGCHLD, is cheap and immune to merged signals.
    for (const PeExit &exit : pes_.reapEnded()) onPeEnded(exit);
    if (link_ && !ending_ && !said_done_ && !pes_.anyRunning()) {
      link_->announceDone();
      said_done_ = true;
    }
    if (pes_.anyRunning() || awaitingOtherNodes()) onTimers(Clock::now());
  }
  if (tagger_) tagger_->finish();
  // What the PEs started (a script's commands) may outlive them; an ended job leaves nothing.
  if (ending_) pes_.signalAll(SIGKILL);
  return exit_status_;
}

std::vector<int> JobMonitor::runningPes() const {
  std::vector<int> running = pes_.runningPes();
  for (int &pe : running) pe += first_pe_;
  return running;
}

void JobMonitor::onPeEnded(const PeExit &exit) {
  if (tagger_) tagger_->drain(exit.pe);
  const RuntimeProgress progress = status_.finish(exit.pe);
  // Once the job is ending, PEs end because they were told to; only the first failure is news.
  if (ending_) return;
  const std::string pe = "PE " + std::to_string(first_pe_ + exit.pe);
  const std::string pe_and_pid = pe + " (pid " + std::to_string(exit.pid) + ")";
  if (!endedCleanly(exit.wait_status)) {
    // A PE that ends itself says so first; its peers can fail of it (PE 0's store closes with
    // it) before its own exit, slowed by a GPU context's teardown, is seen. What it said was
    // written before they failed, so it is there to read now.
    status_.readAll();
    if (const auto first = status_.firstEnding(); first && first->pe != exit.pe) {
      const std::string cause = "PE " + std::to_string(first_pe_ + first->pe);
      const std::string how = describeExitStatus(first->status);
      report(cause + " (pid " + std::to_string(pes_.pid(first->pe)) + ") is exiting with " + how +
             "; ending the job");
      endJob(first->status, SIGTERM, cause + " exited with " + how);
      return;
    }
    report(pe_and_pid + " " + describePeEnd(exit.wait_status) + "; ending the job");
    endJob(exitStatusFor(exit.wait_status), SIGTERM, pe + " " + describePeEnd(exit.wait_status));
  } else if (progress == RuntimeProgress::Initialized) {
    // Its peers would wait for it in their next barrier or in finalize, until their deadline.
    report(pe_and_pid + " exited with status 0 without calling finalize; ending the job");
    endJob(kExitWithoutFinalize, SIGTERM, pe + " exited with status 0 without calling finalize");
  }
}

void JobMonitor::onStopRequest(int signo) {
  if (!ending_) {
    report("got " + describeSignal(signo) + "; forwarding it to the PEs and ending the job");
    endJob(128 + signo, signo, "its tdist-run got " + describeSignal(signo));
    return;
  }
  // Asked again while waiting out the grace period: the user does not want to wait.
  report("got " + describeSignal(signo) + " while ending the job; sending SIGKILL");
  pes_.signalAll(SIGKILL);
  kill_at_.reset();
}

void JobMonitor::onLinkEvent(const LinkEvent &event) {
  if (event.kind == LinkEvent::Kind::Ended) {
    // Said even while this node's job is ending already: the two ends crossed, and the other
    // node's reason may be the first cause.
    report("node " + std::to_string(event.node) + " ended the job: " + event.reason);
    if (!ending_) endJob(event.exit_status, SIGTERM, event.reason, event.node);
    return;
  }
  if (ending_) return;  // the other nodes end with this one: their links close
  report(event.reason + "; ending the job");
  endJob(kExitLauncherError, SIGTERM, event.reason);
}

void JobMonitor::onTimers(Clock::time_point now) {
  if (!ending_ && job_deadline_ && now >= *job_deadline_) {
    const std::string still = pes_.anyRunning() ? peList(runningPes()) : link_->awaitedNodes();
    report("job deadline of " + formatSeconds(job_timeout_s_) + " s passed with " + still +
           " still running; ending the job");
    endJob(kExitJobDeadline, SIGTERM,
           "its job deadline of " + formatSeconds(job_timeout_s_) + " s passed");
  } else if (kill_at_ && now >= *kill_at_) {
    report(peList(runningPes()) + " still running " + std::to_string(kGracePeriod.count()) +
           " s after SIG" + ::sigabbrev_np(ending_signal_) + "; sending SIGKILL");
    pes_.signalAll(SIGKILL);
    kill_at_.reset();
  } else if (!ending_ && hang_check_) {
    onHangCheck(now);
  }
}

void JobMonitor::onHangCheck(Clock::time_point now) {
  const std::vector<int> running = pes_.runningPes();
  if (link_ == nullptr || link_->node() == 0) {
    std::optional<std::string> diagnosis =
        link_ ? hang_check_->lookAcrossNodes(running, link_->hangViews(), now)
              : hang_check_->look(running, now);
    if (diagnosis) {
      writeAll(STDERR_FILENO, *diagnosis);
      endJob(tdist::kExitWaitTimeout, SIGTERM,
             "no PE can make progress (node 0's tdist-run lists what each waits for)");
    }
  } else if (std::optional<NodeHangView> view = hang_check_->view(link_->node(), running, now)) {
    link_->sendHangView(*view, now);  // node 0 decides for the job
  }
}

void JobMonitor::endJob(int exit_status, int signo, const std::string &why, int origin) {
  ending_ = true;
  ending_signal_ = signo;
  exit_status_ = exit_status;
  pes_.signalAll(signo);
  kill_at_ = Clock::now() + kGracePeriod;
  if (link_) link_->announceEnd(origin < 0 ? link_->node() : origin, exit_status, why);
}

int JobMonitor::pollTimeoutMs(Clock::time_point now) const {
  if (link_ && link_->hasUnreadFrames()) return 0;
  std::optional<Clock::time_point> next = kill_at_;
  if (!ending_ && job_deadline_) next = job_deadline_;
  if (!ending_ && hang_check_ && (!next || hang_check_->nextLook() < *next)) next = hang_check_->nextLook();
  if (!next) return -1;
  if (*next <= now) return 0;
  // Rounded up, so that the loop does not wake just before the deadline and spin until it.
  auto wait = std::chrono::ceil<std::chrono::milliseconds>(*next - now);
  return static_cast<int>(std::min<std::chrono::milliseconds::rep>(wait.count(), 1 << 30));
}

}  // namespace tdist::launcher
