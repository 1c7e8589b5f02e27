#include "node_link.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>

#include "exit_status.h"
#include "link_proof.h"

namespace tdist::launcher {
namespace {

constexpr std::string_view kMagicPrefix = "tdist-run node link ";
constexpr std::string_view kMagic = "tdist-run node link 2";

// A hello is small; anything longer before it is not one. After it, the largest frame is a node's
// waits: a line of at most 512 bytes for each of up to kMaxPes PEs.
constexpr std::size_t kMaxHelloFrame = 4096;
constexpr std::size_t kMaxFrame = 16u << 20;

// The last words of close(), and the start message, wait this long for a peer at most.
constexpr std::chrono::seconds kCloseWait{2};
// Between two attempts to reach node 0, growing to the longest.
constexpr std::chrono::milliseconds kFirstRetry{50};
constexpr std::chrono::milliseconds kLongestRetry{1000};
// How often another node repeats its view while its PEs are blocked.
constexpr std::chrono::seconds kViewRefresh{1};

enum class Type : std::uint8_t { Hello = 1, Refused, Start, Ended, Done, Finished, Waits, Challenge };

// One frame being built: the length is filled in by bytes().
class Frame {
 public:
  explicit Frame(Type type) : bytes_(4, '\0') { bytes_ += static_cast<char>(type); }
  Frame &number(std::uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes_ += static_cast<char>((value >> shift) & 0xff);
    return *this;
  }
  Frame &number64(std::uint64_t value) {
    number(static_cast<std::uint32_t>(value >> 32));
    return number(static_cast<std::uint32_t>(value));
  }
  Frame &text(std::string_view value) {
    number(static_cast<std::uint32_t>(value.size()));
    bytes_ += value;
    return *this;
  }
  std::string bytes() {
    const auto length = static_cast<std::uint32_t>(bytes_.size() - 4);
    for (int i = 0; i < 4; ++i) bytes_[i] = static_cast<char>((length >> (24 - 8 * i)) & 0xff);
    return bytes_;
  }

 private:
  std::string bytes_;
};

// The fields of a frame's body, in order; every read is false once the body is short.
class Fields {
 public:
  explicit Fields(std::string_view body) : rest_(body) {}
  bool number(std::uint32_t &value) {
    if (rest_.size() < 4) return false;
    value = 0;
    for (int i = 0; i < 4; ++i) value = value << 8 | static_cast<unsigned char>(rest_[i]);
    rest_.remove_prefix(4);
    return true;
  }
  bool number(int &value) {
    std::uint32_t raw = 0;
    if (!number(raw) || raw > 0x7fffffffu) return false;
    value = static_cast<int>(raw);
    return true;
  }
  bool number64(std::uint64_t &value) {
    std::uint32_t high = 0, low = 0;
    if (!number(high) || !number(low)) return false;
    value = static_cast<std::uint64_t>(high) << 32 | low;
    return true;
  }
  bool text(std::string &value) {
    std::uint32_t length = 0;
    if (!number(length) || rest_.size() < length) return false;
    value.assign(rest_.substr(0, length));
    rest_.remove_prefix(length);
    return true;
  }

