// runtime/bootstrap_store_server.cpp - the store PE 0 serves: keys, parked gets, collectives.
#include "runtime/bootstrap_store_server.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tdist/error.h"

namespace tdist::runtime::bootstrap {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kNoStop = std::numeric_limits<std::int64_t>::max();
constexpr Clock::time_point kNever = Clock::time_point::max();
// Connections that are not PEs yet, dropped or refused, are logged up to this many times per
// server: a flood of them must not flood PE 0's stderr as well.
constexpr int kStrangerLogLines = 20;
// How long accepting pauses when the process is out of descriptors and no stranger can make room.
constexpr auto kAcceptPause = std::chrono::milliseconds(100);

std::int64_t toNs(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

Clock::time_point fromNs(std::int64_t ns) {
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(ns)));
}

// poll()'s timeout for waking at wake_at: rounded up, so that the wake comes after it, not before.
int pollTimeoutMs(Clock::time_point now, Clock::time_point wake_at) {
  if (wake_at == kNever) return -1;
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(wake_at - now).count();
  return static_cast<int>(std::clamp<std::int64_t>(ms, 0, INT_MAX));
}

}  // namespace

// ---- the serving loop -----------------------------------------------------------------------

class BootstrapServer::Loop {
 public:
  Loop(UniqueFd listen_fd, ServerOptions options)
      : listen_fd_(std::move(listen_fd)),
        n_pes_(options.n_pes),
        secret_(std::move(options.secret)),
        hello_timeout_(options.hello_timeout),
        tls_(std::move(options.tls)),
        pes_(n_pes_, PeState::Absent),
        left_how_(n_pes_),
        by_pe_(n_pes_, nullptr) {}

  void run(const std::atomic<std::int64_t> &stop_at_ns, int wake_fd);

 private:
  enum class PeState : std::uint8_t { Absent, Joined, Left };

  struct Connection {
    UniqueFd fd;
    Stream stream;     // over fd: plain or TLS
    std::string peer;  // for the log
    Bytes in;          // received, not yet handled
    Bytes out;         // queued, not yet sent
    std::size_t out_sent = 0;
    int pe = -1;  // set once the hello is accepted
    Clock::time_point hello_deadline;  // closed then, unless welcomed as a PE by then
    bool close_after_flush = false;
    // TLS reads may need the socket writable, and writes readable (a handshake, a renegotiation).
    bool read_wants_write = false;
    bool write_wants_read = false;
    bool dead = false;
    bool reaped = false;
  };

  struct PendingCollective {
    CollectiveKind kind;
    std::uint64_t seq;
    int first_pe;
    std::vector<std::optional<Bytes>> parts;
    int arrived = 0;
  };

  void acceptOne();
  Clock::time_point dropLateStrangers(Clock::time_point now);
  bool dropOldestStranger(const std::string &why);
  void dropStranger(Connection &c, const std::string &why);
  void logStranger(const std::string &line);
  void receive(Connection &c);
  void handleMessages(Connection &c);
  void handle(Connection &c, MessageReader &msg);
  void onHello(Connection &c, MessageReader &msg);
  void onSet(MessageReader &msg);
  void onGet(Connection &c, MessageReader &msg);
  void onCollective(Connection &c, MessageReader &msg);
  void onGoodbye(Connection &c);
  void protocolViolation(Connection &c, const std::string &what);
  void refuse(Connection &c, MsgType type, const std::string &reason);
  void leave(int pe, const char *how);
  void failCollective(ErrorCode code, const std::string &reason, Connection *also);
  void checkCollectiveCanComplete();
  void queue(Connection &c, Bytes message);
  void flush(Connection &c);
  void reap();
  bool anyPeJoined() const { return std::find(pes_.begin(), pes_.end(), PeState::Joined) != pes_.end(); }

  UniqueFd listen_fd_;
  int n_pes_;
  std::string secret_;
  std::chrono::milliseconds hello_timeout_;
  std::shared_ptr<TlsContext> tls_;  // null: plain TCP
  bool stopping_ = false;
  Clock::time_point accept_paused_until_{};
  int strangers_logged_ = 0;
  int strangers_not_logged_ = 0;
  std::vector<std::unique_ptr<Connection>> conns_;
  std::vector<PeState> pes_;
  std::vector<const char *> left_how_;
  std::vector<Connection *> by_pe_;
  std::unordered_map<std::string, Bytes> values_;
  std::unordered_map<std::string, std::vector<int>> parked_gets_;  // key -> PEs waiting for it
  std::optional<PendingCollective> collective_;                    // PEs block in a collective, so one at a time
};

