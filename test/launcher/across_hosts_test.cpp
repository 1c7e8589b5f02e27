// One job across hosts, one tdist-run per node (--nnodes, --node-rank, --rdzv), every node on
// this host with its rendezvous on 127.0.0.1 at a free port: the nodes join, or are refused on
// both sides; the job ends as one on every node however it ends; node 0's hang check speaks for
// every node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "launcher_harness.h"

namespace tdist::launcher::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

const std::string kSecret = "TDIST_JOB_SECRET=across-hosts-test-0123456789";

// Failures must end the job promptly, with room for a loaded CI machine.
constexpr Seconds kPromptly{10};

// A port nobody listens on now: the kernel's pick for a socket closed at once.
int freePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) != 0) {
    throw std::runtime_error("cannot find a free port");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

std::vector<std::string> shell(const std::string &script) { return {"/bin/sh", "-c", script}; }

class AcrossHosts : public ::testing::Test {
 protected:
  std::string rdzv() const { return "127.0.0.1:" + std::to_string(port_); }

  // tdist-run of node rank of nnodes, n_pes PEs running program, with the job's secret unless
  // environment says otherwise.
  std::unique_ptr<LauncherProcess> startNode(int rank, int nnodes, int n_pes, const std::vector<std::string> &program,
                                             std::vector<std::string> options = {},
                                             const std::vector<std::string> &environment = {kSecret}) {
    std::vector<std::string> args = {"-n",          std::to_string(n_pes), "--nnodes", std::to_string(nnodes),
                                     "--node-rank", std::to_string(rank),  "--rdzv",   rdzv()};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--");
    args.insert(args.end(), program.begin(), program.end());
    return std::make_unique<LauncherProcess>(TDIST_RUN_PATH, args, environment);
  }

  int port_ = freePort();
};

#ifdef TDIST_TEST_WITH_UCX
constexpr bool kPesReachOtherNodes = true;
#else
constexpr bool kPesReachOtherNodes = false;
#endif

TEST_F(AcrossHosts, TwoNodesOfTwoPesRunOneJob) {
  if (!kPesReachOtherNodes) GTEST_SKIP() << "PEs of different nodes need UCX, which this build lacks";
  auto node1 = startNode(1, 2, 2, {TDIST_ACROSS_HOSTS_PROGRAM_PATH}, {"--timeout", "60"});
  auto node0 = startNode(0, 2, 2, {TDIST_ACROSS_HOSTS_PROGRAM_PATH}, {"--timeout", "60"});
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  EXPECT_EQ(zero.exit_status, 0) << zero.err;
  EXPECT_EQ(one.exit_status, 0) << one.err;
  // Each node's tdist-run carries its own PEs' output: the ring crossed between the nodes.
  for (const char *line : {"PE 0 of 4 on node 0: got PE 3's put", "PE 1 of 4 on node 0: got PE 0's put"})
    EXPECT_THAT(zero.out, HasSubstr(line));
  for (const char *line : {"PE 2 of 4 on node 1: got PE 1's put", "PE 3 of 4 on node 1: got PE 2's put"})
    EXPECT_THAT(one.out, HasSubstr(line));
}

TEST_F(AcrossHosts, EveryPeIsToldItsPlaceInTheJob) {
  const std::string script =
      R"(echo "$TDIST_PE $TDIST_N_PES $TDIST_NODE $TDIST_N_NODES $TDIST_LOCAL_PE $TDIST_LOCAL_PES )"
      R"($TDIST_IP_PORT $TDIST_JOB_ID $TDIST_JOB_SECRET ${TDIST_BOOTSTRAP_FD:-none}")";
  auto node1 = startNode(1, 2, 3, shell(script));
  auto node0 = startNode(0, 2, 3, shell(script));
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  ASSERT_EQ(zero.exit_status, 0) << zero.err;
  ASSERT_EQ(one.exit_status, 0) << one.err;
  std::vector<std::string> lines = splitLines(zero.out);
  for (const std::string &line : splitLines(one.out)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 6u) << zero.out << one.out;
  std::string ip_port, job_id;
  std::vector<bool> seen(6, false);
  for (const std::string &line : lines) {
    char ip[128] = {}, id[64] = {}, secret[64] = {}, bootstrap[16] = {};
    int pe = -1, n = -1, node = -1, nodes = -1, local = -1, locals = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "%d %d %d %d %d %d %127s %63s %63s %15s", &pe, &n, &node, &nodes, &local,
                          &locals, ip, id, secret, bootstrap),
              10)
        << line;
    ASSERT_TRUE(pe >= 0 && pe < 6) << line;
    seen[static_cast<std::size_t>(pe)] = true;
    EXPECT_EQ(n, 6) << line;
    EXPECT_EQ(node, pe / 3) << line;  // node R's PEs are R*3 .. R*3+2
    EXPECT_EQ(nodes, 2) << line;
    EXPECT_EQ(local, pe % 3) << line;
    EXPECT_EQ(locals, 3) << line;
    EXPECT_EQ("TDIST_JOB_SECRET=" + std::string(secret), kSecret) << line;
    // Only the job's PE 0 serves the store.
    EXPECT_EQ(std::string(bootstrap) == "none", pe != 0) << line;
    if (ip_port.empty()) ip_port = ip, job_id = id;
    // One store and one job id for every node: node 0's, on the rendezvous host.
    EXPECT_EQ(ip, ip_port) << line;
    EXPECT_EQ(id, job_id) << line;
  }
  EXPECT_EQ(seen, std::vector<bool>(6, true));
  EXPECT_THAT(ip_port, ::testing::StartsWith("tcp://127.0.0.1:"));
}

