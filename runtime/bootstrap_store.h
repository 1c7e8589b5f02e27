// runtime/bootstrap_store.h - the job's TCP key-value store.
//
// PE 0 serves it (a background thread) and every PE, PE 0 included, connects to it: a star, as
// aclshmem's config store. A peer must present the job's secret in its hello or is refused.
// Every blocking call ends with Error(Bootstrap) when its deadline passes.
//
// The secret is what keeps other processes out: the port is reachable by anything on the host,
// and by other hosts unless it is bound to loopback. So a store never starts without one unless
// its caller says, in so many words, that the job may run open.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/bootstrap_tls.h"

namespace tdist::runtime {

struct Endpoint {
  std::string host;    // numeric address or name; IPv6 without brackets
  std::uint16_t port;  // 1024 < port < 65536
  bool ipv6 = false;
};

// Parses "tcp://host:port" or "tcp6://[host]:port"; throws Error(InvalidParam) naming the text
// and what is wrong with it.
Endpoint parseIpPort(std::string_view text);

// A job secret is at least this long; tdist-run makes 32 hex digits (128 random bits).
inline constexpr std::size_t kMinSecretBytes = 16;

struct BootstrapOptions {
  int my_pe = 0;
  int n_pes = 1;
  // What every PE presents in its hello; PE 0's store refuses any other. Required, the same on
  // every PE and at least kMinSecretBytes long, or connectBootstrapStore throws
  // Error(InvalidParam). It appears in no log and no error message.
  std::string secret;
  // INSECURE: lets an empty secret through. Then any process, local or remote, that reaches the
  // port can join the job as a PE and read and write its keys. PE 0 logs that it serves an open
  // store. A secret that is set is checked as usual, length included.
  bool allow_no_secret = false;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(120)};  // retry until then
  std::chrono::milliseconds op_timeout{std::chrono::seconds(120)};       // get/wait/barrier
  int listen_fd = -1;  // PE 0: serve on this listening socket (not closed by the store)
  // PE 0: the store closes a connection that has not completed its hello this long after it was
  // accepted (logging the peer's address), so that silent connections cannot pile up. PEs send
  // their hello as soon as they connect; once welcomed, a PE is never timed out by this.
  std::chrono::milliseconds hello_timeout{std::chrono::seconds(10)};
  // TLS between every PE and the store (runtime/bootstrap_tls.h); off when empty. The same on
  // every PE: a PE without it cannot talk to a store with it, and the reverse.
  TlsOptions tls;
};

using Bytes = std::vector<std::byte>;

class BootstrapStore {
 public:
  virtual ~BootstrapStore() = default;

  virtual void set(const std::string &key, std::span<const std::byte> value) = 0;
  // Blocks until key exists or the op deadline passes.
  virtual Bytes get(const std::string &key) = 0;
  virtual void barrier() = 0;
  // Entry i of the result is PE i's contribution.
  virtual std::vector<Bytes> allgather(std::span<const std::byte> mine) = 0;

  int myPe() const { return my_pe_; }
  int nPes() const { return n_pes_; }

 protected:
  BootstrapStore(int my_pe, int n_pes) : my_pe_(my_pe), n_pes_(n_pes) {}

 private:
  int my_pe_;
  int n_pes_;
};

// Connects to (and on PE 0 first starts) the store at endpoint. Throws Error(InvalidParam) for
// options that are out of range or lack a secret (see BootstrapOptions::secret). Destroying the
// store of PE 0 waits, up to op_timeout, until every PE has closed its connection, then stops the
// server.
std::unique_ptr<BootstrapStore> connectBootstrapStore(const Endpoint &endpoint,
                                                      const BootstrapOptions &options);

}  // namespace tdist::runtime
