// runtime/bootstrap_tls.cpp - TLS for the bootstrap store, on OpenSSL where the build found it.
#include "runtime/bootstrap_tls.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <utility>

#include "tdist/error.h"

#ifdef TDIST_WITH_OPENSSL
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#endif

namespace tdist::runtime {

TlsOptions parseTlsInfo(std::string_view info) {
  TlsOptions options;
  auto bad = [&](const std::string &why) {
    return Error(ErrorCode::InvalidParam, "bad tls_info '" + std::string(info) + "': " + why +
                                              " (expected ca=FILE;cert=FILE;key=FILE)");
  };
  std::string_view rest = info;
  while (!rest.empty()) {
    const auto end = rest.find_first_of(";,");
    std::string_view field = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) field.remove_prefix(1);
    while (!field.empty() && (field.back() == ' ' || field.back() == '\t')) field.remove_suffix(1);
    if (field.empty()) continue;
    const auto equals = field.find('=');
    if (equals == std::string_view::npos) throw bad("'" + std::string(field) + "' has no '='");
    const std::string_view name = field.substr(0, equals), value = field.substr(equals + 1);
    std::string *slot = name == "ca" ? &options.ca : name == "cert" ? &options.cert : name == "key" ? &options.key
                                                                                                 : nullptr;
    if (slot == nullptr) throw bad("unknown field '" + std::string(name) + "'");
    if (!slot->empty()) throw bad("'" + std::string(name) + "' given twice");
    if (value.empty()) throw bad("'" + std::string(name) + "' names no file");
    *slot = std::string(value);
  }
  if (options.enabled()) {
    for (const auto &[name, value] : {std::pair{"ca", &options.ca}, {"cert", &options.cert}, {"key", &options.key}}) {
      if (value->empty()) throw bad(std::string("'") + name + "' is missing");
    }
  }
  return options;
}

std::string tlsInfoFromEnvironment() {
  std::string info;
  for (const auto &[name, field] : {std::pair{"TDIST_TLS_CA", "ca"}, {"TDIST_TLS_CERT", "cert"},
                                    {"TDIST_TLS_KEY", "key"}}) {
    const char *value = std::getenv(name);
    if (value != nullptr && *value != '\0') info += std::string(info.empty() ? "" : ";") + field + "=" + value;
  }
  return info;
}

namespace bootstrap {

namespace {

StreamStep plainRead(int fd, std::byte *data, std::size_t size) {
  for (;;) {
    const ssize_t n = ::recv(fd, data, size, 0);
    if (n > 0) return {StreamStep::Bytes, static_cast<std::size_t>(n)};
    if (n == 0) return {StreamStep::Closed, 0, 0};
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {StreamStep::WantRead};
    if (errno != EINTR) return {StreamStep::Closed, 0, errno};
  }
}

StreamStep plainWrite(int fd, const std::byte *data, std::size_t size) {
  for (;;) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n >= 0) return {StreamStep::Bytes, static_cast<std::size_t>(n)};
    if (errno == EAGAIN || errno == EWOULDBLOCK) return {StreamStep::WantWrite};
    if (errno != EINTR) return {StreamStep::Closed, 0, errno};
  }
}

}  // namespace

#ifdef TDIST_WITH_OPENSSL

namespace {

// OpenSSL's queued errors as one text (and the queue emptied).
std::string opensslErrors() {
  std::string text;
  while (const unsigned long code = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof buffer);
    text += (text.empty() ? "" : "; ") + std::string(buffer);
  }
  return text.empty() ? "no detail from OpenSSL" : text;
}

SSL *asSsl(void *ssl) { return static_cast<SSL *>(ssl); }

}  // namespace

std::shared_ptr<TlsContext> TlsContext::make(const TlsOptions &options, Side side) {
  ERR_clear_error();
  SSL_CTX *ctx = SSL_CTX_new(side == Side::Server ? TLS_server_method() : TLS_client_method());
  if (ctx == nullptr) throw Error(ErrorCode::Internal, "TLS: SSL_CTX_new failed: " + opensslErrors());
  std::shared_ptr<TlsContext> context(new TlsContext(ctx, side));
  auto fail = [&](const std::string &what, const std::string &file) {
    return Error(ErrorCode::InvalidParam, "TLS for the bootstrap store: " + what + " '" + file + "': " + opensslErrors());
  };
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(ctx, options.cert.c_str()) != 1)
    throw fail("cannot use the certificate", options.cert);
  if (SSL_CTX_use_PrivateKey_file(ctx, options.key.c_str(), SSL_FILETYPE_PEM) != 1)
    throw fail("cannot use the private key", options.key);
  if (SSL_CTX_check_private_key(ctx) != 1) throw fail("the private key does not match the certificate", options.key);
  if (SSL_CTX_load_verify_locations(ctx, options.ca.c_str(), nullptr) != 1) throw fail("cannot read the CA", options.ca);
  // Both sides check the other's certificate against the CA: a peer without one is refused.
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  return context;
}

