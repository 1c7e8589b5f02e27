// Ending a job early: a failing PE, the job deadline, a stop request; and what is cleaned up after.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <unistd.h>

#include "launcher_harness.h"

namespace tdist::launcher::test {
namespace {

using ::testing::HasSubstr;

// Failures must end the job promptly: far less than the PEs' sleep 600, with room for a loaded
// CI machine.
constexpr Seconds kPromptly{10};

TEST(Failure, NonZeroExitEndsTheJobWithThatStatus) {
  LauncherResult result =
      runLauncher(shellJob(3, R"(if [ "$TDIST_PE" = 1 ]; then exit 3; fi; sleep 600)"));
  EXPECT_FALSE(result.hung);
  EXPECT_EQ(result.exit_status, 3);
  EXPECT_LT(result.elapsed, kPromptly);
  EXPECT_THAT(result.err, HasSubstr("tdist-run: PE 1 (pid "));
  EXPECT_THAT(result.err, HasSubstr(") exited with status 3; ending the job"));
}

TEST(Failure, SignalIsNamed) {
  LauncherResult result = runLauncher(shellJob(
      2, R"(if [ "$TDIST_PE" = 1 ]; then ulimit -c 0; kill -SEGV $$; fi; sleep 600)"));
  EXPECT_FALSE(result.hung);
  EXPECT_EQ(result.exit_status, 128 + SIGSEGV);
  EXPECT_LT(result.elapsed, kPromptly);
  EXPECT_THAT(result.err, HasSubstr("tdist-run: PE 1 (pid "));
  EXPECT_THAT(result.err, HasSubstr("was killed by signal 11 (Segmentation fault)"));
}

TEST(Failure, WaitDeadlineStatusIsDescribed) {
  LauncherResult result =
      runLauncher(shellJob(2, R"(if [ "$TDIST_PE" = 0 ]; then exit 97; fi; sleep 600)"));
  EXPECT_EQ(result.exit_status, 97);
  EXPECT_LT(result.elapsed, kPromptly);
  EXPECT_THAT(result.err, HasSubstr("PE 0 (pid "));
  EXPECT_THAT(result.err,
              HasSubstr("exited with status 97 (a wait passed its deadline); ending the job"));
}

TEST(Failure, FatalRuntimeErrorStatusIsDescribed) {
  LauncherResult result =
      runLauncher(shellJob(2, R"(if [ "$TDIST_PE" = 1 ]; then exit 98; fi; sleep 600)"));
  EXPECT_EQ(result.exit_status, 98);
  EXPECT_THAT(result.err, HasSubstr("exited with status 98 (fatal runtime error)"));
}

TEST(Failure, OnlyTheFirstFailureIsReported) {
  LauncherResult result = runLauncher(shellJob(4, R"(
    if [ "$TDIST_PE" = 2 ]; then exit 5; fi
    sleep 600)"));
  EXPECT_EQ(result.exit_status, 5);
  // The others die of the launcher's SIGTERM; that is the ending, not news.
  EXPECT_EQ(result.err.find("signal"), std::string::npos) << result.err;
}

TEST(Deadline, HangingJobEndsWith124) {
  LauncherResult result = runLauncher(shellJob(2, "sleep 600", {"--timeout", "1"}));
  EXPECT_FALSE(result.hung);
  EXPECT_EQ(result.exit_status, 124);
  EXPECT_GE(result.elapsed, Seconds(1));
  EXPECT_LT(result.elapsed, kPromptly);
  EXPECT_THAT(result.err, HasSubstr("tdist-run: job deadline of 1 s passed with PEs 0, 1 still "
                                    "running; ending the job"));
}

TEST(Deadline, NamesOnlyThePesStillRunning) {
  LauncherResult result = runLauncher(
      shellJob(3, R"(if [ "$TDIST_PE" = 1 ]; then exit 0; fi; sleep 600)", {"--timeout", "1.5"}));
  EXPECT_EQ(result.exit_status, 124);
  EXPECT_THAT(result.err, HasSubstr("job deadline of 1.5 s passed with PEs 0, 2 still running"));
}

TEST(Deadline, ZeroMeansNone) {
  LauncherResult result = runLauncher(shellJob(2, "exit 0", {"--timeout", "0"}));
  EXPECT_EQ(result.exit_status, 0) << result.err;
}

// A PE that ignores SIGTERM is killed after the grace period. PE 1 fails only once PE 0 has
// armed its trap (it polls for PE 0's marker), so that the escalation is what is tested.
TEST(Ending, PeIgnoringSigtermIsKilledAfterTheGracePeriod) {
  LauncherResult result = runLauncher(shellJob(2, R"(
    marker=${TMPDIR:-/tmp}/tdist-$TDIST_JOB_ID-trap-armed
    if [ "$TDIST_PE" = 0 ]; then trap "" TERM; touch "$marker"; sleep 600; fi
    while [ ! -e "$marker" ]; do sleep 0.05; done
    rm -f "$marker"
    exit 3)"));
  EXPECT_FALSE(result.hung);
  EXPECT_EQ(result.exit_status, 3);
  EXPECT_GE(result.elapsed, Seconds(2));
  EXPECT_LT(result.elapsed, kPromptly);
  EXPECT_THAT(result.err, HasSubstr("PE 0 still running 2 s after SIGTERM; sending SIGKILL"));
}

class StopRequestTest : public ::testing::TestWithParam<int> {};

TEST_P(StopRequestTest, IsForwardedToThePesAndEndsTheJob) {
  const int signo = GetParam();
  LauncherProcess launcher(shellJob(3, "echo ready; sleep 600"));
  ASSERT_TRUE(launcher.waitForStdout([](const std::string &out) {
    return splitLines(out).size() == 3;
  }));
  launcher.sendSignal(signo);
  LauncherResult result = launcher.finish();
  EXPECT_FALSE(result.hung);
  EXPECT_EQ(result.exit_status, 128 + signo);
  EXPECT_LT(result.elapsed, kPromptly);
  EXPECT_THAT(result.err, HasSubstr("tdist-run: got signal " + std::to_string(signo) + " ("));
  EXPECT_THAT(result.err, HasSubstr("); forwarding it to the PEs and ending the job"));
}

INSTANTIATE_TEST_SUITE_P(Signals, StopRequestTest, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::string("SIG") + ::sigabbrev_np(info.param);
                         });


}  // namespace
}  // namespace tdist::launcher::test
