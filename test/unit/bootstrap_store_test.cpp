// test/unit/bootstrap_store_test.cpp - the bootstrap store, with PEs as threads of one process (and
// PE 0 in a child process where it needs limits of its own).
//
// Every wait here is a blocking store call, a thread join, a child's exit or a wait for the server
// to close a connection, each with a deadline; nothing sleeps for a fixed time.
#include "runtime/bootstrap_store.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "runtime/bootstrap_store_wire.h"
#include "tdist/error.h"

namespace tdist::runtime {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
namespace wire = bootstrap;

constexpr char kSecret[] = "job-secret-0123456789";

Bytes bytesOf(std::string_view text) {
  auto bytes = std::as_bytes(std::span(text.data(), text.size()));
  return Bytes(bytes.begin(), bytes.end());
}

std::string textOf(const Bytes &bytes) {
  return std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size());
}

// A listening socket on a port the kernel picked.
struct Listener {
  wire::UniqueFd fd;
  std::uint16_t port = 0;
};

Listener listenOnFreePort(int family = AF_INET) {
  Listener listener{wire::UniqueFd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0))};
  sockaddr_storage address{};
  socklen_t length;
  if (family == AF_INET) {
    auto *v4 = reinterpret_cast<sockaddr_in *>(&address);
    v4->sin_family = AF_INET;
    v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    length = sizeof *v4;
  } else {
    auto *v6 = reinterpret_cast<sockaddr_in6 *>(&address);
    v6->sin6_family = AF_INET6;
    v6->sin6_addr = in6addr_loopback;
    length = sizeof *v6;
  }
  if (!listener.fd.valid() || ::bind(listener.fd.get(), reinterpret_cast<sockaddr *>(&address), length) != 0 ||
      ::listen(listener.fd.get(), 64) != 0 ||
      ::getsockname(listener.fd.get(), reinterpret_cast<sockaddr *>(&address), &length) != 0) {
    return {};
  }
  listener.port = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in *>(&address)->sin_port
                                          : reinterpret_cast<sockaddr_in6 *>(&address)->sin6_port);
  return listener;
}

// A port with nobody listening on it, for the store to bind.
Endpoint freeLocalEndpoint() { return Endpoint{"127.0.0.1", listenOnFreePort().port}; }

BootstrapOptions optionsFor(int pe, int n_pes, std::string secret = kSecret) {
  BootstrapOptions options;
  options.my_pe = pe;
  options.n_pes = n_pes;
  options.secret = std::move(secret);
  // Short enough that a broken test fails rather than hangs, long enough for a loaded CI machine.
  options.connect_timeout = 20s;
  options.op_timeout = 20s;
  return options;
}

// Runs body(pe) for every PE, each on a thread of its own, and reports what each one threw.
void runPes(int n_pes, const std::function<void(int)> &body) {
  std::vector<std::exception_ptr> errors(n_pes);
  std::vector<std::thread> threads;
  for (int pe = 0; pe < n_pes; ++pe) {
    threads.emplace_back([&, pe] {
      try {
        body(pe);
      } catch (...) {
        errors[pe] = std::current_exception();
      }
    });
  }
  for (auto &thread : threads) thread.join();
  for (int pe = 0; pe < n_pes; ++pe) {
    if (!errors[pe]) continue;
    try {
      std::rethrow_exception(errors[pe]);
    } catch (const std::exception &e) {
      ADD_FAILURE() << "PE " << pe << " threw: " << e.what();
    }
  }
}

template <typename Call>
void expectError(Call call, ErrorCode code, std::string_view fragment) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one containing \"" << fragment << "\"";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string_view(e.what()).find(fragment), std::string_view::npos)
        << "\"" << e.what() << "\" does not contain \"" << fragment << "\"";
  }
}