TlsContext::~TlsContext() { SSL_CTX_free(static_cast<SSL_CTX *>(ctx_)); }

Stream::Stream(int fd, const std::shared_ptr<TlsContext> &tls) : fd_(fd) {
  if (!tls) return;
  SSL *ssl = SSL_new(static_cast<SSL_CTX *>(tls->native()));
  if (ssl == nullptr || SSL_set_fd(ssl, fd) != 1) {
    SSL_free(ssl);
    throw Error(ErrorCode::Internal, "TLS: cannot set up a connection: " + opensslErrors());
  }
  if (tls->side() == TlsContext::Side::Server) SSL_set_accept_state(ssl);
  else SSL_set_connect_state(ssl);
  ssl_ = ssl;
}

Stream::~Stream() { SSL_free(asSsl(ssl_)); }

StreamStep Stream::tlsStep(int rc) {
  if (rc > 0) return {StreamStep::Bytes, static_cast<std::size_t>(rc)};
  const int saved_errno = errno;
  switch (SSL_get_error(asSsl(ssl_), rc)) {
    case SSL_ERROR_WANT_READ: return {StreamStep::WantRead};
    case SSL_ERROR_WANT_WRITE: return {StreamStep::WantWrite};
    case SSL_ERROR_ZERO_RETURN: return {StreamStep::Closed, 0, 0};
    case SSL_ERROR_SYSCALL: {
      ERR_clear_error();
      return {StreamStep::Closed, 0, saved_errno == 0 ? ECONNRESET : saved_errno};
    }
    default: {
      std::string why = opensslErrors();
      const long verify = SSL_get_verify_result(asSsl(ssl_));
      if (verify != X509_V_OK) why = std::string("certificate not accepted: ") + X509_verify_cert_error_string(verify) + " (" + why + ")";
      return {StreamStep::Closed, 0, EPROTO, "TLS: " + why};
    }
  }
}

StreamStep Stream::read(std::byte *data, std::size_t size) {
  if (ssl_ != nullptr) {
    ERR_clear_error();
    return tlsStep(SSL_read(asSsl(ssl_), data, static_cast<int>(std::min<std::size_t>(size, 1 << 30))));
  }
  return plainRead(fd_, data, size);
}

StreamStep Stream::write(const std::byte *data, std::size_t size) {
  if (ssl_ != nullptr) {
    ERR_clear_error();
    return tlsStep(SSL_write(asSsl(ssl_), data, static_cast<int>(std::min<std::size_t>(size, 1 << 30))));
  }
  return plainWrite(fd_, data, size);
}

#else  // without OpenSSL: plain streams only

std::shared_ptr<TlsContext> TlsContext::make(const TlsOptions &, Side) {
  throw Error(ErrorCode::NotSupported,
              "TLS for the bootstrap store: this tdist was built without OpenSSL (Debian: libssl-dev)");
}

TlsContext::~TlsContext() = default;

Stream::Stream(int fd, const std::shared_ptr<TlsContext> &) : fd_(fd) {}
Stream::~Stream() = default;
StreamStep Stream::tlsStep(int) { return {StreamStep::Closed, 0, EPROTO}; }

StreamStep Stream::read(std::byte *data, std::size_t size) { return plainRead(fd_, data, size); }
StreamStep Stream::write(const std::byte *data, std::size_t size) { return plainWrite(fd_, data, size); }

#endif

Stream::Stream(Stream &&other) noexcept : fd_(other.fd_), ssl_(std::exchange(other.ssl_, nullptr)) {}

Stream &Stream::operator=(Stream &&other) noexcept {
  if (this != &other) {
    Stream gone(std::move(*this));
    fd_ = other.fd_;
    ssl_ = std::exchange(other.ssl_, nullptr);
  }
  return *this;
}

}  // namespace bootstrap
}  // namespace tdist::runtime