 private:
  std::string_view rest_;
};

struct Message {
  Type type;
  std::string body;
};

// The proofs of the secret (link_proof.h): a node's over node 0's nonce and its own with what its
// hello says, node 0's over the node's nonce with what its start says. Each message is a frame's
// bytes, so that no two field lists run together alike.
std::string joinProof(std::string_view secret, std::string_view zero_nonce, std::string_view node_nonce, int node,
                      int nnodes, int n_pes) {
  return digestBytes(hmacSha256(secret, Frame(Type::Hello)
                                            .text(kMagic)
                                            .text(zero_nonce)
                                            .text(node_nonce)
                                            .number(static_cast<std::uint32_t>(node))
                                            .number(static_cast<std::uint32_t>(nnodes))
                                            .number(static_cast<std::uint32_t>(n_pes))
                                            .bytes()));
}
std::string startProof(std::string_view secret, std::string_view zero_nonce, std::string_view node_nonce,
                       const JobFacts &facts) {
  return digestBytes(hmacSha256(
      secret,
      Frame(Type::Start).text(kMagic).text(node_nonce).text(zero_nonce).text(facts.ip_port).text(facts.job_id).bytes()));
}

// "10.0.0.2:41234", "[fd00::2]:41234".
std::string formatAddress(const sockaddr_storage &address) {
  char host[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET6) {
    const auto &v6 = reinterpret_cast<const sockaddr_in6 &>(address);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(v6.sin6_port));
  }
  const auto &v4 = reinterpret_cast<const sockaddr_in &>(address);
  ::inet_ntop(AF_INET, &v4.sin_addr, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(v4.sin_port));
}

// Small frames go out at once; a host that stopped answering is noticed within about 15 s, idle
// (keepalive: 5 s, then 3 probes 2 s apart) or not (unacknowledged data).
void tuneLinkSocket(int fd) {
  const int on = 1, idle_s = 5, interval_s = 2, probes = 3;
  const unsigned int unacknowledged_ms = 15000;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof idle_s);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval_s, sizeof interval_s);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof probes);
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &unacknowledged_ms, sizeof unacknowledged_ms);
}

std::string describeSignal(int signo) { return "signal " + std::to_string(signo) + " (" + ::strsignal(signo) + ")"; }

// "node 1" or "nodes 1, 3".
std::string nodeList(const std::vector<int> &nodes) {
  std::string text = nodes.size() == 1 ? "node " : "nodes ";
  for (std::size_t i = 0; i < nodes.size(); ++i) text += (i ? ", " : "") + std::to_string(nodes[i]);
  return text;
}

int pollMs(NodeLink::Clock::time_point deadline, NodeLink::Clock::time_point now) {
  if (deadline <= now) return 0;
  auto wait = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
  return static_cast<int>(std::min<std::chrono::milliseconds::rep>(wait.count(), 1 << 30));
}

// The stop requests among the signals that arrived; SIGCHLD is the monitor's business.
int stopRequest(SignalInbox &signals) {
  for (int signo : signals.takeArrived())
    if (signo != SIGCHLD) return signo;
  return 0;
}

}  // namespace

struct NodeLink::Peer {
  enum class Said { Nothing, Done, Ended };

  UniqueFd fd;
  std::string address;  // node 0: where the node connected from; elsewhere: the --rdzv address
  int node = -1;        // -1 until its hello
  std::string in;       // bytes read that are not a whole frame yet
  std::string out;      // bytes still to write
  Said said = Said::Nothing;
  NodeHangView hang;  // node 0: the node's latest view
  std::string zero_nonce;  // node 0's nonce for this link (link_proof.h)
  std::string node_nonce;  // the other node's

  std::string name() const {
    return (node >= 0 ? "node " + std::to_string(node) : std::string("a node")) + " (" + address + ")";
  }

  // Reads what has arrived. Returns "" while the connection is open, else how it ended
  // ("connection closed", an errno text); what came before the end is still in `in`.
  std::string receive() {
    char buffer[64 * 1024];
    while (fd) {
      const ssize_t got = ::recv(fd.get(), buffer, sizeof buffer, 0);
      if (got > 0) {
        in.append(buffer, static_cast<std::size_t>(got));
        continue;
      }
      if (got < 0 && errno == EINTR) continue;
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      return got == 0 ? "connection closed" : std::strerror(errno);
    }
    return "";
  }

  // Takes the next whole frame out of what was read: false when there is none yet, or when the
  // next is not one (bad says so).
  bool takeFrame(std::size_t max_frame, Message &message, std::string &bad) {
    if (in.size() < 4) return false;
    std::uint32_t length = 0;
    Fields(std::string_view(in).substr(0, 4)).number(length);
    if (length == 0 || length > max_frame) {
      bad = "a frame of " + std::to_string(length) + " bytes";
      return false;
    }
    if (in.size() < 4 + static_cast<std::size_t>(length)) return false;
    message = {.type = static_cast<Type>(in[4]), .body = in.substr(5, length - 1)};
    in.erase(0, 4 + static_cast<std::size_t>(length));
    return true;
  }

  bool hasFrame() const {
    if (in.size() < 4) return false;
    std::uint32_t length = 0;
    Fields(std::string_view(in).substr(0, 4)).number(length);
    return in.size() >= 4 + static_cast<std::size_t>(length);
  }
};