void BootstrapServer::Loop::run(const std::atomic<std::int64_t> &stop_at_ns, int wake_fd) {
  std::vector<pollfd> fds;
  for (;;) {
    const std::int64_t stop_at = stop_at_ns.load(std::memory_order_acquire);
    stopping_ = stop_at != kNoStop;
    const Clock::time_point now = Clock::now();
    if (stopping_ && (!anyPeJoined() || toNs(now) >= stop_at)) break;

    Clock::time_point wake_at = dropLateStrangers(now);
    reap();
    if (stopping_) wake_at = std::min(wake_at, fromNs(stop_at));
    const bool accepting = now >= accept_paused_until_;
    if (!accepting) wake_at = std::min(wake_at, accept_paused_until_);

    fds.clear();
    fds.push_back({wake_fd, POLLIN, 0});
    fds.push_back({accepting ? listen_fd_.get() : -1, POLLIN, 0});  // poll() skips a negative fd
    for (auto &c : conns_) {
      const short want_out = c->out_sent < c->out.size() || c->read_wants_write ? POLLOUT : 0;
      fds.push_back({c->fd.get(), static_cast<short>(POLLIN | want_out), 0});
    }
    if (::poll(fds.data(), fds.size(), pollTimeoutMs(now, wake_at)) < 0) {
      if (errno == EINTR) continue;
      logLine("bootstrap store stopped: poll: " + errnoText(errno));
      break;
    }

    if (fds[0].revents != 0) {
      std::uint64_t count;
      [[maybe_unused]] auto ignored = ::read(wake_fd, &count, sizeof count);
    }
    // Connections accepted below are not in fds yet; they are polled from the next round on.
    const std::size_t polled = fds.size() - 2;
    for (std::size_t i = 0; i < polled; ++i) {
      Connection &c = *conns_[i];
      const short revents = fds[i + 2].revents;
      if ((revents & (POLLIN | POLLHUP | POLLERR)) || (c.read_wants_write && (revents & POLLOUT))) receive(c);
      if ((revents & POLLOUT) || (c.write_wants_read && (revents & POLLIN))) flush(c);
    }
    if (fds[1].revents & POLLIN) acceptOne();
    reap();
  }

  std::string still_there;
  for (int pe = 0; pe < n_pes_; ++pe)
    if (pes_[pe] == PeState::Joined) still_there += (still_there.empty() ? "" : ", ") + std::to_string(pe);
  if (!still_there.empty()) logLine("bootstrap store stopped with PEs still connected: " + still_there);
  if (strangers_not_logged_ > 0) {
    logLine("bootstrap store dropped or refused " + std::to_string(strangers_not_logged_) +
            " more connections that were not PEs of the job");
  }
}

void BootstrapServer::Loop::acceptOne() {
  // One accept per readiness report: the listening socket stays blocking, because making it
  // non-blocking would change the caller's listen_fd too (a dup shares the file flags).
  const int fd = ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) {
    // Out of descriptors or memory, perhaps because strangers hold them: the one that has waited
    // longest makes room, so that a flood cannot lock the PEs out until its hellos time out. With
    // nobody to drop, accepting pauses, rather than spinning on a socket that stays readable.
    // Other errors mean that this peer gave up already; it will retry.
    const int err = errno;
    if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
      if (!dropOldestStranger("to make room (accept: " + errnoText(err) + ")"))
        accept_paused_until_ = Clock::now() + kAcceptPause;
    }
    return;
  }
  setNoDelay(fd);
  auto c = std::make_unique<Connection>();
  c->fd = UniqueFd(fd);
  c->stream = Stream(fd, tls_);
  c->peer = peerName(fd);
  c->hello_deadline = Clock::now() + hello_timeout_;
  conns_.push_back(std::move(c));
}

// Closes the connections still not welcomed as PEs at their deadline; returns the next deadline.
Clock::time_point BootstrapServer::Loop::dropLateStrangers(Clock::time_point now) {
  Clock::time_point next = kNever;
  for (auto &c : conns_) {
    if (c->pe >= 0 || c->dead) continue;
    if (now < c->hello_deadline) {
      next = std::min(next, c->hello_deadline);
      continue;
    }
    dropStranger(*c, ": no hello within " + std::to_string(hello_timeout_.count()) + " ms");
  }
  return next;
}

