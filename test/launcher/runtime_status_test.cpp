// The runtime's side of the status channel, end to end: a PE that returns from main after init
// without finalize ends the job at once, naming the PE, long before its peers' wait deadline;
// PEs that finalize, or leave by global_exit(0), end the job cleanly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "launcher_harness.h"

namespace tdist::launcher::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The peers' wait deadline: without the channel the job would end only there, with status 97.
const std::vector<std::string> kWaitDeadline = {"--wait-timeout", "30"};
constexpr Seconds kPromptly{10};

LauncherResult runScenario(int n_pes, const std::string &name) {
  return runLauncher(scenarioJob(TDIST_STATUS_SCENARIO_PATH, n_pes, name, kWaitDeadline));
}

TEST(RuntimeStatus, PeReturningWithoutFinalizeEndsTheJobAtOnce) {
  for (int n_pes : {2, 4}) {
    LauncherResult result = runScenario(n_pes, "return-without-finalize");
    EXPECT_FALSE(result.hung);
    EXPECT_EQ(result.exit_status, 99) << result.err;
    EXPECT_LT(result.elapsed, kPromptly) << n_pes << " PEs";
    EXPECT_THAT(result.err, HasSubstr("tdist-run: PE 1 (pid "));
    EXPECT_THAT(result.err,
                HasSubstr(") exited with status 0 without calling finalize; ending the job"));
  }
}

TEST(RuntimeStatus, PesThatFinalizeEndTheJobCleanly) {
  for (int n_pes : {1, 3}) {
    LauncherResult result = runScenario(n_pes, "finalize");
    EXPECT_EQ(result.exit_status, 0) << result.err;
    EXPECT_THAT(result.err, Not(HasSubstr("finalize")));
  }
}

TEST(RuntimeStatus, InitAfterFinalizeIsFollowedByTheLastFinalize) {
  LauncherResult result = runScenario(2, "init-twice");
  EXPECT_EQ(result.exit_status, 0) << result.err;
}

TEST(RuntimeStatus, GlobalExitZeroEndsTheJobCleanly) {
  LauncherResult result = runScenario(3, "global-exit-zero");
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_LT(result.elapsed, kPromptly);
}

// What the PE starts after init does not inherit the channel: only the PE speaks for itself.
TEST(RuntimeStatus, ProgramsThePeStartsDoNotInheritTheChannel) {
  LauncherResult result = runScenario(1, "start-a-program");
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "status channel closed\n");
}

// A PE past a wait's deadline tells the launcher its status before it exits.
TEST(RuntimeStatus, APePastItsDeadlineSaysSoBeforeItExits) {
  LauncherResult result = runLauncher(scenarioJob(TDIST_STATUS_SCENARIO_PATH, 1, "child-says-its-ending",
                                                  {"--wait-timeout", "1"}));
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "child said IE<97> and exited with 97\n") << result.err;
  EXPECT_THAT(result.err, HasSubstr("wait passed its deadline of 1.000 s"));
}

// Its peers failing of it before its own exit is seen do not take the blame: the job ends with
// the status and the PE that said so first.
TEST(RuntimeStatus, ThePeThatSaidItIsEndingIsTheCauseWhenAPeerFailsFirst) {
  LauncherResult result = runScenario(2, "ending-then-peer-fails");
  EXPECT_FALSE(result.hung);
  EXPECT_EQ(result.exit_status, 97) << result.err;
  EXPECT_LT(result.elapsed, kPromptly);
  EXPECT_THAT(result.err, HasSubstr("tdist-run: PE 0 (pid "));
  EXPECT_THAT(result.err, HasSubstr(") is exiting with status 97 (a wait passed its deadline); ending the job"));
  EXPECT_THAT(result.err, Not(HasSubstr("PE 1 (pid"))) << result.err;
}

// Whether process pid has ended: gone, or a zombie nobody has reaped yet.
bool ended(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const std::size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

// A tdist-run killed by SIGKILL cannot end its PEs; each PE's runtime sees the launcher's end of
// its status socket close and ends itself, instead of waiting for its peers until its deadline.
TEST(RuntimeStatus, PesEndWhenTheirLauncherIsKilled) {
  LauncherProcess launcher(scenarioJob(TDIST_STATUS_SCENARIO_PATH, 2, "wait-for-nothing", {"--wait-timeout", "50"}));
  const std::regex pid_line(R"(PE \d pid=(\d+))");
  std::vector<int> pids;
  ASSERT_TRUE(launcher.waitForStdout([&](const std::string &out) {
    pids.clear();
    for (auto it = std::sregex_iterator(out.begin(), out.end(), pid_line); it != std::sregex_iterator(); ++it)
      pids.push_back(std::stoi((*it)[1]));
    return pids.size() == 2;
  }));
  launcher.sendSignal(SIGKILL);
  // Before the launcher's pipes are read to their end: the PEs hold them while they live.
  const auto deadline = std::chrono::steady_clock::now() + kPromptly;
  for (int pid : pids) {
    while (!ended(pid) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(ended(pid)) << "PE pid " << pid << " still runs after its tdist-run was killed";
    if (!ended(pid)) ::kill(pid, SIGKILL);  // leave nothing behind
  }
  const LauncherResult result = launcher.finish();
  EXPECT_EQ(result.exit_status, 128 + SIGKILL);
}

// The UCX engine sizes TCP's segments and socket buffers for the heap's transfers, and leaves a
// user's own settings alone.
TEST(RuntimeStatus, UcxTcpSettingsAreTdistsUnlessTheUserSetsThem) {
#ifndef TDIST_TEST_WITH_UCX
  GTEST_SKIP() << "this build has no UCX";
#endif
  const std::vector<std::string> job = scenarioJob(TDIST_STATUS_SCENARIO_PATH, 2, "ucx-tcp-settings");
  LauncherResult ours = runLauncherWithEnvironment({"TDIST_TRANSPORT=ucx"}, job);
  ASSERT_EQ(ours.exit_status, 0) << ours.err;
  EXPECT_EQ(ours.out, "UCX_TCP_TX_SEG_SIZE=256k\nUCX_TCP_RX_SEG_SIZE=256k\nUCX_TCP_SNDBUF=4m\nUCX_TCP_RCVBUF=4m\n");
  LauncherResult theirs =
      runLauncherWithEnvironment({"TDIST_TRANSPORT=ucx", "UCX_TCP_TX_SEG_SIZE=16k", "UCX_TCP_RCVBUF=auto"}, job);
  ASSERT_EQ(theirs.exit_status, 0) << theirs.err;
  EXPECT_EQ(theirs.out, "UCX_TCP_TX_SEG_SIZE=16k\nUCX_TCP_RX_SEG_SIZE=256k\nUCX_TCP_SNDBUF=4m\nUCX_TCP_RCVBUF=auto\n");
}

}  // namespace
}  // namespace tdist::launcher::test