NodeLink::NodeLink(const Options &options)
    : options_(options),
      node_(options.node_rank),
      join_deadline_(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(options.join_timeout_s))) {
  if (node_ != 0) return;
  const std::string where = options.rdzv.text();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo *candidates = nullptr;
  const std::string port = std::to_string(options.rdzv.port);
  if (int error = ::getaddrinfo(options.rdzv.host.c_str(), port.c_str(), &hints, &candidates); error != 0)
    throw UsageError("--rdzv: cannot resolve '" + options.rdzv.host + "': " + ::gai_strerror(error));
  int bind_error = 0;
  for (addrinfo *candidate = candidates; candidate && !listener_; candidate = candidate->ai_next) {
    UniqueFd socket(
        ::socket(candidate->ai_family, candidate->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, candidate->ai_protocol));
    if (!socket) {
      bind_error = errno;
      continue;
    }
    // A port that a job before this one left in TIME_WAIT is free to take.
    const int on = 1;
    ::setsockopt(socket.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(socket.get(), candidate->ai_addr, candidate->ai_addrlen) != 0 ||
        ::listen(socket.get(), SOMAXCONN) != 0) {
      bind_error = errno;
      continue;
    }
    listener_ = std::move(socket);
  }
  ::freeaddrinfo(candidates);
  if (!listener_) {
    std::string hint;
    if (bind_error == EADDRNOTAVAIL) hint = " (node 0's tdist-run listens on the --rdzv address: is this host node 0?)";
    throw UsageError("--rdzv: cannot listen on " + where + ": " + std::generic_category().message(bind_error) + hint);
  }
}

NodeLink::~NodeLink() = default;

std::string NodeLink::joinTimeoutText() const {
  return "the join timeout of " + values::formatSeconds(options_.join_timeout_s) + " s (--join-timeout)";
}

JobFacts NodeLink::join(const JobFacts &facts, SignalInbox &signals) {
  return node_ == 0 ? gather(facts, signals) : joinNodeZero(signals);
}

NodeLink::Peer *NodeLink::peerOf(int fd) {
  for (Peer &peer : peers_)
    if (peer.fd && peer.fd.get() == fd) return &peer;
  return nullptr;
}

void NodeLink::send(Peer &peer, const std::string &frame) {
  if (!peer.fd) return;
  peer.out += frame;
  flush(peer);
}

void NodeLink::flush(Peer &peer) {
  while (peer.fd && !peer.out.empty()) {
    const ssize_t sent = ::send(peer.fd.get(), peer.out.data(), peer.out.size(), MSG_NOSIGNAL);
    if (sent > 0) {
      peer.out.erase(0, static_cast<std::size_t>(sent));
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    // Full: poll() says when it drains. Broken: the read side reports how it ended.
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) peer.out.clear();
    return;
  }
}

void NodeLink::flushAll(Clock::time_point deadline) {
  while (true) {
    std::vector<pollfd> fds;
    for (Peer &peer : peers_)
      if (peer.fd && !peer.out.empty()) fds.push_back({.fd = peer.fd.get(), .events = POLLOUT, .revents = 0});
    const Clock::time_point now = Clock::now();
    if (fds.empty() || now >= deadline) return;
    if (::poll(fds.data(), fds.size(), pollMs(deadline, now)) < 0 && errno != EINTR) return;
    for (const pollfd &fd : fds)
      if (fd.revents != 0)
        if (Peer *peer = peerOf(fd.fd)) flush(*peer);
  }
}

// ---- node 0: the join -------------------------------------------------------------------------

void NodeLink::refuseJob(int exit_status, const std::string &reason, const Peer *culprit) {
  for (Peer &peer : peers_) {
    if (peer.node < 0 && &peer != culprit) continue;  // never said hello: nothing to tell
    send(peer, Frame(Type::Refused)
                   .number(static_cast<std::uint32_t>(exit_status))
                   .number(&peer == culprit ? 1 : 0)
                   .text(reason)
                   .bytes());
  }
  flushAll(Clock::now() + kCloseWait);
  close();
  throw JobNotStarted(exit_status, reason + "; the job does not start");
}