bool BootstrapServer::Loop::dropOldestStranger(const std::string &why) {
  // conns_ is in the order of acceptance.
  for (auto &c : conns_) {
    if (c->pe >= 0 || c->dead) continue;
    dropStranger(*c, " that had not said hello, " + why);
    return true;
  }
  return false;
}

void BootstrapServer::Loop::dropStranger(Connection &c, const std::string &why) {
  // One refused already was logged then, and is only waiting for its refusal to be sent.
  if (!c.close_after_flush) logStranger("bootstrap store dropped a connection from " + c.peer + why);
  c.dead = true;
}

void BootstrapServer::Loop::logStranger(const std::string &line) {
  if (strangers_logged_ == kStrangerLogLines) {
    ++strangers_not_logged_;
    return;
  }
  logLine(line);
  if (++strangers_logged_ == kStrangerLogLines)
    logLine("bootstrap store: further connections it drops or refuses are counted, not logged");
}

void BootstrapServer::Loop::receive(Connection &c) {
  std::byte buffer[64 * 1024];
  c.read_wants_write = false;
  // Until the stream has nothing more: TLS may hold decrypted bytes that poll() cannot see.
  for (;;) {
    const StreamStep step = c.stream.read(buffer, sizeof buffer);
    if (step.kind == StreamStep::Bytes && step.n > 0) {
      if (!c.close_after_flush) c.in.insert(c.in.end(), buffer, buffer + step.n);
      continue;
    }
    if (step.kind == StreamStep::WantRead) break;
    if (step.kind == StreamStep::WantWrite) {
      c.read_wants_write = true;
      break;
    }
    // Orderly close or reset; what arrived before still counts (a goodbye). A TLS failure is a
    // peer that could not show the job's certificate: a stranger.
    if (!step.failure.empty() && c.pe < 0) logStranger("bootstrap store refused " + c.peer + ": " + step.failure);
    c.dead = true;
    break;
  }
  handleMessages(c);
}

void BootstrapServer::Loop::handleMessages(Connection &c) {
  std::size_t used = 0;
  while (!c.close_after_flush && c.in.size() - used >= kLengthBytes) {
    const std::size_t length = readLength(c.in.data() + used);
    const std::size_t limit = c.pe < 0 ? kMaxHelloBytes : kMaxMessageBytes;
    if (length == 0 || length > limit) {
      protocolViolation(c, "a message of " + std::to_string(length) + " bytes");
      break;
    }
    if (c.in.size() - used - kLengthBytes < length) break;
    try {
      MessageReader msg(std::span(c.in).subspan(used + kLengthBytes, length));
      handle(c, msg);
    } catch (const ProtocolError &e) {
      protocolViolation(c, e.what());
      break;
    }
    used += kLengthBytes + length;
  }
  c.in.erase(c.in.begin(), c.in.begin() + static_cast<std::ptrdiff_t>(std::min(used, c.in.size())));
}

void BootstrapServer::Loop::handle(Connection &c, MessageReader &msg) {
  if (c.pe < 0) {
    if (msg.type() != MsgType::Hello) throw ProtocolError("no hello");
    return onHello(c, msg);
  }
  switch (msg.type()) {
    case MsgType::Set: return onSet(msg);
    case MsgType::Get: return onGet(c, msg);
    case MsgType::Collective: return onCollective(c, msg);
    case MsgType::Goodbye: return onGoodbye(c);
    default: throw ProtocolError("unexpected message type " + std::to_string(static_cast<int>(msg.type())));
  }
}

void BootstrapServer::Loop::onHello(Connection &c, MessageReader &msg) {
  if (msg.u32() != kMagic) throw ProtocolError("bad magic");
  const std::uint16_t version = msg.u16();
  if (version != kVersion) {
    return refuse(c, MsgType::Refused,
                  "protocol version " + std::to_string(version) + ", the store speaks " + std::to_string(kVersion));
  }
  const int pe = msg.i32();
  const int n_pes = msg.i32();
  const std::string secret = msg.str();
  msg.expectEnd();
  // The secret first, so that a stranger learns nothing about the job.
  if (!secretsEqual(secret, secret_)) return refuse(c, MsgType::Refused, "wrong job secret");
  if (n_pes != n_pes_) {
    return refuse(c, MsgType::Refused, "the job has " + std::to_string(n_pes_) + " PEs, not " + std::to_string(n_pes));
  }
  if (pe < 0 || pe >= n_pes_) {
    return refuse(c, MsgType::Refused,
                  "PE " + std::to_string(pe) + " is out of range 0.." + std::to_string(n_pes_ - 1));
  }
  if (pes_[pe] == PeState::Joined)
    return refuse(c, MsgType::Refused, "PE " + std::to_string(pe) + " is already connected");
  // A PE that left and comes back is the next session of the job, which reached this server
  // before PE 0 stopped it: it should try again until the next session's server answers.
  if (pes_[pe] == PeState::Left) return refuse(c, MsgType::Retry, "a previous session's store is still running");
  if (stopping_) return refuse(c, MsgType::Retry, "the store is shutting down");

  c.pe = pe;
  pes_[pe] = PeState::Joined;
  by_pe_[pe] = &c;
  queue(c, MessageWriter(MsgType::Welcome).finish());
}

