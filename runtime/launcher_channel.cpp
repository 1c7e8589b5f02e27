#include "runtime/launcher_channel.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <sys/socket.h>

#include "common/value_parser.h"

namespace tdist::runtime {
namespace {

constexpr int kNoChannel = -1;

// One line on stderr, once per process: a channel that failed once stays failed.
void complain(const std::string &what) {
  static std::once_flag once;
  std::call_once(once, [&] {
    const char *pe = std::getenv("TDIST_PE");
    std::fprintf(stderr, "tdist: PE %s: %s; tdist-run will not notice an exit without finalize\n",
                 pe != nullptr ? pe : "?", what.c_str());
  });
}

// The descriptor TDIST_STATUS_FD names, checked to be a stream socket (a number inherited by a
// program the PE started may name anything by now), and made close-on-exec: what this process
// starts in turn must not speak for the PE.
int claimChannel() {
  const char *text = std::getenv("TDIST_STATUS_FD");
  if (text == nullptr || *text == '\0') return kNoChannel;
  values::Parsed<long long> number = values::parseInteger(text, {.min = 0, .max = INT_MAX});
  if (!number) {
    complain("TDIST_STATUS_FD: " + number.error);
    return kNoChannel;
  }
  const int fd = static_cast<int>(*number.value);
  int type = 0;
  socklen_t length = sizeof type;
  if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0) {
    complain("TDIST_STATUS_FD=" + std::string(text) + ": " + std::strerror(errno));
    return kNoChannel;
  }
  if (type != SOCK_STREAM) {
    complain("TDIST_STATUS_FD=" + std::string(text) + " is not a stream socket");
    return kNoChannel;
  }
  const int flags = ::fcntl(fd, F_GETFD);
  if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  return fd;
}

int channel() {
  static const int fd = claimChannel();
  return fd;
}

// One send for the whole word, so that words of two threads do not interleave.
void send(const char *word, std::size_t size) {
  const int fd = channel();
  if (fd == kNoChannel) return;
  ssize_t sent = 0;
  do {
    // MSG_NOSIGNAL: a launcher that is gone must cost an error here, not the PE's life.
    sent = ::send(fd, word, size, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent != static_cast<ssize_t>(size))
    complain(std::string("cannot write to TDIST_STATUS_FD: ") + std::strerror(errno));
}

}  // namespace

void reportInitialized() { send("I", 1); }
void reportFinalized() { send("F", 1); }
void reportEnding(int status) {
  const char word[2] = {'E', static_cast<char>(status & 0xff)};
  send(word, sizeof word);
}

}  // namespace tdist::runtime