void NodeLink::checkHello(Peer &peer, const std::string &body) {
  Fields fields(body);
  std::string magic, node_nonce, proof;
  int node = -1, nnodes = 0, n_pes = 0;
  const bool whole = fields.text(magic) && magic.starts_with(kMagicPrefix) && fields.text(node_nonce) &&
                     fields.text(proof) && fields.number(node) && fields.number(nnodes) && fields.number(n_pes);
  if (!magic.starts_with(kMagicPrefix)) {
    peer.fd.reset();  // not a tdist-run
    return;
  }
  if (magic != kMagic) {
    refuseJob(kExitUsage,
              "a node (" + peer.address + ") speaks '" + magic + "', node 0 '" + std::string(kMagic) +
                  "': every node needs the same tdist-run",
              &peer);
  }
  if (!whole) refuseJob(kExitLauncherError, "a node (" + peer.address + ") sent a hello cut short", &peer);
  if (node_nonce.size() < 16 ||
      !sameBytes(proof, joinProof(options_.job_secret, peer.zero_nonce, node_nonce, node, nnodes, n_pes))) {
    refuseJob(kExitUsage,
              "node " + std::to_string(node) + " (" + peer.address +
                  ") presented another job secret than node 0: every node needs the "
                  "same TDIST_JOB_SECRET",
              &peer);
  }
  peer.node = node;
  peer.node_nonce = node_nonce;
  if (nnodes != options_.nnodes) {
    refuseJob(
        kExitUsage,
        peer.name() + " has --nnodes " + std::to_string(nnodes) + ", node 0 has " + std::to_string(options_.nnodes),
        &peer);
  }
  for (const Peer &other : peers_) {
    if (&other != &peer && other.node == node) {
      refuseJob(kExitUsage,
                "two nodes say they are node " + std::to_string(node) + ": " + other.address + " and " + peer.address,
                &peer);
    }
  }
  if (node == 0 || node >= options_.nnodes) {
    refuseJob(kExitUsage,
              peer.name() + " says it is node " + std::to_string(node) + ", which is node 0's tdist-run itself", &peer);
  }
  if (n_pes != options_.n_pes) {
    refuseJob(kExitUsage,
              peer.name() + " has -n " + std::to_string(n_pes) + ", node 0 has -n " + std::to_string(options_.n_pes) +
                  ": every node starts as many PEs",
              &peer);
  }
  peer.hang = {.node = node, .running = n_pes, .blocked = false, .quiet_since = {}, .lines = {}};
}