// Speaks the wire format directly, to say what the client API never lets a PE say.
class RawPeer {
 public:
  explicit RawPeer(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    timeval timeout{20, 0};  // a broken server fails the test instead of hanging it
    ::setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    connected_ = ::connect(fd_.get(), reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
  }

  bool connected() const { return connected_; }

  std::uint16_t localPort() const {
    sockaddr_in address{};
    socklen_t length = sizeof address;
    ::getsockname(fd_.get(), reinterpret_cast<sockaddr *>(&address), &length);
    return ntohs(address.sin_port);
  }

  // Whether the server closes the connection before deadline; what it sends until then is dropped.
  bool closedBy(Clock::time_point deadline) {
    for (;;) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd_.get(), POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      std::byte buffer[256];
      const ssize_t n = ::recv(fd_.get(), buffer, sizeof buffer, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return true;
    }
  }

  void send(const Bytes &bytes) {
    ASSERT_EQ(::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  }

  // One message without its length prefix; empty once the server has closed the connection.
  Bytes receive() {
    std::byte prefix[wire::kLengthBytes];
    if (!readExact(prefix, sizeof prefix)) return {};
    Bytes body(wire::readLength(prefix));
    if (!readExact(body.data(), body.size())) return {};
    return body;
  }

 private:
  bool readExact(std::byte *data, std::size_t size) {
    for (std::size_t got = 0; got < size;) {
      const ssize_t n = ::recv(fd_.get(), data + got, size - got, 0);
      if (n <= 0) return false;
      got += static_cast<std::size_t>(n);
    }
    return true;
  }

  wire::UniqueFd fd_;
  bool connected_ = false;
};

Bytes helloMessage(int pe, int n_pes, std::string_view secret) {
  return wire::MessageWriter(wire::MsgType::Hello)
      .u32(wire::kMagic)
      .u16(wire::kVersion)
      .i32(pe)
      .i32(n_pes)
      .str(secret)
      .finish();
}

// ---- parseIpPort ----------------------------------------------------------------------------

TEST(ParseIpPort, ReadsTcpAndTcp6) {
  Endpoint v4 = parseIpPort("tcp://127.0.0.1:29500");
  EXPECT_EQ(v4.host, "127.0.0.1");
  EXPECT_EQ(v4.port, 29500);
  EXPECT_FALSE(v4.ipv6);

  Endpoint name = parseIpPort("tcp://node-07.cluster:1025");
  EXPECT_EQ(name.host, "node-07.cluster");
  EXPECT_EQ(name.port, 1025);

  Endpoint v6 = parseIpPort("tcp6://[::1]:65535");
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 65535);
  EXPECT_TRUE(v6.ipv6);

  EXPECT_EQ(parseIpPort("tcp6://[fe80::1%eth0]:4000").host, "fe80::1%eth0");
}

TEST(ParseIpPort, RejectsBadTextSayingWhy) {
  const std::pair<const char *, const char *> cases[] = {
      {"tcp://x:80", "bad ip_port 'tcp://x:80': port must be in 1025..65535"},
      {"tcp://x:1024", "port must be in 1025..65535"},
      {"tcp://x:65536", "port must be in 1025..65535"},
      {"tcp://x:99999999999999999999", "port must be in 1025..65535"},
      {"tcp://x:0", "port must be in 1025..65535"},
      {"127.0.0.1:29500", "expected tcp://host:port or tcp6://[host]:port"},
      {"udp://127.0.0.1:29500", "expected tcp://host:port or tcp6://[host]:port"},
      {"", "expected tcp://host:port"},
      {"tcp://127.0.0.1", "missing port"},
      {"tcp://127.0.0.1:", "missing port"},
      {"tcp://:29500", "empty host"},
      {"tcp://x:29x00", "port '29x00' is not a number"},
      {"tcp://x:-2000", "port '-2000' is not a number"},
      {"tcp://x:+2000", "port '+2000' is not a number"},
      {"tcp://x:2000/path", "port '2000/path' is not a number"},
      {"tcp://a b:2000", "host 'a b' is not valid"},
      {"tcp://::1:2000", "IPv6 hosts need tcp6://[host]:port"},
      {"tcp://[::1]:2000", "IPv6 hosts need tcp6://[host]:port"},
      {"tcp6://::1:2000", "tcp6 needs the host in brackets"},
      {"tcp6://[::1:2000", "missing ']'"},
      {"tcp6://[]:2000", "empty host"},
      {"tcp6://[::1]", "missing port"},
      {"tcp6://[::1]2000", "expected ':port' after ']'"},
  };
  for (const auto &[text, fragment] : cases) {
    SCOPED_TRACE(text);
    expectError([&] { parseIpPort(text); }, ErrorCode::InvalidParam, fragment);
  }
}

// ---- keys -----------------------------------------------------------------------------------

TEST(BootstrapStore, SetAndGetAcrossPes) {
  constexpr int kPes = 3;
  constexpr int kRounds = 50;
  const Endpoint endpoint = freeLocalEndpoint();
  runPes(kPes, [&](int pe) {
    auto store = connectBootstrapStore(endpoint, optionsFor(pe, kPes));
    EXPECT_EQ(store->myPe(), pe);
    EXPECT_EQ(store->nPes(), kPes);
    store->set("card/" + std::to_string(pe), bytesOf("PE " + std::to_string(pe)));
    for (int peer = 0; peer < kPes; ++peer)
      EXPECT_EQ(textOf(store->get("card/" + std::to_string(peer))), "PE " + std::to_string(peer));
    store->set("empty/" + std::to_string(pe), {});
    EXPECT_TRUE(store->get("empty/" + std::to_string((pe + 1) % kPes)).empty());

    // A ring: each PE asks for the key its successor sets only after it has answered the
    // predecessor, so most gets wait at the store for their set.
    for (int round = 0; round < kRounds; ++round) {
      const std::string mine = "ring/" + std::to_string(round) + "/" + std::to_string(pe);
      const std::string next = "ring/" + std::to_string(round) + "/" + std::to_string((pe + 1) % kPes);
      if (pe == 0) store->set(mine, bytesOf(std::to_string(round)));
      EXPECT_EQ(textOf(store->get(next)), std::to_string(round));
      if (pe != 0) store->set(mine, bytesOf(std::to_string(round)));
    }
    store->barrier();
  });
}

TEST(BootstrapStore, GetIssuedBeforeTheSetWaitsForIt) {
  const Endpoint endpoint = freeLocalEndpoint();
  auto pe0 = connectBootstrapStore(endpoint, optionsFor(0, 2));
  RawPeer pe1(endpoint.port);
  ASSERT_TRUE(pe1.connected());
  pe1.send(helloMessage(1, 2, kSecret));
  ASSERT_EQ(wire::MessageReader(pe1.receive()).type(), wire::MsgType::Welcome);

  // The store handles one connection's messages in order, so when PE 0 sees "asked", PE 1's get
  // of "late" is certainly parked at the store, before any set of it.
  Bytes both = wire::MessageWriter(wire::MsgType::Get).str("late").finish();
  Bytes asked = wire::MessageWriter(wire::MsgType::Set).str("asked").blob({}).finish();
  both.insert(both.end(), asked.begin(), asked.end());
  pe1.send(both);
  pe0->get("asked");
  pe0->set("late", bytesOf("worth the wait"));

  Bytes reply = pe1.receive();
  wire::MessageReader value(reply);
  ASSERT_EQ(value.type(), wire::MsgType::Value);
  EXPECT_EQ(value.str(), "late");
  EXPECT_EQ(textOf(value.blob()), "worth the wait");

  pe1.send(wire::MessageWriter(wire::MsgType::Goodbye).finish());
  EXPECT_EQ(wire::MessageReader(pe1.receive()).type(), wire::MsgType::GoodbyeAck);
}

TEST(BootstrapStore, LargeValuesArriveWhole) {
  // Far beyond a socket buffer, so both ends must carry on after partial reads and writes.
  auto pattern = [](std::size_t size, int seed) {
    Bytes bytes(size);
    for (std::size_t i = 0; i < size; ++i)
      bytes[i] = static_cast<std::byte>((i * 131 + static_cast<std::size_t>(seed)) >> 3);
    return bytes;
  };
  const Endpoint endpoint = freeLocalEndpoint();
  runPes(2, [&](int pe) {
    auto store = connectBootstrapStore(endpoint, optionsFor(pe, 2));
    // EXPECT_TRUE, not EXPECT_EQ: a failure should not print megabytes.
    if (pe == 0) {
      store->set("big", pattern(8 << 20, 7));
    } else {
      EXPECT_TRUE(store->get("big") == pattern(8 << 20, 7));
    }
    std::vector<Bytes> all = store->allgather(pattern((2 << 20) + static_cast<std::size_t>(pe), pe));
    for (int peer = 0; peer < 2; ++peer)
      EXPECT_TRUE(all[peer] == pattern((2 << 20) + static_cast<std::size_t>(peer), peer)) << "from PE " << peer;
  });
}

// ---- collectives ----------------------------------------------------------------------------

class BarrierTest : public testing::TestWithParam<int> {};

TEST_P(BarrierTest, NoPeLeavesBeforeAllHaveArrived) {
  const int n_pes = GetParam();
  constexpr int kRounds = 200;
  const Endpoint endpoint = freeLocalEndpoint();
  std::atomic<int> arrivals{0};
  runPes(n_pes, [&](int pe) {
    auto store = connectBootstrapStore(endpoint, optionsFor(pe, n_pes));
    for (int round = 0; round < kRounds; ++round) {
      arrivals.fetch_add(1);
      store->barrier();
      // Everyone has arrived at this round; nobody can have arrived past the next one.
      const int seen = arrivals.load();
      EXPECT_GE(seen, n_pes * (round + 1)) << "round " << round;
      EXPECT_LE(seen, n_pes * (round + 1) + n_pes - 1) << "round " << round;
    }
  });
}

INSTANTIATE_TEST_SUITE_P(PeCounts, BarrierTest, testing::Values(1, 2, 4));

TEST(BootstrapStore, AllgatherOrdersContributionsByPe) {
  constexpr int kPes = 4;
  const Endpoint endpoint = freeLocalEndpoint();
  auto contribution = [](int round, int pe) {
    // Different lengths, one of them empty, so that entries cannot be confused.
    return std::string(static_cast<std::size_t>((pe + round) % kPes), 'a' + static_cast<char>(pe)) +
           (pe == 1 && round % 2 == 0 ? "" : "#" + std::to_string(round));
  };
  runPes(kPes, [&](int pe) {
    auto store = connectBootstrapStore(endpoint, optionsFor(pe, kPes));
    for (int round = 0; round < 30; ++round) {
      std::vector<Bytes> all = store->allgather(bytesOf(contribution(round, pe)));
      ASSERT_EQ(all.size(), static_cast<std::size_t>(kPes));
      for (int peer = 0; peer < kPes; ++peer) EXPECT_EQ(textOf(all[peer]), contribution(round, peer));
      if (round % 10 == 0) store->barrier();
    }
  });
}

TEST(BootstrapStore, CollectiveFailsOnceAPeHasLeft) {
  const Endpoint endpoint = freeLocalEndpoint();
  auto pe0 = connectBootstrapStore(endpoint, optionsFor(0, 2));
  auto pe1 = connectBootstrapStore(endpoint, optionsFor(1, 2));
  pe1.reset();
  expectError([&] { pe0->barrier(); }, ErrorCode::Bootstrap,
              "bootstrap barrier #1 failed: PE 1 left the store before joining barrier #1 (it said goodbye)");
}

TEST(BootstrapStore, MismatchedCollectivesFailOnEveryPe) {
  const Endpoint endpoint = freeLocalEndpoint();
  runPes(2, [&](int pe) {
    auto store = connectBootstrapStore(endpoint, optionsFor(pe, 2));
    expectError([&] { pe == 0 ? store->barrier() : (void)store->allgather(bytesOf("x")); },
                ErrorCode::CollectiveMismatch, "every PE must make the same collective calls in the same order");
  });
}

// ---- the secret ---------------------------------------------------------------------------------

// tdist-run's secrets are 32 hex digits (tools/tdist-run/job_identity.cpp).
static_assert(kMinSecretBytes <= 32, "tdist-run's job secrets would be refused");

TEST(BootstrapStore, RefusesToRunWithoutASecret) {
  const Endpoint endpoint = freeLocalEndpoint();
  for (int pe : {0, 1}) {
    SCOPED_TRACE("PE " + std::to_string(pe));
    BootstrapOptions options = optionsFor(pe, 2, "");
    const auto start = Clock::now();
    try {
      connectBootstrapStore(endpoint, options);
      ADD_FAILURE() << "connected without a secret";
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidParam) << e.what();
      const std::string_view message = e.what();
      for (std::string_view fragment : {"has no job secret", "could join the job", "tdist-run", "TDIST_JOB_SECRET",
                                        "TDIST_ALLOW_NO_SECRET=1", "InitAttr::allow_no_secret"}) {
        EXPECT_NE(message.find(fragment), std::string_view::npos) << "\"" << message << "\" lacks " << fragment;
      }
    }
    // Refused before anything is tried: no waiting for a server, and none started.
    EXPECT_LT(Clock::now() - start, 5s);
  }
  RawPeer nobody(endpoint.port);
  EXPECT_FALSE(nobody.connected()) << "PE 0 started a store it then refused to use";
}

