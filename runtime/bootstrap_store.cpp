// runtime/bootstrap_store.cpp - ip_port parsing and the client every PE uses to reach the store.
//
// The client is synchronous: one request in flight, answered on the same connection, so a store
// object serves one thread at a time (each PE has its own). Deadlines are enforced here with
// poll(), so a silent or vanished server costs at most the call's timeout. After a timeout or a
// lost connection the client is out of step with the server, so every later call fails with the
// same error instead of reading a stale answer.
#include "runtime/bootstrap_store.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <optional>
#include <thread>
#include <utility>

#include "runtime/bootstrap_store_server.h"
#include "runtime/bootstrap_tls.h"
#include "runtime/bootstrap_store_wire.h"
#include "tdist/error.h"

namespace tdist::runtime {

Endpoint parseIpPort(std::string_view text) {
  auto bad = [text](const std::string &why) {
    return Error(ErrorCode::InvalidParam, "bad ip_port '" + std::string(text) + "': " + why);
  };
  Endpoint endpoint{};
  std::string_view rest, host, port;
  if (text.starts_with("tcp://")) {
    rest = text.substr(6);
    const auto colon = rest.rfind(':');
    if (colon == std::string_view::npos) throw bad("missing port");
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    if (host.find_first_of(":[]") != std::string_view::npos) throw bad("IPv6 hosts need tcp6://[host]:port");
  } else if (text.starts_with("tcp6://")) {
    endpoint.ipv6 = true;
    rest = text.substr(7);
    if (!rest.starts_with('[')) throw bad("tcp6 needs the host in brackets, as tcp6://[::1]:port");
    const auto close = rest.find(']');
    if (close == std::string_view::npos) throw bad("missing ']' after the host");
    host = rest.substr(1, close - 1);
    rest = rest.substr(close + 1);
    if (rest.empty()) throw bad("missing port");
    if (rest[0] != ':') throw bad("expected ':port' after ']'");
    port = rest.substr(1);
  } else {
    throw bad("expected tcp://host:port or tcp6://[host]:port");
  }

  if (host.empty()) throw bad("empty host");
  auto host_char_ok = [&](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '_' ||
           (endpoint.ipv6 && (ch == ':' || ch == '%'));
  };
  if (!std::all_of(host.begin(), host.end(), host_char_ok)) throw bad("host '" + std::string(host) + "' is not valid");
  if (port.empty()) throw bad("missing port");
  if (!std::all_of(port.begin(), port.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    throw bad("port '" + std::string(port) + "' is not a number");
  unsigned value = 0;
  for (char digit : port) value = std::min(value * 10 + static_cast<unsigned>(digit - '0'), 65536u);
  if (value <= 1024 || value > 65535) throw bad("port must be in 1025..65535");
  endpoint.host = std::string(host);
  endpoint.port = static_cast<std::uint16_t>(value);
  return endpoint;
}

namespace {

using namespace bootstrap;
using Clock = std::chrono::steady_clock;

long long elapsedMs(Clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count();
}

// ---- blocking I/O with a deadline over a non-blocking socket ----------------------------------

enum class Io { Done, TimedOut, Closed };
struct IoResult {
  Io status;
  int err = 0;          // with Closed: errno, or 0 when the peer closed in order
  std::string failure = {};  // with Closed by TLS: why (not worth retrying)
};

// False once the deadline has passed; true when fd may be ready (the next call says how).
bool waitReady(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (rc > 0 || (rc < 0 && errno != EINTR)) return true;
  }
}

// Moves all of bytes through one direction of the stream (write, or read into them).
template <typename Step>
IoResult transfer(int fd, std::size_t size, Clock::time_point deadline, Step step) {
  std::size_t done = 0;
  while (done < size) {
    const StreamStep s = step(done);
    if (s.kind == StreamStep::Bytes) {
      done += s.n;
    } else if (s.kind == StreamStep::Closed) {
      return {Io::Closed, s.err, s.failure};
    } else if (!waitReady(fd, s.kind == StreamStep::WantRead ? POLLIN : POLLOUT, deadline)) {
      return {Io::TimedOut};
    }
  }
  return {Io::Done};
}

IoResult sendAll(Stream &stream, int fd, std::span<const std::byte> bytes, Clock::time_point deadline) {
  return transfer(fd, bytes.size(), deadline,
                  [&](std::size_t done) { return stream.write(bytes.data() + done, bytes.size() - done); });
}

IoResult recvExact(Stream &stream, int fd, std::byte *data, std::size_t size, Clock::time_point deadline) {
  return transfer(fd, size, deadline, [&](std::size_t done) {
    StreamStep s = stream.read(data + done, size - done);
    if (s.kind == StreamStep::Bytes && s.n == 0) return StreamStep{StreamStep::Closed, 0, 0};
    return s;
  });
}

IoResult recvMessage(Stream &stream, int fd, Bytes &body, Clock::time_point deadline) {
  std::byte prefix[kLengthBytes];
  if (IoResult r = recvExact(stream, fd, prefix, sizeof prefix, deadline); r.status != Io::Done) return r;
  const std::size_t length = readLength(prefix);
  if (length == 0 || length > kMaxMessageBytes) return {Io::Closed, EPROTO};
  body.resize(length);
  return recvExact(stream, fd, body.data(), length, deadline);
}

// ---- the client ---------------------------------------------------------------------------

class TcpBootstrapStore final : public BootstrapStore {
 public:
  TcpBootstrapStore(const Endpoint &endpoint, const BootstrapOptions &options, std::unique_ptr<BootstrapServer> server)
      : BootstrapStore(options.my_pe, options.n_pes),
        server_(std::move(server)),
        where_(formatEndpoint(endpoint)),
        context_(" (PE " + std::to_string(options.my_pe) + ", store at " + where_ + ")"),
        op_timeout_(options.op_timeout) {
    if (options.tls.enabled()) tls_ = TlsContext::make(options.tls, TlsContext::Side::Client);
    connect(endpoint, options);
  }

  ~TcpBootstrapStore() override {
    sayGoodbye();
    stream_ = Stream();
    fd_.reset();
    if (server_) server_->stopWhenPesLeave(op_timeout_);
  }

  void set(const std::string &key, std::span<const std::byte> value) override {
    const std::string what = "set('" + key + "')";
    checkUsable();
    send(encode(what, [&] { return MessageWriter(MsgType::Set).str(key).blob(value).finish(); }), what,
         Clock::now() + op_timeout_);
  }

  Bytes get(const std::string &key) override {
    const std::string what = "get('" + key + "')";
    Bytes reply = exchange(encode(what, [&] { return MessageWriter(MsgType::Get).str(key).finish(); }), what);
    return parse(reply, MsgType::Value, what, [&](MessageReader &msg) {
      if (msg.str() != key) throw ProtocolError("answer for another key");
      return msg.blob();
    });
  }

  void barrier() override { collective(CollectiveKind::Barrier, ++barriers_, {}); }

  std::vector<Bytes> allgather(std::span<const std::byte> mine) override {
    const std::size_t per_pe = mine.size() + 4;  // each contribution travels with its length
    if (mine.size() > kMaxMessageBytes || per_pe * static_cast<std::size_t>(nPes()) > kMaxMessageBytes - 64) {
      throw Error(ErrorCode::InvalidParam, "bootstrap allgather: " + std::to_string(mine.size()) +
                                               " bytes per PE is too much for the store" + context_);
    }
    return collective(CollectiveKind::Allgather, ++allgathers_, mine);
  }

 private:
  void connect(const Endpoint &endpoint, const BootstrapOptions &options);
  bool tryConnect(const Endpoint &endpoint, const BootstrapOptions &options, Clock::time_point deadline,
                  std::string *transient_error);
  std::vector<Bytes> collective(CollectiveKind kind, std::uint64_t seq, std::span<const std::byte> mine);
  void send(const Bytes &request, const std::string &what, Clock::time_point deadline);
  Bytes exchange(const Bytes &request, const std::string &what);
  void sayGoodbye() noexcept;

  template <typename Build>
  Bytes encode(const std::string &what, Build build) {
    try {
      return build();
    } catch (const ProtocolError &e) {
      throw Error(ErrorCode::InvalidParam, "bootstrap " + what + ": " + e.what() + context_);
    }
  }

  // Reads a reply of type expected with read; Failed replies and malformed ones end the store.
  template <typename Read>
  auto parse(const Bytes &reply, MsgType expected, const std::string &what, Read read)
      -> decltype(read(std::declval<MessageReader &>())) {
    try {
      MessageReader msg(reply);
      if (msg.type() == MsgType::Failed) {
        const auto code = static_cast<ErrorCode>(msg.i32());
        fail(code, "bootstrap " + what + " failed: " + msg.str());
      }
      if (msg.type() != expected) throw ProtocolError("unexpected reply");
      auto result = read(msg);
      msg.expectEnd();
      return result;
    } catch (const ProtocolError &e) {
      fail(ErrorCode::Bootstrap, "bootstrap " + what + ": protocol error: " + e.what());
    }
  }

  void checkUsable() const {
    if (broken_)
      throw Error(broken_->code(), std::string("bootstrap store unusable after an earlier error: ") + broken_->what());
  }

  [[noreturn]] void fail(ErrorCode code, const std::string &message) {
    Error error(code, message + context_);
    broken_ = error;
    throw error;
  }

  std::unique_ptr<BootstrapServer> server_;  // PE 0 only
  std::string where_;
  std::string context_;  // appended to error messages
  std::chrono::milliseconds op_timeout_;
  std::shared_ptr<TlsContext> tls_;  // null: plain TCP
  UniqueFd fd_;
  Stream stream_;  // over fd_
  std::uint64_t barriers_ = 0;
  std::uint64_t allgathers_ = 0;
  std::optional<Error> broken_;
  bool connection_lost_ = false;
};

// How long one connection attempt waits for the store's answer before the next one starts.
constexpr std::chrono::seconds kConnectAttempt{2};

void TcpBootstrapStore::connect(const Endpoint &endpoint, const BootstrapOptions &options) {
  const auto start = Clock::now();
  const auto deadline = start + options.connect_timeout;
  // Short first pauses because the server is usually just a moment late; capped so that a job of
  // many PEs retrying together does not flood it.
  auto pause = std::chrono::milliseconds(1);
  std::string last_error;
  for (;;) {
    if (tryConnect(endpoint, options, deadline, &last_error)) return;
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) break;
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, left));
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
  throw Error(ErrorCode::Bootstrap, "cannot reach the bootstrap store at " + where_ + " from PE " +
                                        std::to_string(options.my_pe) + ": gave up after " +
                                        std::to_string(elapsedMs(start)) + " ms: " + last_error);
}

// Connects and is welcomed (fd_ and stream_ set, true); or false, with *transient_error saying why
// this attempt failed. Throws when the store refuses this PE, or TLS does (a certificate that is
// not accepted), since retrying cannot change the answer.
bool TcpBootstrapStore::tryConnect(const Endpoint &endpoint, const BootstrapOptions &options,
                                   Clock::time_point deadline, std::string *transient_error) {
  AddrInfoList addresses = resolve(endpoint, /*passive=*/false, transient_error);
  for (addrinfo *ai = addresses.get(); ai != nullptr; ai = ai->ai_next) {
    UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd.valid()) {
      *transient_error = "socket: " + errnoText(errno);
      continue;
    }
    int err = ::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS || err == EINTR) {
      // An attempt lasts kConnectAttempt at most, then connect() retries with a new socket: a
      // store whose listen queue is full drops the SYN, and the kernel's own retries back off
      // (1, 3, 7, 15, 31 s after the first), so a PE would otherwise get in up to 16 s after the
      // store made room (a PE of a loaded job missed a deadline of 30 s so).
      if (!waitReady(fd.get(), POLLOUT, std::min(deadline, Clock::now() + kConnectAttempt))) {
        *transient_error = "connect: timed out";
        continue;
      }
      socklen_t length = sizeof err;
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &length);
    }
    if (err != 0) {
      *transient_error = "connect: " + errnoText(err);
      continue;
    }
    setNoDelay(fd.get());

    const Bytes hello = MessageWriter(MsgType::Hello)
                            .u32(kMagic)
                            .u16(kVersion)
                            .i32(options.my_pe)
                            .i32(options.n_pes)
                            .str(options.secret)
                            .finish();
    Bytes reply;
    Stream stream(fd.get(), tls_);
    IoResult io = sendAll(stream, fd.get(), hello, deadline);
    if (io.status == Io::Done) io = recvMessage(stream, fd.get(), reply, deadline);
    if (!io.failure.empty()) {
      throw Error(ErrorCode::Bootstrap, "bootstrap store at " + where_ + " and PE " + std::to_string(options.my_pe) +
                                            " could not agree on TLS: " + io.failure);
    }
    if (io.status == Io::TimedOut) {
      *transient_error = "no answer to the hello";
      continue;
    }
    if (io.status == Io::Closed) {
      // A server that is stopping closes connections it has not answered yet; the next one may.
      *transient_error = "the store closed the connection during the hello" + (io.err ? ": " + errnoText(io.err) : "");
      continue;
    }
    try {
      MessageReader msg(reply);
      if (msg.type() == MsgType::Welcome) {
        fd_ = std::move(fd);
        stream_ = std::move(stream);
        return true;
      }
      if (msg.type() == MsgType::Retry) {
        *transient_error = "the store asked to retry: " + msg.str();
        continue;
      }
      if (msg.type() == MsgType::Refused) {
        throw Error(ErrorCode::Bootstrap,
                    "bootstrap store at " + where_ + " refused PE " + std::to_string(options.my_pe) + ": " + msg.str());
      }
      *transient_error = "unexpected answer to the hello";
    } catch (const ProtocolError &e) {
      *transient_error = std::string("malformed answer to the hello: ") + e.what();
    }
  }
  return false;
}

