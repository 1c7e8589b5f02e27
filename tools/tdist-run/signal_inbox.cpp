#include "signal_inbox.h"

#include <cerrno>
#include <sys/signalfd.h>
#include <system_error>
#include <unistd.h>

namespace tdist::launcher {

SignalInbox::SignalInbox() {
  sigset_t watched;
  sigemptyset(&watched);
  sigemptyset(&child_state_.reset_to_default);

  // An inherited SIG_IGN would make the kernel reap PEs itself and waitpid() fail.
  struct sigaction child_default {};
  child_default.sa_handler = SIG_DFL;
  ::sigaction(SIGCHLD, &child_default, nullptr);
  sigaddset(&watched, SIGCHLD);
  sigaddset(&child_state_.reset_to_default, SIGCHLD);

  // Stop requests are forwarded to the PEs, except one the launcher was started ignoring (a
  // background job's SIGINT, nohup's SIGHUP): the user asked for the job to outlive it.
  for (int request : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    ::sigaction(request, nullptr, &current);
    if (current.sa_handler != SIG_IGN) sigaddset(&watched, request);
  }

  // A reader of tagged output that goes away must not kill the launcher and orphan the PEs; writes
  // then fail with EPIPE and the output is dropped. PEs get the default back.
  struct sigaction pipe_action {};
  ::sigaction(SIGPIPE, nullptr, &pipe_action);
  if (pipe_action.sa_handler == SIG_DFL) {
    pipe_action.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &pipe_action, nullptr);
    sigaddset(&child_state_.reset_to_default, SIGPIPE);
  }

  if (::sigprocmask(SIG_BLOCK, &watched, &child_state_.mask) != 0)
    throw std::system_error(errno, std::generic_category(), "sigprocmask");
  signalfd_.reset(::signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!signalfd_) throw std::system_error(errno, std::generic_category(), "signalfd");
}

std::vector<int> SignalInbox::takeArrived() {
  std::vector<int> arrived;
  signalfd_siginfo info{};
  while (::read(signalfd_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info))
    arrived.push_back(static_cast<int>(info.ssi_signo));
  return arrived;
}

}  // namespace tdist::launcher