JobFacts NodeLink::gather(const JobFacts &facts, SignalInbox &signals) {
  while (true) {
    std::vector<int> missing;
    for (int node = 1; node < options_.nnodes; ++node) {
      bool joined = false;
      for (const Peer &peer : peers_) joined = joined || peer.node == node;
      if (!joined) missing.push_back(node);
    }
    if (missing.empty()) break;
    const Clock::time_point now = Clock::now();
    if (now >= join_deadline_) {
      refuseJob(kExitLauncherError,
                nodeList(missing) + " did not join node 0 at " + options_.rdzv.text() + " within " + joinTimeoutText(),
                nullptr);
    }

    std::vector<pollfd> fds = {{.fd = signals.fd(), .events = POLLIN, .revents = 0},
                               {.fd = listener_.get(), .events = POLLIN, .revents = 0}};
    for (const Peer &peer : peers_) {
      if (peer.fd) {
        fds.push_back({.fd = peer.fd.get(),
                       .events = static_cast<short>(POLLIN | (peer.out.empty() ? 0 : POLLOUT)),
                       .revents = 0});
      }
    }
    const int ready = ::poll(fds.data(), fds.size(), pollMs(join_deadline_, now));
    if (ready < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "poll");
    if (ready <= 0) continue;
    if (fds[0].revents != 0) {
      if (int signo = stopRequest(signals)) {
        refuseJob(128 + signo,
                  "node 0's tdist-run got " + describeSignal(signo) + " while " + nodeList(missing) + " had not joined",
                  nullptr);
      }
    }
    if (fds[1].revents != 0) {
      while (true) {
        sockaddr_storage from{};
        socklen_t length = sizeof from;
        UniqueFd accepted(
            ::accept4(listener_.get(), reinterpret_cast<sockaddr *>(&from), &length, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (!accepted) break;
        tuneLinkSocket(accepted.get());
        peers_.push_back({.fd = std::move(accepted),
                          .address = formatAddress(from),
                          .node = -1,
                          .in = {},
                          .out = {},
                          .said = Peer::Said::Nothing,
                          .hang = {},
                          .zero_nonce = freshNonce(),
                          .node_nonce = {}});
        // The node proves that it holds the secret over this nonce, without sending the secret.
        send(peers_.back(), Frame(Type::Challenge).text(kMagic).text(peers_.back().zero_nonce).bytes());
      }
    }
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Peer *peer = peerOf(fds[i].fd);
      if (peer == nullptr) continue;
      if (fds[i].revents & POLLOUT) flush(*peer);
      std::string ended = peer->receive();
      Message message;
      while (peer->fd && peer->takeFrame(peer->node < 0 ? kMaxHelloFrame : kMaxFrame, message, ended)) {
        if (peer->node < 0 && message.type == Type::Hello) {
          checkHello(*peer, message.body);
        } else if (peer->node < 0) {
          peer->fd.reset();  // not a tdist-run
        } else {
          refuseJob(kExitLauncherError, peer->name() + " sent a message out of turn", nullptr);
        }
      }
      if (!ended.empty() && peer->fd) {
        if (peer->node >= 0) {
          refuseJob(kExitLauncherError, peer->name() + " left before every node had joined (" + ended + ")", nullptr);
        }
        peer->fd.reset();
      }
    }
    std::erase_if(peers_, [](const Peer &peer) { return !peer.fd; });
  }

  listener_.reset();  // a node that comes later finds no job to join
  for (Peer &peer : peers_) {
    send(peer, Frame(Type::Start)
                   .text(facts.ip_port)
                   .text(facts.job_id)
                   .text(startProof(options_.job_secret, peer.zero_nonce, peer.node_nonce, facts))
                   .bytes());
  }
  std::sort(peers_.begin(), peers_.end(), [](const Peer &a, const Peer &b) { return a.node < b.node; });
  return facts;
}

// ---- the other nodes: the join ----------------------------------------------------------------

void NodeLink::connectToNodeZero(SignalInbox &signals) {
  const std::string where = options_.rdzv.text();
  const std::string port = std::to_string(options_.rdzv.port);
  std::string last_error;  // of the last attempt that got an answer
  std::chrono::milliseconds retry = kFirstRetry;
  while (true) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *candidates = nullptr;
    if (int error = ::getaddrinfo(options_.rdzv.host.c_str(), port.c_str(), &hints, &candidates); error != 0) {
      last_error = std::string("cannot resolve '") + options_.rdzv.host + "': " + ::gai_strerror(error);
      candidates = nullptr;
    }
    for (addrinfo *candidate = candidates; candidate; candidate = candidate->ai_next) {
      UniqueFd socket(::socket(candidate->ai_family, candidate->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                               candidate->ai_protocol));
      if (!socket) {
        last_error = std::strerror(errno);
        continue;
      }
      int error = ::connect(socket.get(), candidate->ai_addr, candidate->ai_addrlen) == 0 ? 0 : errno;
      if (error == EINPROGRESS) {
        std::vector<pollfd> fds = {{.fd = socket.get(), .events = POLLOUT, .revents = 0},
                                   {.fd = signals.fd(), .events = POLLIN, .revents = 0}};
        while (true) {
          const Clock::time_point now = Clock::now();
          if (now >= join_deadline_) {
            error = ETIMEDOUT;
            break;
          }
          const int ready = ::poll(fds.data(), fds.size(), pollMs(join_deadline_, now));
          if (ready < 0 && errno == EINTR) continue;
          if (fds[1].revents != 0) {
            if (int signo = stopRequest(signals)) {
              ::freeaddrinfo(candidates);
              throw JobNotStarted(128 + signo, "got " + describeSignal(signo) + " while joining node 0 at " + where +
                                                   "; nothing was started");
            }
          }
          if (fds[0].revents != 0) {
            socklen_t length = sizeof error;
            ::getsockopt(socket.get(), SOL_SOCKET, SO_ERROR, &error, &length);
            break;
          }
        }
      }
      if (error == 0) {
        tuneLinkSocket(socket.get());
        peers_.push_back({.fd = std::move(socket),
                          .address = where,
                          .node = 0,
                          .in = {},
                          .out = {},
                          .said = Peer::Said::Nothing,
                          .hang = {},
                          .zero_nonce = {},
                          .node_nonce = freshNonce()});
        ::freeaddrinfo(candidates);
        return;
      }
      // An attempt that the deadline cut short says less than the one before it.
      if (error != ETIMEDOUT || Clock::now() < join_deadline_ || last_error.empty()) last_error = std::strerror(error);
    }
    if (candidates != nullptr) ::freeaddrinfo(candidates);

    // Node 0 may not listen yet: try again until the deadline, answering stop requests.
    const Clock::time_point now = Clock::now();
    if (now >= join_deadline_) {
      throw JobNotStarted(kExitLauncherError,
                          "cannot reach node 0 at " + where + " within " + joinTimeoutText() + ": " + last_error);
    }
    pollfd inbox{.fd = signals.fd(), .events = POLLIN, .revents = 0};
    if (::poll(&inbox, 1, pollMs(std::min(join_deadline_, now + retry), now)) > 0) {
      if (int signo = stopRequest(signals)) {
        throw JobNotStarted(128 + signo, "got " + describeSignal(signo) + " while joining node 0 at " + where +
                                             "; nothing was started");
      }
    }
    retry = std::min(retry * 2, kLongestRetry);
  }
}