TEST(BootstrapStore, RefusesAShortSecretWithoutShowingIt) {
  const std::string almost(kMinSecretBytes - 1, 'q');
  const Endpoint endpoint = freeLocalEndpoint();
  for (bool allow_no_secret : {false, true}) {
    BootstrapOptions options = optionsFor(0, 1, almost);
    options.allow_no_secret = allow_no_secret;  // lets an empty secret through, not a weak one
    try {
      connectBootstrapStore(endpoint, options);
      ADD_FAILURE() << "connected with a " << almost.size() << "-byte secret";
    } catch (const Error &e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidParam) << e.what();
      const std::string_view message = e.what();
      EXPECT_NE(message.find("job secret is " + std::to_string(almost.size()) + " bytes, too short"),
                std::string_view::npos)
          << message;
      EXPECT_NE(message.find("at least " + std::to_string(kMinSecretBytes) + " bytes"), std::string_view::npos)
          << message;
      EXPECT_EQ(message.find(almost), std::string_view::npos) << "the message shows the secret";
    }
  }
  auto store = connectBootstrapStore(endpoint, optionsFor(0, 1, std::string(kMinSecretBytes, 'q')));
  store->barrier();
}

TEST(BootstrapStore, AllowNoSecretRunsAnOpenStoreAndSaysSo) {
  const Endpoint endpoint = freeLocalEndpoint();
  testing::internal::CaptureStderr();
  runPes(2, [&](int pe) {
    BootstrapOptions options = optionsFor(pe, 2, "");
    options.allow_no_secret = true;
    auto store = connectBootstrapStore(endpoint, options);
    store->set("open/" + std::to_string(pe), bytesOf("yes"));
    EXPECT_EQ(textOf(store->get("open/" + std::to_string(1 - pe))), "yes");
    store->barrier();
  });
  const std::string log = testing::internal::GetCapturedStderr();
  const std::string line = "tdist: bootstrap store at tcp://127.0.0.1:" + std::to_string(endpoint.port) +
                           " runs without a job secret (allowed explicitly): any process that reaches it can join "
                           "the job\n";
  ASSERT_NE(log.find(line), std::string::npos) << log;
  EXPECT_EQ(log.find(line, log.find(line) + 1), std::string::npos) << "logged more than once:\n" << log;

  // Allowing no secret is no way around one that PE 0 has.
  auto pe0 = connectBootstrapStore(endpoint, optionsFor(0, 2));
  BootstrapOptions open = optionsFor(1, 2, "");
  open.allow_no_secret = true;
  testing::internal::CaptureStderr();
  expectError([&] { connectBootstrapStore(endpoint, open); }, ErrorCode::Bootstrap, "refused PE 1: wrong job secret");
  testing::internal::GetCapturedStderr();
}

