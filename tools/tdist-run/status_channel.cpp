#include "status_channel.h"

#include <cerrno>
#include <sys/socket.h>
#include <system_error>

namespace tdist::launcher {

StatusChannels::StatusChannels(int n_pes) {
  channels_.resize(static_cast<std::size_t>(n_pes));
  for (Channel &channel : channels_) {
    int ends[2];
    // A socket rather than a pipe: the PE writes with MSG_NOSIGNAL, so that a launcher that is
    // gone costs it an error, not a SIGPIPE.
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
      throw std::system_error(errno, std::generic_category(), "socketpair for a PE's status");
    channel.launcher_end.reset(ends[0]);
    channel.child_end.reset(ends[1]);
  }
}

void StatusChannels::addPollFds(std::vector<pollfd> &fds) const {
  for (const Channel &channel : channels_)
    if (channel.launcher_end)
      fds.push_back({.fd = channel.launcher_end.get(), .events = POLLIN, .revents = 0});
}

void StatusChannels::service(const std::vector<pollfd> &fds) {
  for (const pollfd &fd : fds) {
    if (fd.revents == 0) continue;
    for (Channel &channel : channels_) {
      if (channel.launcher_end.get() != fd.fd) continue;
      if (!readAvailable(channel)) channel.launcher_end.reset();
      break;
    }
  }
}

RuntimeProgress StatusChannels::finish(int pe) {
  Channel &channel = channels_[pe];
  // The PE has ended: what it wrote is all there, and what it started does not speak for it.
  if (channel.launcher_end) readAvailable(channel);
  channel.launcher_end.reset();
  return channel.progress;
}

void StatusChannels::readAll() {
  for (Channel &channel : channels_)
    if (channel.launcher_end && !readAvailable(channel)) channel.launcher_end.reset();
}

std::optional<StatusChannels::Ending> StatusChannels::firstEnding() const {
  std::optional<Ending> first;
  std::uint64_t first_order = 0;
  for (std::size_t pe = 0; pe < channels_.size(); ++pe) {
    const Channel &channel = channels_[pe];
    if (!channel.ending_status || (first && channel.ending_order >= first_order)) continue;
    first = Ending{static_cast<int>(pe), *channel.ending_status};
    first_order = channel.ending_order;
  }
  return first;
}

bool StatusChannels::readAvailable(Channel &channel) {
  while (true) {
    char bytes[64];
    const ssize_t got = ::recv(channel.launcher_end.get(), bytes, sizeof bytes, MSG_DONTWAIT);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
    if (got == 0) return false;
    for (ssize_t i = 0; i < got; ++i) {
      if (channel.status_next) {  // the status of an 'E', perhaps in a read of its own
        channel.status_next = false;
        if (!channel.ending_status) {
          channel.ending_status = static_cast<unsigned char>(bytes[i]);
          channel.ending_order = ++endings_read_;
        }
        continue;
      }
      // Init may follow finalize again; only the last word counts. Other bytes mean nothing.
      if (bytes[i] == 'I') channel.progress = RuntimeProgress::Initialized;
      if (bytes[i] == 'F') channel.progress = RuntimeProgress::Finalized;
      if (bytes[i] == 'E') channel.status_next = true;
    }
  }
}

}  // namespace tdist::launcher
