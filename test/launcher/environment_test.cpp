// What every PE is told: the job variables of runtime.h's attrFromEnvironment, and the bootstrap
// socket, which PE 0 alone holds.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <regex>
#include <set>

#include "common/wait_board.h"
#include "launcher_harness.h"

namespace tdist::launcher::test {
namespace {

class EnvironmentTest : public ::testing::TestWithParam<int> {};

TEST_P(EnvironmentTest, EveryPeGetsItsRankAndTheSameJobVariables) {
  const int n_pes = GetParam();
  LauncherResult result = runLauncher(shellJob(
      n_pes, R"(echo "pe=$TDIST_PE n=$TDIST_N_PES local=$TDIST_LOCAL_PE/$TDIST_LOCAL_PES )"
             R"(ip=$TDIST_IP_PORT )"
             R"(secret=$TDIST_JOB_SECRET job=$TDIST_JOB_ID")"));
  ASSERT_EQ(result.exit_status, 0) << result.err;

  const std::regex line_format(
      R"(pe=(\d+) n=(\d+) local=(\d+)/(\d+) ip=(tcp://127\.0\.0\.1:(\d+)) secret=([0-9a-f]{32}) )"
      R"(job=([0-9a-f]+))");
  std::set<int> pes;
  std::set<std::string> ip_ports, secrets, job_ids;
  for (const std::string &line : splitLines(result.out)) {
    std::smatch match;
    ASSERT_TRUE(std::regex_match(line, match, line_format)) << "unexpected line: " << line;
    pes.insert(std::stoi(match[1]));
    EXPECT_EQ(std::stoi(match[2]), n_pes);
    EXPECT_EQ(match[3], match[1]) << "a one-host job's local PE index is its PE number";
    EXPECT_EQ(std::stoi(match[4]), n_pes);
    EXPECT_GT(std::stoi(match[6]), 1024);
    ip_ports.insert(match[5]);
    secrets.insert(match[7]);
    job_ids.insert(match[8]);
  }
  std::set<int> expected_pes;
  for (int pe = 0; pe < n_pes; ++pe) expected_pes.insert(pe);
  EXPECT_EQ(pes, expected_pes);
  EXPECT_EQ(splitLines(result.out).size(), static_cast<std::size_t>(n_pes));
  EXPECT_EQ(ip_ports.size(), 1u);
  EXPECT_EQ(secrets.size(), 1u);
  EXPECT_EQ(job_ids.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(PeCounts, EnvironmentTest, ::testing::Values(1, 2, 3, 4),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::to_string(info.param) + "pes";
                         });

// --nodes K: contiguous blocks of N / K PEs, each PE told its node and the node count; a count
// that does not divide the PEs is refused before anything starts.
TEST(Environment, NodesSplitThePesIntoBlocks) {
  LauncherResult result = runLauncher(shellJob(6, R"(echo "$TDIST_PE $TDIST_NODE $TDIST_N_NODES")", {"--nodes", "3"}));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  std::map<int, int> node_of;
  for (const std::string &line : splitLines(result.out)) {
    int pe = -1, node = -1, nodes = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "%d %d %d", &pe, &node, &nodes), 3) << line;
    EXPECT_EQ(nodes, 3);
    node_of[pe] = node;
  }
  EXPECT_EQ(node_of, (std::map<int, int>{{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 2}, {5, 2}}));
  LauncherResult single = runLauncher(shellJob(2, R"(echo "$TDIST_NODE $TDIST_N_NODES")"));
  EXPECT_EQ(splitLines(single.out), (std::vector<std::string>{"0 1", "0 1"}));

  LauncherResult uneven = runLauncher(shellJob(3, "true", {"--nodes", "2"}));
  EXPECT_EQ(uneven.exit_status, 2);
  EXPECT_NE(uneven.err.find("--nodes 2 does not divide -n 3"), std::string::npos) << uneven.err;
}

TEST(Environment, EveryJobHasItsOwnSecretAndId) {
  const std::string script = R"(echo "$TDIST_JOB_SECRET $TDIST_JOB_ID")";
  LauncherResult first = runLauncher(shellJob(1, script));
  LauncherResult second = runLauncher(shellJob(1, script));
  ASSERT_EQ(first.exit_status, 0) << first.err;
  ASSERT_EQ(second.exit_status, 0) << second.err;
  EXPECT_NE(first.out, second.out);
}

TEST(Environment, OptionsReachEveryPeAsRuntimeVariables) {
  LauncherResult result = runLauncher(shellJob(
      2, R"(echo "heap=$TDIST_HEAP_SIZE engines=$TDIST_ENGINES wait=$TDIST_WAIT_TIMEOUT")",
      {"--heap", "2M", "--engines", "mte,sdma", "--wait-timeout", "1.5"}));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "heap=2097152 engines=mte,sdma wait=1.5\n"
                        "heap=2097152 engines=mte,sdma wait=1.5\n");
}

