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
                       OutputTagger *tagger, double job_timeout_s, HangCheck *hang_check)
    : pes_(pes), signals_(signals), status_(status), tagger_(tagger),
      job_timeout_s_(job_timeout_s), hang_check_(hang_check) {}

int JobMonitor::run() {
  if (job_timeout_s_ > 0)
    job_deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(job_timeout_s_));
  while (pes_.anyRunning()) {
    std::vector<pollfd> fds = {{.fd = signals_.fd(), .events = POLLIN, .revents = 0}};
    status_.addPollFds(fds);
    if (tagger_) tagger_->addPollFds(fds);
    int ready = ::poll(fds.data(), fds.size(), pollTimeoutMs(Clock::now()));
    if (ready < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "poll");
    if (ready > 0) {
      if (fds[0].revents != 0)
        for (int signo : signals_.takeArrived())
          if (signo != SIGCHLD) onStopRequest(signo);
      status_.service(fds);
      if (tagger_) tagger_->service(fds);
    }
    // Reaping on every turn, not only after a SIGCHLD, is cheap and immune to merged signals.
    for (const PeExit &exit : pes_.reapEnded()) onPeEnded(exit);
    if (pes_.anyRunning()) onTimers(Clock::now());
  }
  if (tagger_) tagger_->finish();
  // What the PEs started (a script's commands) may outlive them; an ended job leaves nothing.
  if (ending_) pes_.signalAll(SIGKILL);
  return exit_status_;
}

void JobMonitor::onPeEnded(const PeExit &exit) {
  if (tagger_) tagger_->drain(exit.pe);
  const RuntimeProgress progress = status_.finish(exit.pe);
  // Once the job is ending, PEs end because they were told to; only the first failure is news.
  if (ending_) return;
  const std::string pe =
      "PE " + std::to_string(exit.pe) + " (pid " + std::to_string(exit.pid) + ")";
  if (!endedCleanly(exit.wait_status)) {
    report(pe + " " + describePeEnd(exit.wait_status) + "; ending the job");
    endJob(exitStatusFor(exit.wait_status), SIGTERM);
  } else if (progress == RuntimeProgress::Initialized) {
    // Its peers would wait for it in their next barrier or in finalize, until their deadline.
    report(pe + " exited with status 0 without calling finalize; ending the job");
    endJob(kExitWithoutFinalize, SIGTERM);
  }
}

void JobMonitor::onStopRequest(int signo) {
  if (!ending_) {
    report("got " + describeSignal(signo) + "; forwarding it to the PEs and ending the job");
    endJob(128 + signo, signo);
    return;
  }
  // Asked again while waiting out the grace period: the user does not want to wait.
  report("got " + describeSignal(signo) + " while ending the job; sending SIGKILL");
  pes_.signalAll(SIGKILL);
  kill_at_.reset();
}

void JobMonitor::onTimers(Clock::time_point now) {
  if (!ending_ && job_deadline_ && now >= *job_deadline_) {
    report("job deadline of " + formatSeconds(job_timeout_s_) + " s passed with " +
           peList(pes_.runningPes()) + " still running; ending the job");
    endJob(kExitJobDeadline, SIGTERM);
  } else if (kill_at_ && now >= *kill_at_) {
    report(peList(pes_.runningPes()) + " still running " + std::to_string(kGracePeriod.count()) +
           " s after SIG" + ::sigabbrev_np(ending_signal_) + "; sending SIGKILL");
    pes_.signalAll(SIGKILL);
    kill_at_.reset();
  } else if (!ending_ && hang_check_) {
    if (std::optional<std::string> diagnosis = hang_check_->look(pes_.runningPes(), now)) {
      writeAll(STDERR_FILENO, *diagnosis);
      endJob(tdist::kExitWaitTimeout, SIGTERM);
    }
  }
}

void JobMonitor::endJob(int exit_status, int signo) {
  ending_ = true;
  ending_signal_ = signo;
  exit_status_ = exit_status;
  pes_.signalAll(signo);
  kill_at_ = Clock::now() + kGracePeriod;
}

int JobMonitor::pollTimeoutMs(Clock::time_point now) const {
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