TEST(BootstrapStore, SecretsCompareWhole) {
  EXPECT_TRUE(wire::secretsEqual(kSecret, kSecret));
  EXPECT_TRUE(wire::secretsEqual("", ""));
  EXPECT_FALSE(wire::secretsEqual("", kSecret));
  EXPECT_FALSE(wire::secretsEqual(kSecret, ""));
  const std::string secret = kSecret;
  EXPECT_FALSE(wire::secretsEqual(secret.substr(0, secret.size() - 1), secret)) << "a prefix";
  EXPECT_FALSE(wire::secretsEqual(secret + "x", secret)) << "an extension";
  EXPECT_FALSE(wire::secretsEqual(secret + secret, secret)) << "the secret twice";
  for (std::size_t i = 0; i < secret.size(); ++i) {
    std::string wrong = secret;
    wrong[i] ^= 1;
    EXPECT_FALSE(wire::secretsEqual(wrong, secret)) << "differs at " << i;
  }
}

// ---- strangers --------------------------------------------------------------------------------

TEST(BootstrapStore, RefusesAWrongSecretAndKeepsServingTheJob) {
  const Endpoint endpoint = freeLocalEndpoint();
  auto pe0 = connectBootstrapStore(endpoint, optionsFor(0, 2));
  auto pe1 = connectBootstrapStore(endpoint, optionsFor(1, 2));
  BootstrapStore *job[] = {pe0.get(), pe1.get()};

  testing::internal::CaptureStderr();
  const std::string where = "bootstrap store at tcp://127.0.0.1:" + std::to_string(endpoint.port);
  const std::string guess = "guessed-secret-0123";
  std::string error;
  try {
    connectBootstrapStore(endpoint, optionsFor(1, 2, guess));
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Bootstrap);
    error = e.what();
  }
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(error.find(where + " refused PE 1: wrong job secret"), std::string::npos) << error;
  EXPECT_EQ(error.find(guess), std::string::npos) << "the error shows the presented secret: " << error;
  EXPECT_EQ(error.find(kSecret), std::string::npos) << "the error shows the job's secret: " << error;
  const std::string line = "tdist: bootstrap store refused a connection from 127.0.0.1:";
  ASSERT_NE(log.find(line), std::string::npos) << log;
  EXPECT_EQ(log.find(line, log.find(line) + 1), std::string::npos) << "logged more than once:\n" << log;
  EXPECT_NE(log.find(": wrong job secret\n"), std::string::npos) << log;
  EXPECT_EQ(log.find(kSecret), std::string::npos) << "the log shows the job's secret:\n" << log;
  EXPECT_EQ(log.find(guess), std::string::npos) << "the log shows the presented secret:\n" << log;

  runPes(2, [&](int pe) {
    job[pe]->barrier();
    EXPECT_EQ(textOf(job[pe]->allgather(bytesOf(std::to_string(pe)))[1 - pe]), std::to_string(1 - pe));
  });
}