JobFacts NodeLink::joinNodeZero(SignalInbox &signals) {
  connectToNodeZero(signals);
  Peer &zero = peers_.front();
  const std::string name = zero.name();
  while (true) {
    const Clock::time_point now = Clock::now();
    if (now >= join_deadline_) {
      close();
      throw JobNotStarted(kExitLauncherError, name + " did not start the job within " + joinTimeoutText() +
                                                  ": it starts it once every node has joined");
    }
    std::vector<pollfd> fds = {
        {.fd = signals.fd(), .events = POLLIN, .revents = 0},
        {.fd = zero.fd.get(), .events = static_cast<short>(POLLIN | (zero.out.empty() ? 0 : POLLOUT)), .revents = 0}};
    const int ready = ::poll(fds.data(), fds.size(), pollMs(join_deadline_, now));
    if (ready < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "poll");
    if (ready <= 0) continue;
    if (fds[0].revents != 0) {
      if (int signo = stopRequest(signals)) {
        close();
        throw JobNotStarted(128 + signo, "got " + describeSignal(signo) + " while waiting for " + name +
                                             " to start the job; nothing was started");
      }
    }
    if (fds[1].revents == 0) continue;
    if (fds[1].revents & POLLOUT) flush(zero);
    std::string ended = zero.receive();
    Message message;
    // The challenge, answered by the hello; then the start. What follows the start stays where it
    // is, for the monitor.
    if (zero.zero_nonce.empty() && zero.takeFrame(kMaxHelloFrame, message, ended)) {
      Fields fields(message.body);
      std::string magic;
      if (message.type == Type::Challenge && fields.text(magic) && magic != kMagic && magic.starts_with(kMagicPrefix)) {
        close();
        throw JobNotStarted(kExitUsage, name + " speaks '" + magic + "', this node '" + std::string(kMagic) +
                                            "': every node needs the same tdist-run");
      }
      if (message.type == Type::Challenge && magic == kMagic && fields.text(zero.zero_nonce) &&
          zero.zero_nonce.size() >= 16) {
        send(zero, Frame(Type::Hello)
                       .text(kMagic)
                       .text(zero.node_nonce)
                       .text(joinProof(options_.job_secret, zero.zero_nonce, zero.node_nonce, node_, options_.nnodes,
                                       options_.n_pes))
                       .number(static_cast<std::uint32_t>(node_))
                       .number(static_cast<std::uint32_t>(options_.nnodes))
                       .number(static_cast<std::uint32_t>(options_.n_pes))
                       .bytes());
        continue;
      }
      close();
      throw JobNotStarted(kExitLauncherError, name + " is not a tdist-run's node 0: it did not begin with its challenge");
    }
    if (!zero.zero_nonce.empty() && zero.takeFrame(kMaxFrame, message, ended)) {
      Fields fields(message.body);
      JobFacts facts;
      std::string proof;
      if (message.type == Type::Start && fields.text(facts.ip_port) && fields.text(facts.job_id) && fields.text(proof)) {
        if (sameBytes(proof, startProof(options_.job_secret, zero.zero_nonce, zero.node_nonce, facts))) return facts;
        close();
        throw JobNotStarted(kExitUsage, name + " does not hold this node's job secret: every node needs the same "
                                               "TDIST_JOB_SECRET; nothing was started");
      }
      std::uint32_t status = 0, this_node = 0;
      std::string reason;
      if (message.type == Type::Refused && fields.number(status) && fields.number(this_node) && fields.text(reason)) {
        close();
        throw JobNotStarted(static_cast<int>(status),
                            name + (this_node ? " refused this node: " : " did not start the job: ") + reason);
      }
      ended = "it sent a message out of turn";  // nothing else comes before the start
    } else if (ended.empty()) {
      continue;
    }
    close();
    throw JobNotStarted(kExitLauncherError, "lost the link to " + name + " before the job started: " + ended);
  }
}