TEST_F(AcrossHosts, TaggedOutputNamesTheJobsPes) {
  auto node1 = startNode(1, 2, 2, shell("echo hello"), {"--tag-output"});
  auto node0 = startNode(0, 2, 2, shell("echo hello"), {"--tag-output"});
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  ASSERT_EQ(one.exit_status, 0) << one.err;
  ASSERT_EQ(zero.exit_status, 0) << zero.err;
  EXPECT_THAT(one.out, HasSubstr("[pe 2] hello\n"));
  EXPECT_THAT(one.out, HasSubstr("[pe 3] hello\n"));
  EXPECT_THAT(zero.out, HasSubstr("[pe 1] hello\n"));
}

TEST_F(AcrossHosts, NodesWithDifferentPeCountsAreRefusedOnBothSides) {
  auto node1 = startNode(1, 2, 3, shell("echo started"));
  auto node0 = startNode(0, 2, 2, shell("echo started"));
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  EXPECT_EQ(zero.exit_status, 2) << zero.err;
  EXPECT_EQ(one.exit_status, 2) << one.err;
  EXPECT_THAT(zero.err, HasSubstr("tdist-run: node 1 (127.0.0.1:"));
  EXPECT_THAT(zero.err, HasSubstr(") has -n 3, node 0 has -n 2: every node starts as many PEs; the job does "
                                  "not start\n"));
  EXPECT_THAT(one.err, HasSubstr("tdist-run: node 0 (" + rdzv() + ") refused this node: node 1 (127.0.0.1:"));
  EXPECT_THAT(one.err, HasSubstr(") has -n 3, node 0 has -n 2"));
  EXPECT_EQ(zero.out + one.out, "");  // no PE started
}

TEST_F(AcrossHosts, WrongSecretIsRefusedOnBothSides) {
  auto node1 = startNode(1, 2, 1, shell("echo started"), {}, {"TDIST_JOB_SECRET=not-the-job-secret-0123456789"});
  auto node0 = startNode(0, 2, 1, shell("echo started"));
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  EXPECT_EQ(zero.exit_status, 2) << zero.err;
  EXPECT_EQ(one.exit_status, 2) << one.err;
  const std::string why = "presented another job secret than node 0: every node needs the same TDIST_JOB_SECRET";
  EXPECT_THAT(zero.err, HasSubstr("tdist-run: node 1 (127.0.0.1:"));
  EXPECT_THAT(zero.err, HasSubstr(why));
  EXPECT_THAT(one.err, HasSubstr("tdist-run: node 0 (" + rdzv() + ") refused this node: node 1"));
  EXPECT_THAT(one.err, HasSubstr(why));
  EXPECT_EQ(zero.out + one.out, "");
}