TEST(BootstrapStore, RefusesDuplicateAndMisconfiguredPes) {
  const Endpoint endpoint = freeLocalEndpoint();
  auto pe0 = connectBootstrapStore(endpoint, optionsFor(0, 2));
  auto pe1 = connectBootstrapStore(endpoint, optionsFor(1, 2));
  testing::internal::CaptureStderr();
  expectError([&] { connectBootstrapStore(endpoint, optionsFor(1, 2)); }, ErrorCode::Bootstrap,
              "refused PE 1: PE 1 is already connected");
  expectError([&] { connectBootstrapStore(endpoint, optionsFor(1, 3)); }, ErrorCode::Bootstrap,
              "refused PE 1: the job has 2 PEs, not 3");
  testing::internal::GetCapturedStderr();
  runPes(2, [&](int pe) { (pe == 0 ? pe0 : pe1)->barrier(); });
}

TEST(BootstrapStore, RefusesPeOutOfRange) {
  expectError(
      [] {
        connectBootstrapStore(Endpoint{"127.0.0.1", 29500}, optionsFor(2, 2));
      },
      ErrorCode::InvalidParam, "my_pe 2 is out of range 0..1");

  // A client that skips that check is refused by the store itself.
  const Endpoint endpoint = freeLocalEndpoint();
  auto pe0 = connectBootstrapStore(endpoint, optionsFor(0, 2));
  testing::internal::CaptureStderr();
  for (int pe : {2, -1}) {
    RawPeer stranger(endpoint.port);
    ASSERT_TRUE(stranger.connected());
    stranger.send(helloMessage(pe, 2, kSecret));
    Bytes reply = stranger.receive();
    wire::MessageReader refusal(reply);
    EXPECT_EQ(refusal.type(), wire::MsgType::Refused);
    EXPECT_EQ(refusal.str(), "PE " + std::to_string(pe) + " is out of range 0..1");
    EXPECT_TRUE(stranger.receive().empty()) << "the store should close a refused connection";
  }
  testing::internal::GetCapturedStderr();
  auto pe1 = connectBootstrapStore(endpoint, optionsFor(1, 2));
  runPes(2, [&](int pe) { (pe == 0 ? pe0 : pe1)->barrier(); });
}

