#include "bootstrap_listener.h"

#include <arpa/inet.h>
#include <cerrno>
#include <netdb.h>
#include <sys/socket.h>
#include <system_error>

#include "options.h"

namespace tdist::launcher {
namespace {

std::string formatIpPort(const sockaddr_storage &address) {
  char host[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET6) {
    const auto &v6 = reinterpret_cast<const sockaddr_in6 &>(address);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, host, sizeof host);
    return "tcp6://[" + std::string(host) + "]:" + std::to_string(ntohs(v6.sin6_port));
  }
  const auto &v4 = reinterpret_cast<const sockaddr_in &>(address);
  ::inet_ntop(AF_INET, &v4.sin_addr, host, sizeof host);
  return "tcp://" + std::string(host) + ":" + std::to_string(ntohs(v4.sin_port));
}

}  // namespace

BootstrapListener BootstrapListener::open(const std::string &host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *candidates = nullptr;
  if (int error = ::getaddrinfo(host.c_str(), "0", &hints, &candidates); error != 0)
    throw UsageError("--host: cannot resolve '" + host + "': " + ::gai_strerror(error));

  int bind_error = 0;
  BootstrapListener listener;
  for (addrinfo *candidate = candidates; candidate; candidate = candidate->ai_next) {
    UniqueFd socket(::socket(candidate->ai_family, candidate->ai_socktype | SOCK_CLOEXEC,
                             candidate->ai_protocol));
    if (!socket) {
      bind_error = errno;
      continue;
    }
    if (::bind(socket.get(), candidate->ai_addr, candidate->ai_addrlen) != 0) {
      bind_error = errno;
      continue;
    }
    listener.socket_ = std::move(socket);
    break;
  }
  ::freeaddrinfo(candidates);
  if (!listener.socket_)
    throw UsageError("--host: cannot listen on '" + host + "': " +
                     std::generic_category().message(bind_error));

  // The backlog holds every PE's first connection, even if PE 0 is slow to start accepting.
  if (::listen(listener.socket_.get(), SOMAXCONN) != 0)
    throw std::system_error(errno, std::generic_category(), "listen on the bootstrap socket");
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  if (::getsockname(listener.socket_.get(), reinterpret_cast<sockaddr *>(&bound), &length) != 0)
    throw std::system_error(errno, std::generic_category(), "getsockname of the bootstrap socket");
  listener.ip_port_ = formatIpPort(bound);
  return listener;
}

}  // namespace tdist::launcher