// A stand-in for node 0 that speaks the link's frames (a 4-byte big-endian length, a type byte,
// then numbers and length-prefixed texts), to see what a joining node sends and how it takes
// what node 0 says.
class FakeNodeZero {
 public:
  explicit FakeNodeZero(int port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    const int on = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(listener_, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 || ::listen(listener_, 4) != 0)
      throw std::runtime_error("the fake node 0 cannot listen");
  }
  ~FakeNodeZero() {
    if (link_ >= 0) ::close(link_);
    ::close(listener_);
  }

  bool accept() {
    pollfd waiting{.fd = listener_, .events = POLLIN, .revents = 0};
    if (::poll(&waiting, 1, static_cast<int>(kSafetyLimit.count() * 1000)) != 1) return false;
    link_ = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    return link_ >= 0;
  }
  static std::string number(std::uint32_t value) {
    return {static_cast<char>(value >> 24), static_cast<char>(value >> 16), static_cast<char>(value >> 8),
            static_cast<char>(value)};
  }
  static std::string text(const std::string &value) { return number(static_cast<std::uint32_t>(value.size())) + value; }
  void send(int type, const std::string &body) {
    const std::string frame = number(static_cast<std::uint32_t>(body.size() + 1)) + static_cast<char>(type) + body;
    ASSERT_EQ(::send(link_, frame.data(), frame.size(), MSG_NOSIGNAL), static_cast<ssize_t>(frame.size()));
  }
  // The next whole frame, type byte first; "" if the link ends or time runs out first.
  std::string receive() {
    std::string in;
    const auto deadline = std::chrono::steady_clock::now() + kSafetyLimit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (in.size() >= 4) {
        const std::size_t length = static_cast<unsigned char>(in[0]) << 24 | static_cast<unsigned char>(in[1]) << 16 |
                                   static_cast<unsigned char>(in[2]) << 8 | static_cast<unsigned char>(in[3]);
        if (in.size() >= 4 + length) return in.substr(4, length);
      }
      pollfd waiting{.fd = link_, .events = POLLIN, .revents = 0};
      if (::poll(&waiting, 1, 1000) < 0) return "";
      char buffer[4096];
      const ssize_t got = ::recv(link_, buffer, sizeof buffer, MSG_DONTWAIT);
      if (got == 0) return "";
      if (got > 0) in.append(buffer, static_cast<std::size_t>(got));
    }
    return "";
  }

 private:
  int listener_ = -1;
  int link_ = -1;
};

// The joining node proves that it holds the secret without sending it, and takes no start from a
// node 0 that cannot prove the same.
TEST_F(AcrossHosts, TheSecretNeverCrossesTheLinkAndNodeZeroMustProveItToo) {
  FakeNodeZero zero(port_);
  auto node1 = startNode(1, 2, 1, shell("echo started"));
  ASSERT_TRUE(zero.accept());
  enum { kHello = 1, kStart = 3, kChallenge = 8 };
  zero.send(kChallenge, FakeNodeZero::text("tdist-run node link 2") + FakeNodeZero::text("a nonce of 16 bytes"));
  const std::string hello = zero.receive();
  ASSERT_FALSE(hello.empty());
  EXPECT_EQ(hello[0], static_cast<char>(kHello));
  EXPECT_THAT(hello, HasSubstr("tdist-run node link 2"));
  const std::string secret = kSecret.substr(kSecret.find('=') + 1);
  EXPECT_THAT(hello, Not(HasSubstr(secret)));
  // A start whose proof is not the secret's: the node refuses it and starts nothing.
  zero.send(kStart, FakeNodeZero::text("tcp://127.0.0.1:1") + FakeNodeZero::text("fakejob") +
                        FakeNodeZero::text(std::string(32, 'p')));
  LauncherResult one = node1->finish();
  EXPECT_EQ(one.exit_status, 2) << one.err;
  EXPECT_THAT(one.err, HasSubstr("tdist-run: node 0 (" + rdzv() + ") does not hold this node's job secret: every node "
                                 "needs the same TDIST_JOB_SECRET; nothing was started"));
  EXPECT_EQ(one.out, "");
}

