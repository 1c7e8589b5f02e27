#include "fd_io.h"

#include <cerrno>
#include <poll.h>
#include <string>
#include <unistd.h>

namespace tdist::launcher {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t written = ::write(fd, data.data(), data.size());
    if (written > 0) {
      data.remove_prefix(static_cast<std::size_t>(written));
      continue;
    }
    if (written < 0 && errno == EINTR) continue;
    if (written < 0 && errno == EAGAIN) {
      // Whoever started us may have left our stdout non-blocking; wait instead of dropping.
      pollfd writable{.fd = fd, .events = POLLOUT, .revents = 0};
      ::poll(&writable, 1, -1);
      continue;
    }
    return false;
  }
  return true;
}

void report(std::string_view message) {
  std::string line = "tdist-run: ";
  line += message;
  line += '\n';
  writeAll(STDERR_FILENO, line);
}

}  // namespace tdist::launcher
