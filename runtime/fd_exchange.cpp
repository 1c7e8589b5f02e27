// runtime/fd_exchange.cpp - every PE connects to every peer's listening socket, presents the
// peer's token, and receives the peer's descriptors (SCM_RIGHTS).
//
// No PE waits for another before it has connected to everyone: connections complete in the
// listener's backlog without an accept, so the order in which PEs serve cannot deadlock.
#include "runtime/fd_exchange.h"

#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tdist/error.h"

namespace tdist::runtime {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kNameBytes = 24;   // random part of the abstract socket name
constexpr std::size_t kTokenBytes = 16;
constexpr std::size_t kMaxFds = 16;

struct Contact {
  char name[kNameBytes];
  unsigned char token[kTokenBytes];
};

struct Request {
  std::uint32_t pe;
  unsigned char token[kTokenBytes];
};

[[noreturn]] void fail(const std::string &what, int err = 0) {
  throw Error(ErrorCode::SharedMemory, "init: passing heap descriptors: " + what +
                                           (err != 0 ? std::string(": ") + std::strerror(err) : ""));
}

void randomBytes(void *out, std::size_t n) {
  if (getrandom(out, n, 0) != static_cast<ssize_t>(n)) fail("getrandom", errno);
}

sockaddr_un abstractAddress(const char (&name)[kNameBytes], socklen_t *length) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  // sun_path[0] == 0: the abstract namespace, gone when the socket closes.
  std::memcpy(addr.sun_path + 1, name, kNameBytes);
  *length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + kNameBytes);
  return addr;
}

// Waits until fd is ready for events; false past the deadline.
bool ready(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    int rc = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (rc > 0) return true;
    if (rc < 0 && errno != EINTR) fail("poll", errno);
  }
}

void recvAll(int fd, void *data, std::size_t size, Clock::time_point deadline, const std::string &from) {
  auto *p = static_cast<char *>(data);
  while (size > 0) {
    if (!ready(fd, POLLIN, deadline)) fail("no request from " + from + " before the deadline");
    ssize_t n = recv(fd, p, size, MSG_DONTWAIT);
    if (n == 0) fail(from + " closed the connection");
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      fail("receiving from " + from, errno);
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

UniqueFd connectTo(const Contact &contact, int pe, Clock::time_point deadline) {
  UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) fail("socket", errno);
  socklen_t length;
  sockaddr_un addr = abstractAddress(contact.name, &length);
  // A full backlog answers EAGAIN: retry until the peer has accepted some.
  while (connect(fd.get(), reinterpret_cast<sockaddr *>(&addr), length) != 0) {
    if (errno == EINPROGRESS) break;
    if (errno != EAGAIN && errno != EINTR) fail("connecting to PE " + std::to_string(pe), errno);
    if (Clock::now() >= deadline) fail("connecting to PE " + std::to_string(pe) + ": deadline passed");
    usleep(200);
  }
  return fd;
}

void sendFds(int fd, std::span<const int> fds) {
  unsigned char count = static_cast<unsigned char>(fds.size());
  iovec iov{&count, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  while (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0) {
    if (errno != EINTR && errno != EAGAIN) fail("sending descriptors", errno);
  }
}

std::vector<UniqueFd> receiveFds(int fd, std::size_t expected, int pe, Clock::time_point deadline) {
  const std::string from = "PE " + std::to_string(pe);
  for (;;) {
    if (!ready(fd, POLLIN, deadline)) fail("no descriptors from " + from + " before the deadline");
    unsigned char count = 0;
    iovec iov{&count, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) fail("receiving descriptors from " + from, errno);
    if (n == 0) fail(from + " closed the connection (it refused this PE's request)");
    std::vector<UniqueFd> fds;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      std::size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < k; ++i) {
        int received;
        std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        fds.emplace_back(received);
      }
    }
    if ((msg.msg_flags & MSG_CTRUNC) != 0 || fds.size() != count || count != expected) {
      fail(from + " sent " + std::to_string(fds.size()) + " descriptors, expected " +
           std::to_string(expected));
    }
    return fds;
  }
}

}  // namespace