TEST(BootstrapStore, RefusesGarbageAndKeepsServing) {
  const Endpoint endpoint = freeLocalEndpoint();
  auto pe0 = connectBootstrapStore(endpoint, optionsFor(0, 2));
  testing::internal::CaptureStderr();
  RawPeer browser(endpoint.port);
  ASSERT_TRUE(browser.connected());
  browser.send(bytesOf("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  for (Bytes reply = browser.receive(); !reply.empty(); reply = browser.receive()) {
  }
  EXPECT_NE(testing::internal::GetCapturedStderr().find("not a tdist bootstrap client"), std::string::npos);
  auto pe1 = connectBootstrapStore(endpoint, optionsFor(1, 2));
  runPes(2, [&](int pe) { (pe == 0 ? pe0 : pe1)->barrier(); });
}

// ---- deadlines and failures -------------------------------------------------------------------

TEST(BootstrapStore, DropsConnectionsThatNeverFinishTheirHelloAndServesThePes) {
  constexpr int kPes = 3;
  constexpr int kSilent = 8;
  constexpr auto kHelloTimeout = 1000ms;
  constexpr auto kSlack = 2000ms;
  const Endpoint endpoint = freeLocalEndpoint();
  BootstrapOptions options = optionsFor(0, kPes);
  options.hello_timeout = kHelloTimeout;
  testing::internal::CaptureStderr();
  auto pe0 = connectBootstrapStore(endpoint, options);

  const auto opened = Clock::now();
  std::vector<std::unique_ptr<RawPeer>> strangers;
  for (int i = 0; i < kSilent; ++i) {
    strangers.push_back(std::make_unique<RawPeer>(endpoint.port));
    ASSERT_TRUE(strangers.back()->connected());
  }
  // And one that starts a hello, as a PE would, but never finishes it.
  strangers.push_back(std::make_unique<RawPeer>(endpoint.port));
  ASSERT_TRUE(strangers.back()->connected());
  Bytes half = helloMessage(1, kPes, kSecret);
  half.resize(half.size() / 2);
  strangers.back()->send(half);

  std::vector<std::unique_ptr<BootstrapStore>> stores(kPes);
  stores[0] = std::move(pe0);
  runPes(kPes, [&](int pe) {
    if (pe > 0) stores[pe] = connectBootstrapStore(endpoint, optionsFor(pe, kPes));
    stores[pe]->barrier();
  });

  for (auto &stranger : strangers) {
    EXPECT_TRUE(stranger->closedBy(opened + kHelloTimeout + kSlack)) << "from port " << stranger->localPort();
    EXPECT_GE(Clock::now() - opened, kHelloTimeout) << "dropped before its deadline";
  }

  // The PEs' connections, older than the deadline now, are still served.
  runPes(kPes, [&](int pe) {
    stores[pe]->barrier();
    EXPECT_EQ(textOf(stores[pe]->allgather(bytesOf(std::to_string(pe)))[(pe + 1) % kPes]),
              std::to_string((pe + 1) % kPes));
  });
  for (int pe = kPes - 1; pe >= 0; --pe) stores[pe].reset();  // PE 0's store waits for the others
  const std::string log = testing::internal::GetCapturedStderr();
  for (auto &stranger : strangers) {
    const std::string line = "tdist: bootstrap store dropped a connection from 127.0.0.1:" +
                             std::to_string(stranger->localPort()) + ": no hello within 1000 ms\n";
    const auto at = log.find(line);
    EXPECT_NE(at, std::string::npos) << line << "is not in\n" << log;
    EXPECT_EQ(log.find(line, at + 1), std::string::npos) << line << "is there more than once";
  }
  EXPECT_EQ(log.find(kSecret), std::string::npos) << log;
}

// PE 0 of a job whose strangers take every descriptor PE 0 has left; returns its exit status.
int servePe0WithFewDescriptors(const Endpoint &endpoint, int ready_fd, int log_fd) {
  ::dup2(log_fd, STDERR_FILENO);
  // Eight descriptors free below the limit: the store's own sockets, PE 0's connection and a
  // few more. Descriptors already open above it stay usable.
  std::vector<int> open_fds;
  for (const auto &entry : std::filesystem::directory_iterator("/proc/self/fd"))
    open_fds.push_back(std::stoi(entry.path().filename().string()));
  int below = 0;
  for (int free_fds = 0; free_fds < 8; ++below)
    if (std::find(open_fds.begin(), open_fds.end(), below) == open_fds.end()) ++free_fds;
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = static_cast<rlim_t>(below);
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) return 2;
  try {
    BootstrapOptions options = optionsFor(0, 2);
    options.hello_timeout = 60s;  // far beyond PE 1's connect_timeout: no rescue from there
    options.op_timeout = 45s;  // beyond PE 1's connect deadline
    auto store = connectBootstrapStore(endpoint, options);
    if (::write(ready_fd, "r", 1) != 1) return 3;
    store->barrier();
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "PE 0: %s\n", e.what());
    return 1;
  }
}