TEST(Environment, OptionsNotGivenAreNotSet) {
  LauncherResult result = runLauncher(shellJob(
      1, R"(echo "${TDIST_HEAP_SIZE-unset} ${TDIST_ENGINES-unset} ${TDIST_WAIT_TIMEOUT-unset}")"));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "unset unset unset\n");
}

// Every PE inherits the job's wait board (hang_check.h), a memory file of one record per PE;
// with --hang-check 0 there is none.
constexpr const char *kInspectWaitBoard = R"sh(
if [ -n "$TDIST_WAIT_BOARD_FD" ]; then
  echo "pe=$TDIST_PE board=$(readlink "/proc/$$/fd/$TDIST_WAIT_BOARD_FD" | cut -d" " -f1) bytes=$(stat -L -c %s "/proc/$$/fd/$TDIST_WAIT_BOARD_FD")"
else
  echo "pe=$TDIST_PE board=none"
fi
)sh";

TEST(Environment, EveryPeInheritsTheWaitBoardUnlessTheHangCheckIsOff) {
  LauncherResult on = runLauncher(shellJob(2, kInspectWaitBoard));
  ASSERT_EQ(on.exit_status, 0) << on.err;
  std::vector<std::string> on_lines = splitLines(on.out);
  std::set<std::string> lines(on_lines.begin(), on_lines.end());
  const std::string bytes = std::to_string(2 * wait_board::kRecordBytes);  // a record per PE
  EXPECT_EQ(lines, (std::set<std::string>{"pe=0 board=/memfd:tdist-wait-board bytes=" + bytes,
                                          "pe=1 board=/memfd:tdist-wait-board bytes=" + bytes}))
      << on.out;

  LauncherResult off = runLauncher(shellJob(2, kInspectWaitBoard, {"--hang-check", "0"}));
  ASSERT_EQ(off.exit_status, 0) << off.err;
  std::vector<std::string> off_lines = splitLines(off.out);
  lines = std::set<std::string>(off_lines.begin(), off_lines.end());
  EXPECT_EQ(lines, (std::set<std::string>{"pe=0 board=none", "pe=1 board=none"})) << off.out;
}

// Counts the sockets among the shell's own descriptors, leaving out its status channel (which
// every PE has, status_test.cpp), and checks in /proc/net that the one named by
// TDIST_BOOTSTRAP_FD is listening (state 0A).
constexpr const char *kInspectSockets = R"sh(
sockets=0
for fd in /proc/$$/fd/*; do
  [ "$fd" = "/proc/$$/fd/$TDIST_STATUS_FD" ] && continue
  case "$(readlink "$fd")" in socket:*) sockets=$((sockets + 1));; esac
done
listening=no
if [ -n "$TDIST_BOOTSTRAP_FD" ] && [ -e "/proc/$$/fd/$TDIST_BOOTSTRAP_FD" ]; then
  inode=$(readlink "/proc/$$/fd/$TDIST_BOOTSTRAP_FD" | tr -dc 0-9)
  if awk -v inode="$inode" '$10 == inode && $4 == "0A" { found = 1 } END { exit !found }' \
       /proc/net/tcp /proc/net/tcp6; then
    listening=yes
  fi
fi
echo "pe=$TDIST_PE fd=${TDIST_BOOTSTRAP_FD:-none} sockets=$sockets listening=$listening"
)sh";

TEST(Environment, OnlyPe0InheritsTheListeningBootstrapSocket) {
  LauncherResult result = runLauncher(shellJob(4, kInspectSockets));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  std::map<int, std::string> report_of_pe;
  const std::regex line_format(R"(pe=(\d+) (.*))");
  for (const std::string &line : splitLines(result.out)) {
    std::smatch match;
    ASSERT_TRUE(std::regex_match(line, match, line_format)) << line;
    report_of_pe[std::stoi(match[1])] = match[2];
  }
  ASSERT_EQ(report_of_pe.size(), 4u) << result.out;
  EXPECT_TRUE(std::regex_match(report_of_pe[0], std::regex(R"(fd=\d+ sockets=1 listening=yes)")))
      << report_of_pe[0];
  for (int pe = 1; pe < 4; ++pe)
    EXPECT_EQ(report_of_pe[pe], "fd=none sockets=0 listening=no") << "PE " << pe;
}

TEST(Environment, JobOfSuccessfulPesExitsZero) {
  LauncherResult result = runLauncher({"-n", "4", "--", "/bin/true"});
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(result.out, "");
}

TEST(Environment, ProgramIsFoundOnPathAndGetsItsArguments) {
  LauncherResult result = runLauncher({"-n", "2", "--", "echo", "hello", "world"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "hello world\nhello world\n");
}

}  // namespace
}  // namespace tdist::launcher::test