TEST_F(AcrossHosts, SecondNodeOfTheSameRankIsRefused) {
  auto first = startNode(1, 3, 1, shell("echo started"));
  auto second = startNode(1, 3, 1, shell("echo started"));
  auto node0 = startNode(0, 3, 1, shell("echo started"));
  LauncherResult zero = node0->finish();
  EXPECT_EQ(zero.exit_status, 2) << zero.err;
  EXPECT_THAT(zero.err, HasSubstr("tdist-run: two nodes say they are node 1: 127.0.0.1:"));
  EXPECT_THAT(zero.err, HasSubstr("; the job does not start"));
  // Both are told, the one that came second as the reason; neither starts a PE.
  for (auto *node : {first.get(), second.get()}) {
    LauncherResult result = node->finish();
    EXPECT_EQ(result.exit_status, 2) << result.err;
    EXPECT_THAT(result.err, HasSubstr("two nodes say they are node 1"));
    EXPECT_EQ(result.out, "");
  }
}

TEST_F(AcrossHosts, NodeThatNeverJoinsFailsNodeZeroAtTheJoinDeadline) {
  auto node0 = startNode(0, 3, 1, shell("echo started"), {"--join-timeout", "3"});
  LauncherResult zero = node0->finish();
  EXPECT_FALSE(zero.hung);
  EXPECT_EQ(zero.exit_status, 1) << zero.err;
  EXPECT_GE(zero.elapsed, 3s);
  EXPECT_LT(zero.elapsed, kPromptly);
  EXPECT_THAT(zero.err, HasSubstr("tdist-run: nodes 1, 2 did not join node 0 at " + rdzv() +
                                  " within the join timeout of 3 s (--join-timeout); the job does not "
                                  "start\n"));
  EXPECT_EQ(zero.out, "");
}

TEST_F(AcrossHosts, NodeThatCannotReachNodeZeroFailsNamingTheAddress) {
  auto node1 = startNode(1, 2, 1, shell("echo started"), {"--join-timeout", "1.5"});
  LauncherResult one = node1->finish();
  EXPECT_EQ(one.exit_status, 1) << one.err;
  EXPECT_GE(one.elapsed, 1.5s);
  EXPECT_LT(one.elapsed, kPromptly);
  EXPECT_THAT(one.err, HasSubstr("tdist-run: cannot reach node 0 at " + rdzv() +
                                 " within the join timeout of 1.5 s (--join-timeout): Connection refused\n"));
  EXPECT_EQ(one.out, "");
}

TEST_F(AcrossHosts, FailingPeOnNodeOneEndsTheJobOnEveryNode) {
  auto node1 = startNode(1, 2, 2, shell(R"(if [ "$TDIST_PE" = 3 ]; then exit 5; fi; sleep 600)"));
  auto node0 = startNode(0, 2, 2, shell("sleep 600"));
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  EXPECT_EQ(one.exit_status, 5) << one.err;
  EXPECT_THAT(one.err, HasSubstr("tdist-run: PE 3 (pid "));
  EXPECT_THAT(one.err, HasSubstr(") exited with status 5; ending the job"));
  EXPECT_EQ(zero.exit_status, 5) << zero.err;
  EXPECT_THAT(zero.err, HasSubstr("tdist-run: node 1 ended the job: PE 3 exited with status 5\n"));
  EXPECT_LT(zero.elapsed, kPromptly);
  EXPECT_LT(one.elapsed, kPromptly);
}

TEST_F(AcrossHosts, EndOnNodeZeroReachesEveryOtherNode) {
  // Node 2's job deadline passes; node 0 passes the word on to node 1.
  auto node1 = startNode(1, 3, 1, shell("sleep 600"));
  auto node2 = startNode(2, 3, 1, shell("sleep 600"), {"--timeout", "1"});
  auto node0 = startNode(0, 3, 1, shell("sleep 600"));
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  LauncherResult two = node2->finish();
  EXPECT_EQ(two.exit_status, 124) << two.err;
  EXPECT_THAT(two.err, HasSubstr("tdist-run: job deadline of 1 s passed with PE 2 still running"));
  for (const LauncherResult *result : {&zero, &one}) {
    EXPECT_EQ(result->exit_status, 124) << result->err;
    EXPECT_THAT(result->err, HasSubstr("tdist-run: node 2 ended the job: its job deadline of 1 s passed\n"));
    EXPECT_LT(result->elapsed, kPromptly);
  }
}

