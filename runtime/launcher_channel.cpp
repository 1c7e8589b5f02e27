#include "runtime/launcher_channel.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <thread>

#include "common/value_parser.h"
#include "tdist/exit_codes.h"

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

// Ends this process once tdist-run is gone. The launcher's end of the socket closes only when
// tdist-run exits, and it exits only after every PE has ended, unless it was killed by a signal
// it cannot catch (SIGKILL, the OOM killer): then nobody is left to end the PEs, and a PE waiting
// for a peer would sit there until its wait deadline. A thread asleep in poll() costs nothing.
void watchLauncher(int fd) {
  std::thread([fd] {
    pollfd watched{.fd = fd, .events = POLLIN | POLLRDHUP, .revents = 0};
    for (;;) {
      const int ready = ::poll(&watched, 1, -1);
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0 || (watched.revents & POLLNVAL) != 0) return;  // the program closed it: no watch
      if ((watched.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) break;
      char byte = 0;  // readable and no hang-up: end-of-file, or bytes tdist-run never writes
      if (::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) break;
      return;
    }
    const char *pe = std::getenv("TDIST_PE");
    std::fprintf(stderr, "tdist: PE %s: tdist-run is gone (its status socket closed): ending this PE\n",
                 pe != nullptr ? pe : "?");
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(kExitFatalError);
  }).detach();
}

int channel() {
  static const int fd = [] {
    const int claimed = claimChannel();
    if (claimed != kNoChannel) watchLauncher(claimed);
    return claimed;
  }();
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