std::vector<Bytes> TcpBootstrapStore::collective(CollectiveKind kind, std::uint64_t seq,
                                                 std::span<const std::byte> mine) {
  const std::string what = std::string(toString(kind)) + " #" + std::to_string(seq);
  Bytes reply = exchange(
      encode(
          what,
          [&] {
            return MessageWriter(MsgType::Collective).u8(static_cast<std::uint8_t>(kind)).u64(seq).blob(mine).finish();
          }),
      what);
  return parse(reply, MsgType::CollectiveDone, what, [&](MessageReader &msg) {
    if (msg.u8() != static_cast<std::uint8_t>(kind) || msg.u64() != seq) throw ProtocolError("answer for another call");
    std::vector<Bytes> parts(msg.u32());
    for (Bytes &part : parts) part = msg.blob();
    return parts;
  });
}

void TcpBootstrapStore::send(const Bytes &request, const std::string &what, Clock::time_point deadline) {
  const IoResult io = sendAll(stream_, fd_.get(), request, deadline);
  if (io.status == Io::TimedOut) {
    fail(ErrorCode::Bootstrap,
         "bootstrap " + what + " timed out after " + std::to_string(op_timeout_.count()) + " ms sending the request");
  }
  if (io.status == Io::Closed) {
    connection_lost_ = true;
    fail(ErrorCode::Bootstrap, "bootstrap store connection lost during " + what + ": " + errnoText(io.err));
  }
}