TEST(BootstrapStore, StrangersThatTakeEveryDescriptorMakeRoomForThePes) {
  const Endpoint endpoint = freeLocalEndpoint();
  int ready[2], log[2];
  ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(log, O_CLOEXEC), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    ::close(log[0]);
    ::_exit(servePe0WithFewDescriptors(endpoint, ready[1], log[1]));
  }
  ::close(ready[1]);
  ::close(log[1]);
  char ready_byte = 0;
  EXPECT_EQ(::read(ready[0], &ready_byte, 1), 1) << "PE 0 did not start";
  ::close(ready[0]);

  std::vector<std::unique_ptr<RawPeer>> strangers;
  for (int i = 0; i < 32; ++i) {
    strangers.push_back(std::make_unique<RawPeer>(endpoint.port));
    EXPECT_TRUE(strangers.back()->connected());
  }
  BootstrapOptions options = optionsFor(1, 2);
  // A deadline, not a wait: PE 1 gets in once PE 0 has dropped the strangers ahead of it in the
  // listen queue, milliseconds on an idle machine; on a loaded one (a CI run under the sanitizers
  // beside other jobs took over 10 s) the SYN retries back off. Still below the strangers' hello
  // timeout (60 s), so that only making room can let PE 1 in.
  options.connect_timeout = 30s;
  try {
    auto pe1 = connectBootstrapStore(endpoint, options);
    pe1->barrier();
  } catch (const std::exception &e) {
    ADD_FAILURE() << "PE 1: " << e.what();
  }

  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  std::string child_log;
  char buffer[4096];
  for (ssize_t n; (n = ::read(log[0], buffer, sizeof buffer)) > 0;)
    child_log.append(buffer, static_cast<std::size_t>(n));
  ::close(log[0]);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "PE 0 ended with status " << status << ":\n"
                                                             << child_log;
  EXPECT_NE(child_log.find("that had not said hello, to make room (accept: Too many open files)"), std::string::npos)
      << child_log;
  // A flood does not flood the log: twenty lines, then a count.
  int lines = 0;
  for (auto at = child_log.find("tdist: bootstrap store dropped a connection from "); at != std::string::npos;
       at = child_log.find("tdist: bootstrap store dropped a connection from ", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 20) << child_log;
  EXPECT_NE(child_log.find("tdist: bootstrap store dropped or refused "), std::string::npos) << child_log;
}

TEST(BootstrapStore, ConnectWithoutAServerGivesUpAtConnectTimeout) {
  const Endpoint endpoint = freeLocalEndpoint();
  BootstrapOptions options = optionsFor(1, 2);
  options.connect_timeout = 300ms;
  const auto start = Clock::now();
  expectError([&] { connectBootstrapStore(endpoint, options); }, ErrorCode::Bootstrap,
              "cannot reach the bootstrap store at tcp://127.0.0.1:" + std::to_string(endpoint.port) +
                  " from PE 1: gave up after ");
  const auto waited = Clock::now() - start;
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 2300ms);
}

TEST(BootstrapStore, GetOfAKeyNeverSetTimesOut) {
  BootstrapOptions options = optionsFor(0, 1);
  options.op_timeout = 200ms;
  auto store = connectBootstrapStore(freeLocalEndpoint(), options);
  const auto start = Clock::now();
  expectError([&] { store->get("never-set"); }, ErrorCode::Bootstrap,
              "bootstrap get('never-set') timed out after 200 ms");
  const auto waited = Clock::now() - start;
  EXPECT_GE(waited, 200ms);
  EXPECT_LT(waited, 2200ms);
  // Its answer could still arrive, so the store refuses to be used out of step.
  expectError([&] { store->barrier(); }, ErrorCode::Bootstrap, "unusable after an earlier error");
}

TEST(BootstrapStore, BarrierTimesOutNamingItsNumber) {
  BootstrapOptions options = optionsFor(0, 2);  // PE 1 never comes
  options.op_timeout = 200ms;
  auto store = connectBootstrapStore(freeLocalEndpoint(), options);
  expectError([&] { store->barrier(); }, ErrorCode::Bootstrap, "bootstrap barrier #1 timed out after 200 ms");
}

// A server that welcomes the first PE that says hello, and then closes the connection or, given
// where, keeps it open and silent.
std::thread welcomeOnce(const Listener &fake, wire::UniqueFd *kept = nullptr) {
  return std::thread([&fake, kept] {
    wire::UniqueFd peer(::accept(fake.fd.get(), nullptr, nullptr));
    std::byte buffer[4096];
    ::recv(peer.get(), buffer, sizeof buffer, 0);
    const Bytes welcome = wire::MessageWriter(wire::MsgType::Welcome).finish();
    ::send(peer.get(), welcome.data(), welcome.size(), MSG_NOSIGNAL);
    if (kept != nullptr) *kept = std::move(peer);
  });
}

TEST(BootstrapStore, LostConnectionIsReported) {
  Listener fake = listenOnFreePort();
  ASSERT_TRUE(fake.fd.valid());
  std::thread server = welcomeOnce(fake);  // then goes away
  auto store = connectBootstrapStore(Endpoint{"127.0.0.1", fake.port}, optionsFor(1, 2));
  server.join();
  expectError([&] { store->get("anything"); }, ErrorCode::Bootstrap,
              "bootstrap store connection lost during get('anything')");
}