// ---- while the job runs -----------------------------------------------------------------------

void NodeLink::addPollFds(std::vector<pollfd> &fds) const {
  for (const Peer &peer : peers_) {
    if (peer.fd) {
      fds.push_back(
          {.fd = peer.fd.get(), .events = static_cast<short>(POLLIN | (peer.out.empty() ? 0 : POLLOUT)), .revents = 0});
    }
  }
}

bool NodeLink::hasUnreadFrames() const {
  for (const Peer &peer : peers_)
    if (peer.fd && peer.hasFrame()) return true;
  return false;
}

std::vector<LinkEvent> NodeLink::service(const std::vector<pollfd> &fds, Clock::time_point now) {
  std::vector<LinkEvent> events;
  for (Peer &peer : peers_) {
    if (!peer.fd) continue;
    std::string ended;
    for (const pollfd &fd : fds) {
      if (fd.fd != peer.fd.get() || fd.revents == 0) continue;
      if (fd.revents & POLLOUT) flush(peer);
      ended = peer.receive();
    }
    Message message;
    while (peer.takeFrame(kMaxFrame, message, ended)) {
      Fields fields(message.body);
      bool understood = false;
      if (message.type == Type::Ended) {
        int origin = 0, status = 0;
        std::string reason;
        understood = fields.number(origin) && fields.number(status) && fields.text(reason);
        if (understood) {
          peer.said = Peer::Said::Ended;
          events.push_back({.kind = LinkEvent::Kind::Ended, .node = origin, .exit_status = status, .reason = reason});
        }
      } else if (node_ == 0 && message.type == Type::Done) {
        understood = true;
        peer.said = Peer::Said::Done;
        peer.hang.running = 0;
        peer.hang.lines.clear();
      } else if (node_ == 0 && message.type == Type::Waits) {
        std::uint32_t blocked = 0, lines = 0;
        std::uint64_t quiet_ms = 0;
        NodeHangView view{.node = peer.node, .running = 0, .blocked = false, .quiet_since = {}, .lines = {}};
        understood =
            fields.number(view.running) && fields.number(blocked) && fields.number64(quiet_ms) && fields.number(lines);
        for (std::uint32_t i = 0; understood && i < lines; ++i) understood = fields.text(view.lines.emplace_back());
        if (understood && peer.said == Peer::Said::Nothing) {
          view.blocked = blocked != 0;
          view.quiet_since = now - std::chrono::milliseconds(quiet_ms);
          peer.hang = std::move(view);
        }
      } else if (node_ != 0 && message.type == Type::Finished) {
        understood = true;
        peer.said = Peer::Said::Done;
        finished_ = true;
      }
      if (!understood) {
        ended = "it sent a message out of turn";
        break;
      }
    }
    if (ended.empty()) continue;
    peer.fd.reset();
    // After its last word a link may close; before it, the node (or its host) is gone. A node
    // that said done owes node 0 nothing more.
    const bool expected = peer.said == Peer::Said::Ended || finished_ || (node_ == 0 && peer.said == Peer::Said::Done);
    if (!expected) {
      events.push_back({.kind = LinkEvent::Kind::Lost,
                        .node = peer.node,
                        .exit_status = 0,
                        .reason = "lost the link to " + peer.name() + ": " + ended});
    }
  }
  if (node_ == 0) maybeFinish();
  return events;
}