TEST_F(AcrossHosts, DeadlineCountsWhileTheOtherNodesRun) {
  auto node1 = startNode(1, 2, 1, shell("sleep 600"));
  auto node0 = startNode(0, 2, 1, shell("true"), {"--timeout", "1"});
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  EXPECT_EQ(zero.exit_status, 124) << zero.err;
  EXPECT_THAT(zero.err, HasSubstr("tdist-run: job deadline of 1 s passed with node 1 still running; ending the "
                                  "job\n"));
  EXPECT_EQ(one.exit_status, 124) << one.err;
  EXPECT_THAT(one.err, HasSubstr("tdist-run: node 0 ended the job: its job deadline of 1 s passed\n"));
  EXPECT_LT(one.elapsed, kPromptly);
}

TEST_F(AcrossHosts, StopRequestToNodeZeroEndsEveryNode) {
  const std::string ready = R"(echo "PE $TDIST_PE ready"; exec sleep 600)";
  auto node1 = startNode(1, 2, 1, shell(ready));
  auto node0 = startNode(0, 2, 1, shell(ready));
  ASSERT_TRUE(node0->waitForStdout([](const std::string &out) { return contains(out, "ready"); }));
  ASSERT_TRUE(node1->waitForStdout([](const std::string &out) { return contains(out, "ready"); }));
  node0->sendSignal(SIGTERM);
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  EXPECT_EQ(zero.exit_status, 128 + SIGTERM) << zero.err;
  EXPECT_EQ(one.exit_status, 128 + SIGTERM) << one.err;
  EXPECT_THAT(one.err, HasSubstr("tdist-run: node 0 ended the job: its tdist-run got signal 15 (Terminated)\n"));
  EXPECT_LT(one.elapsed, kPromptly);
}

TEST_F(AcrossHosts, KilledLauncherEndsTheJobOnTheOtherNode) {
  // Node 1's PEs end once their launcher (their parent) is gone, so that nothing outlives the test.
  auto node1 = startNode(1, 2, 2,
                         shell(R"(echo "PE $TDIST_PE ready")"
                               R"sh(; while [ "$(cut -d' ' -f4 /proc/$$/stat)" = "$PPID" ]; do sleep 0.1; done)sh"));
  auto node0 = startNode(0, 2, 2, shell("sleep 600"));
  ASSERT_TRUE(node1->waitForStdout(
      [](const std::string &out) { return contains(out, "PE 2 ready") && contains(out, "PE 3 ready"); }));
  node1->sendSignal(SIGKILL);
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  EXPECT_EQ(one.exit_status, 128 + SIGKILL);
  EXPECT_FALSE(one.hung);
  EXPECT_EQ(zero.exit_status, 1) << zero.err;
  EXPECT_THAT(zero.err, HasSubstr("tdist-run: lost the link to node 1 (127.0.0.1:"));
  EXPECT_THAT(zero.err, HasSubstr("): connection closed; ending the job\n"));
  EXPECT_LT(zero.elapsed, kPromptly);
}

// Node 1's PEs exit 0 at once, leaving a mark; node 0's PE 0 waits for both marks and then ends
// as `status` says.
class NodeThatFinishesFirst : public AcrossHosts {
 protected:
  void run(int status) {
    std::string folder = (std::filesystem::temp_directory_path() / "tdist-across-hosts-XXXXXX").string();
    ASSERT_NE(::mkdtemp(folder.data()), nullptr);
    auto node1 = startNode(1, 2, 2, shell("touch '" + folder + "'/done.$TDIST_PE"));
    auto node0 =
        startNode(0, 2, 2,
                  shell("[ \"$TDIST_PE\" = 0 ] || exit 0; until [ -e '" + folder + "'/done.2 ] && [ -e '" + folder +
                        "'/done.3 ]; do sleep 0.05; done; "
                        "exit " +
                        std::to_string(status)));
    zero_ = node0->finish();
    one_ = node1->finish();
    std::filesystem::remove_all(folder);
  }
  LauncherResult zero_, one_;
};

