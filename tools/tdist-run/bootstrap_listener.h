// bootstrap_listener.h - the listening socket of the job's bootstrap store.
//
// tdist-run binds it on host:0 and hands it to PE 0, which serves the store on it. Binding here
// rather than in PE 0 means the port is known before any PE starts (every PE gets it in
// TDIST_IP_PORT), and port 0 lets the kernel pick a free one, so jobs never collide.
#pragma once

#include <string>

#include "fd_io.h"

namespace tdist::launcher {

class BootstrapListener {
 public:
  // Throws UsageError when host cannot be resolved or bound (a bad --host), std::system_error
  // for other failures.
  static BootstrapListener open(const std::string &host);

  // Close-on-exec: only PE 0 gets it, through an explicit inheritance at spawn.
  int fd() const { return socket_.get(); }
  // "tcp://127.0.0.1:40123" or "tcp6://[::1]:40123", the form InitAttr::ip_port expects.
  const std::string &ipPort() const { return ip_port_; }
  // The launcher's copy; closed once PE 0 holds its own, so that peers see "connection refused"
  // rather than an unanswered queue if PE 0 dies before serving.
  void close() { socket_.reset(); }

 private:
  UniqueFd socket_;
  std::string ip_port_;
};

}  // namespace tdist::launcher
