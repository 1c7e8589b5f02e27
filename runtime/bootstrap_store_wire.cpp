// runtime/bootstrap_store_wire.cpp - message encoding and socket helpers of the bootstrap store.
#include "runtime/bootstrap_store_wire.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "tdist/error.h"

namespace tdist::runtime::bootstrap {

const char *toString(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::Barrier: return "barrier";
    case CollectiveKind::Allgather: return "allgather";
  }
  return "collective";
}

// ---- messages -------------------------------------------------------------------------------

MessageWriter::MessageWriter(MsgType type) : out_(kLengthBytes) { u8(static_cast<std::uint8_t>(type)); }

MessageWriter &MessageWriter::putLe(std::uint64_t value, int n_bytes) {
  for (int i = 0; i < n_bytes; ++i) out_.push_back(static_cast<std::byte>(value >> (8 * i)));
  return *this;
}

MessageWriter &MessageWriter::blob(std::span<const std::byte> bytes) {
  if (bytes.size() > kMaxMessageBytes) throw ProtocolError("field too large for one message");
  u32(static_cast<std::uint32_t>(bytes.size()));
  out_.insert(out_.end(), bytes.begin(), bytes.end());
  return *this;
}

MessageWriter &MessageWriter::str(std::string_view text) {
  return blob(std::as_bytes(std::span(text.data(), text.size())));
}

Bytes MessageWriter::finish() {
  const std::size_t body = out_.size() - kLengthBytes;
  if (body > kMaxMessageBytes) throw ProtocolError("message too large");
  for (std::size_t i = 0; i < kLengthBytes; ++i) out_[i] = static_cast<std::byte>(body >> (8 * i));
  return std::move(out_);
}

MessageReader::MessageReader(std::span<const std::byte> body) : rest_(body) { type_ = static_cast<MsgType>(u8()); }

std::span<const std::byte> MessageReader::take(std::size_t n_bytes) {
  if (n_bytes > rest_.size()) throw ProtocolError("truncated message");
  auto field = rest_.first(n_bytes);
  rest_ = rest_.subspan(n_bytes);
  return field;
}

std::uint64_t MessageReader::getLe(int n_bytes) {
  std::uint64_t value = 0;
  auto field = take(static_cast<std::size_t>(n_bytes));
  for (int i = 0; i < n_bytes; ++i) value |= std::to_integer<std::uint64_t>(field[i]) << (8 * i);
  return value;
}

Bytes MessageReader::blob() {
  auto field = take(u32());
  return Bytes(field.begin(), field.end());
}

std::string MessageReader::str() {
  auto field = take(u32());
  return std::string(reinterpret_cast<const char *>(field.data()), field.size());
}

void MessageReader::expectEnd() const {
  if (!rest_.empty()) throw ProtocolError("trailing bytes in message");
}

std::uint32_t readLength(const std::byte *prefix) {
  std::uint32_t length = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i) length |= std::to_integer<std::uint32_t>(prefix[i]) << (8 * i);
  return length;
}

// ---- sockets --------------------------------------------------------------------------------

UniqueFd &UniqueFd::operator=(UniqueFd &&other) noexcept {
  if (this != &other) {
    reset();
    fd_ = other.release();
  }
  return *this;
}

int UniqueFd::release() noexcept { return std::exchange(fd_, -1); }

void UniqueFd::reset() noexcept {
  // Not retried on EINTR: Linux frees the descriptor even then, and a retry could close a
  // descriptor another thread has just been given.
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

AddrInfoList resolve(const Endpoint &endpoint, bool passive, std::string *error) {
  addrinfo hints{};
  hints.ai_family = endpoint.ipv6 ? AF_INET6 : AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo *list = nullptr;
  const std::string port = std::to_string(endpoint.port);
  const int rc = ::getaddrinfo(endpoint.host.c_str(), port.c_str(), &hints, &list);
  if (rc != 0) {
    *error = "cannot resolve '" + endpoint.host +
             "': " + (rc == EAI_SYSTEM ? errnoText(errno) : std::string(gai_strerror(rc)));
    return nullptr;
  }
  return AddrInfoList(list);
}

UniqueFd listenOn(const Endpoint &endpoint) {
  const std::string where = formatEndpoint(endpoint);
  std::string error;
  AddrInfoList addresses = resolve(endpoint, /*passive=*/true, &error);
  for (addrinfo *ai = addresses.get(); ai != nullptr; ai = ai->ai_next) {
    UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd.valid()) {
      error = "socket: " + errnoText(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setNoDelay(fd.get());
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
      error = "bind: " + errnoText(errno);
      continue;
    }
    if (::listen(fd.get(), SOMAXCONN) != 0) {
      error = "listen: " + errnoText(errno);
      continue;
    }
    return fd;
  }
  throw Error(ErrorCode::Bootstrap, "cannot serve the bootstrap store at " + where + ": " + error);
}

UniqueFd adoptListeningSocket(int fd) {
  int listening = 0;
  socklen_t length = sizeof listening;
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || !listening)
    throw Error(ErrorCode::InvalidParam, "listen_fd " + std::to_string(fd) + " is not a listening socket");
  // A duplicate, so that the caller's descriptor stays open for the next job; its flags are left
  // alone because the duplicate shares them.
  UniqueFd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  if (!copy.valid()) throw Error(ErrorCode::Bootstrap, "cannot duplicate listen_fd: " + errnoText(errno));
  return copy;
}

void logLine(const std::string &line) { std::fprintf(stderr, "tdist: %s\n", line.c_str()); }

std::string formatEndpoint(const Endpoint &endpoint) {
  const std::string port = std::to_string(endpoint.port);
  return endpoint.ipv6 ? "tcp6://[" + endpoint.host + "]:" + port : "tcp://" + endpoint.host + ":" + port;
}

std::string errnoText(int err) {
  char buffer[128];
  return ::strerror_r(err, buffer, sizeof buffer);  // the GNU variant returns the text
}

std::string peerName(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr *>(&address), &length) != 0) return "an unknown peer";
  char host[INET6_ADDRSTRLEN] = "?";
  if (address.ss_family == AF_INET) {
    const auto *v4 = reinterpret_cast<const sockaddr_in *>(&address);
    ::inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(v4->sin_port));
  }
  if (address.ss_family == AF_INET6) {
    const auto *v6 = reinterpret_cast<const sockaddr_in6 *>(&address);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(v6->sin6_port));
  }
  return "an unknown peer";
}

void setNoDelay(int fd) {
  // Every store message is a small request waiting on its answer; Nagle would add latency to each.
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

bool secretsEqual(std::string_view presented, std::string_view expected) {
  unsigned difference = presented.size() == expected.size() ? 0u : 1u;
  for (std::size_t i = 0; i < presented.size(); ++i) {
    const unsigned char want = expected.empty() ? 0 : static_cast<unsigned char>(expected[i % expected.size()]);
    difference |= static_cast<unsigned char>(presented[i]) ^ want;
  }
  return difference == 0;
}

}  // namespace tdist::runtime::bootstrap