// A store that accepts and then never answers (a host that stopped, a link that drops what it
// carries): the connect and every call end at their deadlines, naming what they waited for.
TEST(BootstrapStore, AStoreThatNeverAnswersTheHelloEndsTheConnectAtItsDeadline) {
  Listener silent = listenOnFreePort();  // the kernel completes the handshake; nobody reads
  ASSERT_TRUE(silent.fd.valid());
  BootstrapOptions options = optionsFor(1, 2);
  options.connect_timeout = 400ms;
  options.op_timeout = 400ms;
  const auto start = Clock::now();
  expectError([&] { connectBootstrapStore(Endpoint{"127.0.0.1", silent.port}, options); }, ErrorCode::Bootstrap,
              "cannot reach the bootstrap store at tcp://127.0.0.1:" + std::to_string(silent.port) +
                  " from PE 1: gave up after ");
  expectError([&] { connectBootstrapStore(Endpoint{"127.0.0.1", silent.port}, options); }, ErrorCode::Bootstrap,
              "no answer to the hello");
  EXPECT_LT(Clock::now() - start, 5s);
}

TEST(BootstrapStore, AStoreThatFallsSilentAfterTheWelcomeEndsEachCallAtItsDeadline) {
  Listener fake = listenOnFreePort();
  ASSERT_TRUE(fake.fd.valid());
  wire::UniqueFd kept;  // open and silent until the test ends
  std::thread server = welcomeOnce(fake, &kept);
  BootstrapOptions options = optionsFor(1, 2);
  options.op_timeout = 300ms;
  auto store = connectBootstrapStore(Endpoint{"127.0.0.1", fake.port}, options);
  server.join();
  const auto start = Clock::now();
  expectError([&] { store->barrier(); }, ErrorCode::Bootstrap, "bootstrap barrier #1 timed out after 300 ms");
  EXPECT_LT(Clock::now() - start, 2300ms);
  expectError([&] { store->get("anything"); }, ErrorCode::Bootstrap, "unusable after an earlier error");
}

// ---- sessions ---------------------------------------------------------------------------------

// PEs run their sessions back to back, so a fast PE's next hello often reaches the previous
// session's server while it still waits for the slow PEs' goodbyes.
void runSessions(const Endpoint &endpoint, int listen_fd) {
  constexpr int kPes = 3;
  constexpr int kSessions = 4;
  runPes(kPes, [&](int pe) {
    for (int session = 0; session < kSessions; ++session) {
      BootstrapOptions options = optionsFor(pe, kPes);
      options.listen_fd = listen_fd;
      auto store = connectBootstrapStore(endpoint, options);
      const std::vector<Bytes> all = store->allgather(bytesOf(std::to_string(10 * session + pe)));
      for (int peer = 0; peer < kPes; ++peer) EXPECT_EQ(textOf(all[peer]), std::to_string(10 * session + peer));
      store->barrier();
    }
  });
}

TEST(BootstrapStore, ServesSessionAfterSessionOnOneEndpoint) {
  const Endpoint endpoint = freeLocalEndpoint();
  runSessions(endpoint, -1);
  // The last session's server has closed its socket.
  RawPeer late(endpoint.port);
  EXPECT_FALSE(late.connected());
}

TEST(BootstrapStore, ServesSessionAfterSessionOnOneListenFd) {
  Listener listener = listenOnFreePort();
  ASSERT_TRUE(listener.fd.valid());
  runSessions(Endpoint{"127.0.0.1", listener.port}, listener.fd.get());
  int listening = 0;
  socklen_t length = sizeof listening;
  ASSERT_EQ(::getsockopt(listener.fd.get(), SOL_SOCKET, SO_ACCEPTCONN, &listening, &length), 0)
      << "the store closed the caller's listen_fd";
  EXPECT_EQ(listening, 1);
}

TEST(BootstrapStore, RejectsAListenFdThatIsNotListening) {
  wire::UniqueFd not_listening(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  BootstrapOptions options = optionsFor(0, 1);
  options.listen_fd = not_listening.get();
  expectError([&] { connectBootstrapStore(freeLocalEndpoint(), options); }, ErrorCode::InvalidParam,
              "is not a listening socket");
}

TEST(BootstrapStore, WorksOverIpv6) {
  const std::uint16_t port = listenOnFreePort(AF_INET6).port;
  if (port == 0) GTEST_SKIP() << "no IPv6 loopback here";
  const Endpoint endpoint = parseIpPort("tcp6://[::1]:" + std::to_string(port));
  runPes(2, [&](int pe) {
    auto store = connectBootstrapStore(endpoint, optionsFor(pe, 2));
    store->set("v6/" + std::to_string(pe), bytesOf("yes"));
    EXPECT_EQ(textOf(store->get("v6/" + std::to_string(1 - pe))), "yes");
    store->barrier();
  });
}

}  // namespace
}  // namespace tdist::runtime