void BootstrapServer::Loop::onSet(MessageReader &msg) {
  std::string key = msg.str();
  Bytes value = msg.blob();
  msg.expectEnd();
  if (auto parked = parked_gets_.extract(key)) {
    const Bytes answer = MessageWriter(MsgType::Value).str(key).blob(value).finish();
    for (int pe : parked.mapped())
      if (by_pe_[pe] != nullptr) queue(*by_pe_[pe], answer);
  }
  values_.insert_or_assign(std::move(key), std::move(value));
}

void BootstrapServer::Loop::onGet(Connection &c, MessageReader &msg) {
  std::string key = msg.str();
  msg.expectEnd();
  if (auto it = values_.find(key); it != values_.end()) {
    queue(c, MessageWriter(MsgType::Value).str(key).blob(it->second).finish());
  } else {
    parked_gets_[std::move(key)].push_back(c.pe);
  }
}

void BootstrapServer::Loop::onCollective(Connection &c, MessageReader &msg) {
  const auto kind = static_cast<CollectiveKind>(msg.u8());
  if (kind != CollectiveKind::Barrier && kind != CollectiveKind::Allgather) throw ProtocolError("bad collective");
  const std::uint64_t seq = msg.u64();
  Bytes contribution = msg.blob();
  msg.expectEnd();

  if (!collective_) collective_ = PendingCollective{kind, seq, c.pe, std::vector<std::optional<Bytes>>(n_pes_)};
  PendingCollective &round = *collective_;
  if (round.kind != kind || round.seq != seq) {
    return failCollective(ErrorCode::CollectiveMismatch,
                          "PE " + std::to_string(c.pe) + " called " + toString(kind) + " #" + std::to_string(seq) +
                              " while PE " + std::to_string(round.first_pe) + " called " + toString(round.kind) + " #" +
                              std::to_string(round.seq) +
                              "; every PE must make the same collective calls in the same order",
                          &c);
  }
  if (round.parts[c.pe]) throw ProtocolError("joined a collective twice");
  round.parts[c.pe] = std::move(contribution);
  if (++round.arrived < n_pes_) return checkCollectiveCanComplete();

  MessageWriter done(MsgType::CollectiveDone);
  done.u8(static_cast<std::uint8_t>(kind)).u64(seq);
  done.u32(kind == CollectiveKind::Allgather ? static_cast<std::uint32_t>(n_pes_) : 0);
  if (kind == CollectiveKind::Allgather)
    for (const auto &part : round.parts) done.blob(*part);
  const Bytes answer = done.finish();
  collective_.reset();
  for (Connection *member : by_pe_)
    if (member != nullptr) queue(*member, answer);
}

void BootstrapServer::Loop::onGoodbye(Connection &c) {
  leave(c.pe, "it said goodbye");
  c.close_after_flush = true;
  queue(c, MessageWriter(MsgType::GoodbyeAck).finish());
}

void BootstrapServer::Loop::protocolViolation(Connection &c, const std::string &what) {
  if (c.pe < 0) return refuse(c, MsgType::Refused, "not a tdist bootstrap client (" + what + ")");
  logLine("bootstrap store dropped PE " + std::to_string(c.pe) + " at " + c.peer + ": malformed message (" + what +
          ")");
  c.dead = true;
}

void BootstrapServer::Loop::refuse(Connection &c, MsgType type, const std::string &reason) {
  if (type == MsgType::Refused) logStranger("bootstrap store refused a connection from " + c.peer + ": " + reason);
  c.close_after_flush = true;
  queue(c, MessageWriter(type).str(reason).finish());
}

void BootstrapServer::Loop::leave(int pe, const char *how) {
  pes_[pe] = PeState::Left;
  left_how_[pe] = how;
  by_pe_[pe] = nullptr;
  for (auto &[key, waiting] : parked_gets_) std::erase(waiting, pe);
  std::erase_if(parked_gets_, [](const auto &entry) { return entry.second.empty(); });
  checkCollectiveCanComplete();
}

