// runtime/bootstrap_store_server.h - the bootstrap store's server, which PE 0 runs on a thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "runtime/bootstrap_store_wire.h"
#include "runtime/bootstrap_tls.h"

namespace tdist::runtime::bootstrap {

struct ServerOptions {
  int n_pes = 1;
  std::string secret;  // empty only where BootstrapOptions::allow_no_secret allowed it
  // A connection that has not been welcomed as a PE this long after it was accepted is closed,
  // so that connections which never finish their hello cannot pile up.
  std::chrono::milliseconds hello_timeout{std::chrono::seconds(10)};
  std::shared_ptr<TlsContext> tls;  // every connection speaks TLS with it; null: plain TCP
};

// Serves one job's store: a single poll() loop over the listening socket and every peer, with
// non-blocking sockets, so that a slow or hostile peer never holds up the others.
class BootstrapServer {
 public:
  BootstrapServer(UniqueFd listen_fd, ServerOptions options);
  ~BootstrapServer();  // stops at once
  BootstrapServer(const BootstrapServer &) = delete;
  BootstrapServer &operator=(const BootstrapServer &) = delete;

  // Lets every PE that joined say goodbye or disconnect, waiting at most timeout, then stops and
  // closes the listening socket.
  void stopWhenPesLeave(std::chrono::milliseconds timeout) noexcept;

 private:
  class Loop;
  void stop(std::chrono::steady_clock::time_point deadline) noexcept;

  std::unique_ptr<Loop> loop_;
  UniqueFd wake_fd_;  // an eventfd that interrupts the loop's poll() when a stop is asked for
  std::atomic<std::int64_t> stop_at_ns_;
  std::thread thread_;
};

}  // namespace tdist::runtime::bootstrap