void NodeLink::announceEnd(int origin, int exit_status, const std::string &reason) {
  ended_ = true;
  if (node_ != 0 && origin != node_) return;  // node 0's word: it has told the others
  const std::string frame = Frame(Type::Ended)
                                .number(static_cast<std::uint32_t>(origin))
                                .number(static_cast<std::uint32_t>(exit_status))
                                .text(reason)
                                .bytes();
  for (Peer &peer : peers_)
    if (peer.node != origin && peer.said != Peer::Said::Ended) send(peer, frame);
}

void NodeLink::announceDone() {
  local_done_ = true;
  if (node_ == 0) {
    maybeFinish();
  } else {
    for (Peer &peer : peers_) send(peer, Frame(Type::Done).bytes());
  }
}

void NodeLink::maybeFinish() {
  if (finished_ || ended_ || !local_done_) return;
  for (const Peer &peer : peers_)
    if (peer.said != Peer::Said::Done) return;
  finished_ = true;
  for (Peer &peer : peers_) send(peer, Frame(Type::Finished).bytes());
}

std::string NodeLink::awaitedNodes() const {
  if (node_ != 0) return "node 0";
  std::vector<int> nodes;
  for (const Peer &peer : peers_)
    if (peer.said != Peer::Said::Done) nodes.push_back(peer.node);
  return nodes.empty() ? "no node" : nodeList(nodes);
}

void NodeLink::sendHangView(const NodeHangView &view, Clock::time_point now) {
  if (node_ == 0 || local_done_ || ended_) return;
  if (!hangViewWorthSending(view, sent_view_, sent_at_, now, kViewRefresh)) return;
  sent_view_ = view;
  sent_at_ = now;
  const auto quiet = std::chrono::duration_cast<std::chrono::milliseconds>(now - view.quiet_since);
  Frame frame(Type::Waits);
  frame.number(static_cast<std::uint32_t>(view.running))
      .number(view.blocked ? 1 : 0)
      .number64(static_cast<std::uint64_t>(std::max<std::chrono::milliseconds::rep>(quiet.count(), 0)))
      .number(static_cast<std::uint32_t>(view.lines.size()));
  for (const std::string &line : view.lines) frame.text(line);
  const std::string bytes = frame.bytes();
  for (Peer &peer : peers_) send(peer, bytes);
}

std::vector<NodeHangView> NodeLink::hangViews() const {
  std::vector<NodeHangView> views;
  for (const Peer &peer : peers_) views.push_back(peer.hang);
  return views;
}

void NodeLink::close() {
  const Clock::time_point deadline = Clock::now() + kCloseWait;
  flushAll(deadline);
  for (Peer &peer : peers_)
    if (peer.fd) ::shutdown(peer.fd.get(), SHUT_WR);
  // Until every other end has closed too: what it sends meanwhile is read and dropped, so that
  // closing with unread bytes never resets the link under a word still on its way.
  while (true) {
    std::vector<pollfd> fds;
    for (const Peer &peer : peers_)
      if (peer.fd) fds.push_back({.fd = peer.fd.get(), .events = POLLIN, .revents = 0});
    const Clock::time_point now = Clock::now();
    if (fds.empty() || now >= deadline) break;
    if (::poll(fds.data(), fds.size(), pollMs(deadline, now)) < 0 && errno != EINTR) break;
    for (const pollfd &fd : fds) {
      if (fd.revents == 0) continue;
      Peer *peer = peerOf(fd.fd);
      if (peer == nullptr) continue;
      const bool closed = !peer->receive().empty();
      peer->in.clear();
      if (closed) peer->fd.reset();
    }
  }
  peers_.clear();
  listener_.reset();
}

}  // namespace tdist::launcher