// A collective that waits for a PE which has left would otherwise hang everyone until op_timeout.
void BootstrapServer::Loop::checkCollectiveCanComplete() {
  if (!collective_) return;
  for (int pe = 0; pe < n_pes_; ++pe) {
    if (pes_[pe] != PeState::Left || collective_->parts[pe]) continue;
    return failCollective(ErrorCode::Bootstrap,
                          "PE " + std::to_string(pe) + " left the store before joining " + toString(collective_->kind) +
                              " #" + std::to_string(collective_->seq) + " (" + left_how_[pe] + ")",
                          nullptr);
  }
}

void BootstrapServer::Loop::failCollective(ErrorCode code, const std::string &reason, Connection *also) {
  const Bytes answer = MessageWriter(MsgType::Failed).i32(static_cast<std::int32_t>(code)).str(reason).finish();
  for (int pe = 0; pe < n_pes_; ++pe)
    if (collective_->parts[pe] && by_pe_[pe] != nullptr) queue(*by_pe_[pe], answer);
  if (also != nullptr && !collective_->parts[also->pe]) queue(*also, answer);
  collective_.reset();
}

void BootstrapServer::Loop::queue(Connection &c, Bytes message) {
  if (c.dead) return;
  if (c.out_sent == c.out.size()) {
    c.out = std::move(message);
    c.out_sent = 0;
  } else {
    c.out.insert(c.out.end(), message.begin(), message.end());
  }
  flush(c);
}

void BootstrapServer::Loop::flush(Connection &c) {
  c.write_wants_read = false;
  while (!c.dead && c.out_sent < c.out.size()) {
    const StreamStep step = c.stream.write(c.out.data() + c.out_sent, c.out.size() - c.out_sent);
    if (step.kind == StreamStep::Bytes) {
      c.out_sent += step.n;
    } else if (step.kind == StreamStep::WantWrite) {
      return;
    } else if (step.kind == StreamStep::WantRead) {
      c.write_wants_read = true;
      return;
    } else {
      c.dead = true;
    }
  }
  if (c.out_sent == c.out.size()) {
    c.out.clear();
    c.out_sent = 0;
    if (c.close_after_flush) c.dead = true;
  }
}

void BootstrapServer::Loop::reap() {
  // leave() answers other PEs, and a failed send there kills another connection, possibly one
  // this pass has already looked at: repeat until no death is left unaccounted for.
  for (bool again = true; again;) {
    again = false;
    for (auto &c : conns_) {
      if (!c->dead || c->reaped) continue;
      c->reaped = true;
      again = true;
      if (c->pe >= 0 && pes_[c->pe] == PeState::Joined) leave(c->pe, "its connection was lost");
    }
  }
  std::erase_if(conns_, [](const auto &c) { return c->dead; });
}

// ---- the thread around it -------------------------------------------------------------------

BootstrapServer::BootstrapServer(UniqueFd listen_fd, ServerOptions options)
    : loop_(std::make_unique<Loop>(std::move(listen_fd), std::move(options))),
      wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      stop_at_ns_(kNoStop) {
  if (!wake_fd_.valid()) throw Error(ErrorCode::Bootstrap, "bootstrap store: eventfd: " + errnoText(errno));
  thread_ = std::thread([this] {
    try {
      loop_->run(stop_at_ns_, wake_fd_.get());
    } catch (const std::exception &e) {
      logLine(std::string("bootstrap store stopped: ") + e.what());
    }
    // Closing every socket as the thread ends, whatever ended it, tells the PEs at once instead of
    // leaving them to their timeouts. Nothing else touches loop_ while the thread runs.
    loop_.reset();
  });
}

BootstrapServer::~BootstrapServer() { stop(Clock::now()); }

void BootstrapServer::stopWhenPesLeave(std::chrono::milliseconds timeout) noexcept { stop(Clock::now() + timeout); }

void BootstrapServer::stop(Clock::time_point deadline) noexcept {
  if (!thread_.joinable()) return;
  stop_at_ns_.store(std::min(toNs(deadline), stop_at_ns_.load()), std::memory_order_release);
  const std::uint64_t one = 1;
  [[maybe_unused]] auto ignored = ::write(wake_fd_.get(), &one, sizeof one);
  thread_.join();
}

}  // namespace tdist::runtime::bootstrap