Bytes TcpBootstrapStore::exchange(const Bytes &request, const std::string &what) {
  checkUsable();
  const auto deadline = Clock::now() + op_timeout_;
  send(request, what, deadline);
  Bytes reply;
  const IoResult io = recvMessage(stream_, fd_.get(), reply, deadline);
  if (io.status == Io::TimedOut)
    fail(ErrorCode::Bootstrap, "bootstrap " + what + " timed out after " + std::to_string(op_timeout_.count()) + " ms");
  if (io.status == Io::Closed) {
    connection_lost_ = true;
    fail(ErrorCode::Bootstrap, "bootstrap store connection lost during " + what + ": " +
                                   (io.err ? errnoText(io.err) : std::string("the store closed it")));
  }
  return reply;
}

void TcpBootstrapStore::sayGoodbye() noexcept {
  if (!fd_.valid() || connection_lost_) return;
  // Waiting for the acknowledgement orders this PE's departure before anything it does next: a
  // new session's hello from this PE that reaches a still-running old server is then recognised
  // as such and asked to retry, instead of being refused as a duplicate. A store that has already
  // failed is not waited for: its job is ending, and its server may be what failed.
  try {
    const auto deadline = Clock::now() + op_timeout_;
    if (sendAll(stream_, fd_.get(), MessageWriter(MsgType::Goodbye).finish(), deadline).status != Io::Done || broken_)
      return;
    Bytes reply;
    while (recvMessage(stream_, fd_.get(), reply, deadline).status == Io::Done) {
      // Answers to calls that timed out may still be queued ahead of the acknowledgement.
      if (MessageReader(reply).type() == MsgType::GoodbyeAck) return;
    }
  } catch (...) {
  }
}