std::vector<std::vector<UniqueFd>> exchangeFds(BootstrapStore &store, std::span<const int> mine,
                                               std::chrono::milliseconds timeout,
                                               const std::vector<bool> &partners) {
  const int me = store.myPe();
  const int n = store.nPes();
  if (mine.size() > kMaxFds) fail("too many descriptors (" + std::to_string(mine.size()) + ")");
  if (!partners.empty() && partners.size() != static_cast<std::size_t>(n)) fail("a partner table of another size");
  const auto partner = [&](int pe) { return pe != me && (partners.empty() || partners[pe]); };
  int count = 0;
  for (int pe = 0; pe < n; ++pe) count += partner(pe) ? 1 : 0;
  std::vector<std::vector<UniqueFd>> result(n);
  if (n == 1) return result;
  const Clock::time_point deadline = Clock::now() + timeout;

  Contact contact{};
  static const char digits[] = "0123456789abcdefghijklmnopqrstuv";
  unsigned char raw[kNameBytes];
  randomBytes(raw, sizeof raw);
  std::memcpy(contact.name, "tdist-", 6);
  for (std::size_t i = 6; i < kNameBytes; ++i) contact.name[i] = digits[raw[i] & 31];
  randomBytes(contact.token, sizeof contact.token);

  UniqueFd listener(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!listener.valid()) fail("socket", errno);
  socklen_t length;
  sockaddr_un addr = abstractAddress(contact.name, &length);
  if (bind(listener.get(), reinterpret_cast<sockaddr *>(&addr), length) != 0) fail("bind", errno);
  if (listen(listener.get(), count + 1) != 0) fail("listen", errno);

  auto contacts = store.allgather({reinterpret_cast<const std::byte *>(&contact), sizeof contact});

  // Connect to every peer and ask for its descriptors.
  std::vector<UniqueFd> outgoing(n);
  for (int pe = 0; pe < n; ++pe) {
    if (!partner(pe)) continue;
    Contact theirs;
    if (contacts[pe].size() != sizeof theirs) fail("PE " + std::to_string(pe) + " published a malformed contact");
    std::memcpy(&theirs, contacts[pe].data(), sizeof theirs);
    outgoing[pe] = connectTo(theirs, pe, deadline);
    Request request{static_cast<std::uint32_t>(me), {}};
    std::memcpy(request.token, theirs.token, kTokenBytes);
    if (!ready(outgoing[pe].get(), POLLOUT, deadline)) fail("connecting to PE " + std::to_string(pe) + ": deadline passed");
    if (send(outgoing[pe].get(), &request, sizeof request, MSG_NOSIGNAL) != sizeof request) {
      fail("sending the request to PE " + std::to_string(pe), errno);
    }
  }

  // Serve every peer once: same user, this PE's token.
  std::vector<bool> served(n, false);
  for (int left = count; left > 0;) {
    if (!ready(listener.get(), POLLIN, deadline)) {
      std::string missing;
      for (int pe = 0; pe < n; ++pe) {
        if (partner(pe) && !served[pe]) missing += (missing.empty() ? "" : ", ") + std::to_string(pe);
      }
      fail("PEs " + missing + " did not ask for this PE's descriptors before the deadline");
    }
    UniqueFd peer(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!peer.valid()) {
      if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED) continue;
      fail("accept", errno);
    }
    ucred cred{};
    socklen_t cred_length = sizeof cred;
    if (getsockopt(peer.get(), SOL_SOCKET, SO_PEERCRED, &cred, &cred_length) != 0 || cred.uid != getuid()) {
      continue;  // another user's process: not a PE of this job
    }
    Request request{};
    recvAll(peer.get(), &request, sizeof request, deadline, "a connecting PE");
    const bool valid = request.pe < static_cast<std::uint32_t>(n) && partner(static_cast<int>(request.pe)) &&
                       !served[request.pe] &&
                       std::memcmp(request.token, contact.token, kTokenBytes) == 0;
    if (!valid) continue;  // closes the connection: the requester fails, naming this PE
    sendFds(peer.get(), mine);
    served[request.pe] = true;
    --left;
  }
  listener.reset();

  for (int pe = 0; pe < n; ++pe) {
    if (partner(pe)) result[pe] = receiveFds(outgoing[pe].get(), mine.size(), pe, deadline);
  }
  return result;
}

}  // namespace tdist::runtime
