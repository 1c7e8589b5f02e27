// runtime/bootstrap_tls.h - TLS for the bootstrap store (seed 001 §5.1, set_conf_store_tls), and
// the stream the store's client and server read and write: a non-blocking socket, plain or TLS.
//
// With TLS both sides present a certificate signed by the job's CA and check the other's (mutual
// TLS, TLS 1.2 or later, OpenSSL); the job secret is still required on top. Host names are not
// checked: a job runs on addresses, and holding the CA's signature and the secret is what admits
// a PE. Built without OpenSSL, asking for TLS is Error(NotSupported).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace tdist::runtime {

struct TlsOptions {
  std::string ca;    // PEM file of the CA that signs every PE's certificate
  std::string cert;  // PEM file of this PE's certificate (its chain may follow it)
  std::string key;   // PEM file of its private key
  bool enabled() const { return !ca.empty() || !cert.empty() || !key.empty(); }
};

// Reads "ca=FILE;cert=FILE;key=FILE" (any order; ';' or ',' between them), the tls_info of
// set_conf_store_tls; "" is TLS off. Throws Error(InvalidParam) naming what is wrong: an unknown
// field, a missing one, a repeated one.
TlsOptions parseTlsInfo(std::string_view info);

// The environment's TDIST_TLS_CA, TDIST_TLS_CERT and TDIST_TLS_KEY as tls_info ("" when none is
// set; all three are needed once one is, which parseTlsInfo checks).
std::string tlsInfoFromEnvironment();

namespace bootstrap {

// One side's TLS configuration, loaded once: its certificate, key and CA. Throws
// Error(InvalidParam) naming the file that cannot be read or does not fit (a key that is not the
// certificate's), Error(NotSupported) without OpenSSL.
class TlsContext {
 public:
  enum class Side { Client, Server };
  static std::shared_ptr<TlsContext> make(const TlsOptions &options, Side side);
  ~TlsContext();
  TlsContext(const TlsContext &) = delete;
  TlsContext &operator=(const TlsContext &) = delete;
  Side side() const { return side_; }
  void *native() const { return ctx_; }  // SSL_CTX *

 private:
  TlsContext(void *ctx, Side side) : ctx_(ctx), side_(side) {}
  void *ctx_;
  Side side_;
};

// What one read or write did.
struct StreamStep {
  enum Kind { Bytes, WantRead, WantWrite, Closed } kind;
  std::size_t n = 0;    // Bytes: how many
  int err = 0;          // Closed: errno, or 0 when the peer closed in order
  std::string failure = {};  // Closed by TLS: why (a certificate not verified, a handshake refused)
};

// A connected non-blocking socket, plain or TLS (which it owns). The TLS handshake happens in the
// first reads and writes.
class Stream {
 public:
  Stream() = default;
  Stream(int fd, const std::shared_ptr<TlsContext> &tls);  // tls null: plain
  ~Stream();
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  StreamStep read(std::byte *data, std::size_t size);
  StreamStep write(const std::byte *data, std::size_t size);
  bool tls() const { return ssl_ != nullptr; }

 private:
  StreamStep tlsStep(int rc);
  int fd_ = -1;        // not owned
  void *ssl_ = nullptr;  // SSL *
};

}  // namespace bootstrap
}  // namespace tdist::runtime
