// runtime/bootstrap_store.h - the job's TCP key-value store.
//
// PE 0 serves it (a background thread) and every PE, PE 0 included, connects to it: a star, as
// aclshmem's config store. A peer must present the job's secret in its hello or is refused.
// Every blocking call ends with Error(Bootstrap) when its deadline passes.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tdist::runtime {

struct Endpoint {
  std::string host;    // numeric address or name; IPv6 without brackets
  std::uint16_t port;  // 1024 < port < 65536
  bool ipv6 = false;
};

// Parses "tcp://host:port" or "tcp6://[host]:port"; throws Error(InvalidParam) naming the text
// and what is wrong with it.
Endpoint parseIpPort(std::string_view text);

struct BootstrapOptions {
  int my_pe = 0;
  int n_pes = 1;
  std::string secret;
  bool allow_no_secret = false;  // insecure: join without a secret
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(120)};  // retry until then
  std::chrono::milliseconds op_timeout{std::chrono::seconds(120)};       // get/wait/barrier
  int listen_fd = -1;  // PE 0: serve on this listening socket (not closed by the store)
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

// Connects to (and on PE 0 first starts) the store at endpoint. Destroying the store of PE 0
// waits, up to op_timeout, until every PE has closed its connection, then stops the server.
std::unique_ptr<BootstrapStore> connectBootstrapStore(const Endpoint &endpoint,
                                                      const BootstrapOptions &options);

}  // namespace tdist::runtime