TEST_F(NodeThatFinishesFirst, WaitsForTheJobAndExitsZeroWithIt) {
  run(0);
  EXPECT_EQ(zero_.exit_status, 0) << zero_.err;
  EXPECT_EQ(one_.exit_status, 0) << one_.err;
  EXPECT_EQ(zero_.err + one_.err, "");
}

TEST_F(NodeThatFinishesFirst, FailsWithTheJobWhenAnotherNodeFailsLater) {
  run(3);
  EXPECT_EQ(zero_.exit_status, 3) << zero_.err;
  EXPECT_EQ(one_.exit_status, 3) << one_.err;
  EXPECT_THAT(one_.err, HasSubstr("tdist-run: node 0 ended the job: PE 0 exited with status 3\n"));
}

// tdist_hang_scenario with a wait deadline of minutes: only the hang check ends it in seconds.
TEST_F(AcrossHosts, HangCheckOfNodeZeroSpeaksForEveryNode) {
  if (!kPesReachOtherNodes) GTEST_SKIP() << "PEs of different nodes need UCX, which this build lacks";
  // PE 0 waits for a notify that PE 3 never sends; PEs 1 to 3 wait for PE 0 in a barrier.
  const std::vector<std::string> options = {"--wait-timeout", "5m", "--timeout", "60"};
  auto node1 = startNode(1, 2, 2, {TDIST_HANG_SCENARIO_PATH, "missing-notify"}, options);
  auto node0 = startNode(0, 2, 2, {TDIST_HANG_SCENARIO_PATH, "missing-notify"}, options);
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  EXPECT_EQ(zero.exit_status, 97) << zero.err;
  EXPECT_EQ(one.exit_status, 97) << one.err;
  EXPECT_LT(zero.elapsed, kPromptly);
  EXPECT_THAT(zero.err, HasSubstr("tdist-run: no PE can make progress: every PE of the job's 2 nodes has "
                                  "waited 2."));
  EXPECT_THAT(zero.err, HasSubstr("tdist-run:   node 0: PE 0: aclshmem_signal_wait_until: waiting for GE 3 at "
                                  "symmetric offset 0x"));
  EXPECT_THAT(zero.err, HasSubstr("tdist-run:   node 0: PE 1: aclshmem_barrier_all: waiting for "));
  for (int pe : {2, 3}) {
    EXPECT_THAT(zero.err,
                HasSubstr("tdist-run:   node 1: PE " + std::to_string(pe) + ": aclshmem_barrier_all: waiting for "));
  }
  EXPECT_THAT(one.err, HasSubstr("tdist-run: node 0 ended the job: no PE can make progress"));
  EXPECT_THAT(zero.err + one.err, Not(HasSubstr("passed its deadline")));
}

TEST_F(AcrossHosts, PeComputingOnOneNodeKeepsTheJobAlive) {
  if (!kPesReachOtherNodes) GTEST_SKIP() << "PEs of different nodes need UCX, which this build lacks";
  // PE 0 computes for 5 s, longer than the stall time, while every other PE waits for it.
  const std::vector<std::string> options = {"--wait-timeout", "5m", "--timeout", "60"};
  auto node1 = startNode(1, 2, 2, {TDIST_HANG_SCENARIO_PATH, "compute-while-others-wait"}, options);
  auto node0 = startNode(0, 2, 2, {TDIST_HANG_SCENARIO_PATH, "compute-while-others-wait"}, options);
  LauncherResult zero = node0->finish();
  LauncherResult one = node1->finish();
  EXPECT_EQ(zero.exit_status, 0) << zero.err;
  EXPECT_EQ(one.exit_status, 0) << one.err;
  EXPECT_THAT(zero.err + one.err, Not(HasSubstr("no PE can make progress")));
}

}  // namespace
}  // namespace tdist::launcher::test
