// test/support/single_pe.h - initializing the runtime as a one-PE job inside a test process.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "tdist/runtime.h"

namespace tdist::testing {

// A listening socket on a free loopback port, handed to PE 0 as the store's socket.
struct Listener {
  int fd = -1;
  int port = 0;
  Listener() {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
    listen(fd, 16);
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  ~Listener() {
    if (fd >= 0) close(fd);
  }
  Listener(const Listener &) = delete;
  Listener &operator=(const Listener &) = delete;
  std::string ipPort() const { return "tcp://127.0.0.1:" + std::to_string(port); }
};

inline InitAttr singlePeAttr(const Listener &listener, std::size_t heap_bytes = 1 << 20) {
  InitAttr attr;
  attr.my_pe = 0;
  attr.n_pes = 1;
  attr.ip_port = listener.ipPort();
  attr.listen_fd = listener.fd;
  attr.local_mem_size = heap_bytes;
  attr.job_secret = "single-pe-test-secret";
  return attr;
}

}  // namespace tdist::testing