// Only lengths go into the messages: the secret itself is never written anywhere.
void checkSecret(const Endpoint &endpoint, const BootstrapOptions &options) {
  const std::string how_to_set = "start the job with tdist-run, which makes one, or set TDIST_JOB_SECRET (the same on "
                                 "every PE, at least " + std::to_string(kMinSecretBytes) + " bytes)";
  if (options.secret.empty() && !options.allow_no_secret) {
    throw Error(ErrorCode::InvalidParam,
                "bootstrap store: PE " + std::to_string(options.my_pe) +
                    " has no job secret, without which any process that reaches " + formatEndpoint(endpoint) +
                    " could join the job and read and write its keys; " + how_to_set +
                    ". To run without one anyway (insecure), set TDIST_ALLOW_NO_SECRET=1 or InitAttr::allow_no_secret");
  }
  if (!options.secret.empty() && options.secret.size() < kMinSecretBytes) {
    throw Error(ErrorCode::InvalidParam, "bootstrap store: PE " + std::to_string(options.my_pe) +
                                             "'s job secret is " + std::to_string(options.secret.size()) +
                                             " bytes, too short to keep strangers out; " + how_to_set);
  }
}

}  // namespace

std::unique_ptr<BootstrapStore> connectBootstrapStore(const Endpoint &endpoint, const BootstrapOptions &options) {
  if (options.n_pes < 1)
    throw Error(ErrorCode::InvalidParam,
                "bootstrap store: n_pes must be at least 1, not " + std::to_string(options.n_pes));
  if (options.my_pe < 0 || options.my_pe >= options.n_pes) {
    throw Error(ErrorCode::InvalidParam, "bootstrap store: my_pe " + std::to_string(options.my_pe) +
                                             " is out of range 0.." + std::to_string(options.n_pes - 1));
  }
  if (endpoint.port <= 1024)
    throw Error(ErrorCode::InvalidParam,
                "bootstrap store: port " + std::to_string(endpoint.port) + " is not in 1025..65535");
  if (options.connect_timeout.count() < 0 || options.op_timeout.count() < 0)
    throw Error(ErrorCode::InvalidParam, "bootstrap store: timeouts must not be negative");
  if (options.hello_timeout.count() <= 0)
    throw Error(ErrorCode::InvalidParam, "bootstrap store: hello_timeout must be positive");
  checkSecret(endpoint, options);

  std::unique_ptr<BootstrapServer> server;
  if (options.my_pe == 0) {
    if (options.secret.empty()) {
      logLine("bootstrap store at " + formatEndpoint(endpoint) +
              " runs without a job secret (allowed explicitly): any process that reaches it can join the job");
    }
    UniqueFd listen_fd = options.listen_fd >= 0 ? adoptListeningSocket(options.listen_fd) : listenOn(endpoint);
    server = std::make_unique<BootstrapServer>(
        std::move(listen_fd),
        ServerOptions{.n_pes = options.n_pes,
                      .secret = options.secret,
                      .hello_timeout = options.hello_timeout,
                      .tls = options.tls.enabled() ? TlsContext::make(options.tls, TlsContext::Side::Server) : nullptr});
  }
  return std::make_unique<TcpBootstrapStore>(endpoint, options, std::move(server));
}

}  // namespace tdist::runtime
