// tdist-run's hang check with real PEs: a job in which no PE can make progress ends within about
// the stall time (default 2 s), long before its wait deadline, with every waiting PE named; a job
// in which a PE computes, or that is slow but moves, runs to its end.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/integration/backend_runs.h"
#include "test/launcher/launcher_harness.h"

namespace tdist {
namespace {

using launcher::test::contains;
using launcher::test::LauncherResult;
using launcher::test::runLauncher;
using launcher::test::runLauncherWithEnvironment;
using launcher::test::scenarioJob;
using namespace std::chrono_literals;

// A wait deadline of minutes: only the hang check can end these jobs in seconds.
const std::vector<std::string> kLongDeadline = {"--wait-timeout", "5m"};

std::vector<std::string> hangJob(int n_pes, const std::string &name, std::vector<std::string> options = {}) {
  options.insert(options.end(), kLongDeadline.begin(), kLongDeadline.end());
  return scenarioJob(TDIST_HANG_SCENARIO_PATH, n_pes, name, options);
}

class HangCheck : public testing::OnTheSuiteBackend {};

TEST_F(HangCheck, TwoPeDeadlockIsDiagnosedWithEveryWaitingPe) {
  LauncherResult r = runLauncher(hangJob(2, "deadlock"));
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_status, 97) << r.err;
  EXPECT_LT(r.elapsed, 5s) << r.err;
  EXPECT_TRUE(contains(r.err, "tdist-run: no PE can make progress: every PE has waited 2.")) << r.err;
  for (int pe : {0, 1}) {
    const std::string line = "PE " + std::to_string(pe) + ": aclshmem_signal_wait_until: waiting for EQ 1 at "
                             "symmetric offset 0x";
    EXPECT_TRUE(contains(r.err, line)) << r.err;
    EXPECT_TRUE(contains(r.err, " of PE " + std::to_string(pe) + ", observed 0, for ")) << r.err;
  }
  EXPECT_TRUE(contains(r.err, "tdist-run: ending the job")) << r.err;
  // The job ended by the hang check, not by a wait's deadline.
  EXPECT_FALSE(contains(r.err, "passed its deadline")) << r.err;
}

TEST_F(HangCheck, MissingNotifyAtFourPesNamesTheSignalWaitAndTheBarriers) {
  LauncherResult r = runLauncher(hangJob(4, "missing-notify"));
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_status, 97) << r.err;
  EXPECT_LT(r.elapsed, 5s) << r.err;
  EXPECT_TRUE(contains(r.err, "no PE can make progress")) << r.err;
  EXPECT_TRUE(contains(r.err, "PE 0: aclshmem_signal_wait_until: waiting for GE 3 at symmetric offset 0x")) << r.err;
  EXPECT_TRUE(contains(r.err, ", observed 2, for ")) << r.err;
  // The others wait in the barrier for PE 0, the one that does not arrive.
  for (int pe : {1, 2, 3})
    EXPECT_TRUE(contains(r.err, "PE " + std::to_string(pe) + ": aclshmem_barrier_all: waiting for ")) << r.err;
  EXPECT_TRUE(contains(r.err, "of PE 0's host channel")) << r.err;
}

TEST_F(HangCheck, PesInFinalizeCountAsWaiting) {
  LauncherResult r = runLauncher(hangJob(3, "missing-notify-before-finalize"));
  EXPECT_EQ(r.exit_status, 97) << r.err;
  EXPECT_LT(r.elapsed, 5s) << r.err;
  EXPECT_TRUE(contains(r.err, "PE 0: aclshmem_signal_wait_until: waiting for EQ 1 at symmetric offset 0x")) << r.err;
  for (int pe : {1, 2})
    EXPECT_TRUE(contains(r.err, "PE " + std::to_string(pe) + ": finalize: waiting for every PE to reach finalize")) << r.err;
}

TEST_F(HangCheck, StallTimeComesFromTheCommandLineOrTheEnvironment) {
  LauncherResult flag = runLauncher(hangJob(2, "deadlock", {"--hang-check", "500ms"}));
  EXPECT_EQ(flag.exit_status, 97) << flag.err;
  EXPECT_TRUE(contains(flag.err, "every PE has waited 0.")) << flag.err;
  EXPECT_LT(flag.elapsed, 3s) << flag.err;

  LauncherResult variable = runLauncherWithEnvironment({"TDIST_HANG_CHECK=0.5"}, hangJob(2, "deadlock"));
  EXPECT_EQ(variable.exit_status, 97) << variable.err;
  EXPECT_TRUE(contains(variable.err, "every PE has waited 0.")) << variable.err;

  // The flag wins over the variable.
  LauncherResult both = runLauncherWithEnvironment({"TDIST_HANG_CHECK=30"}, hangJob(2, "deadlock", {"--hang-check", "0.5"}));
  EXPECT_EQ(both.exit_status, 97) << both.err;
  EXPECT_LT(both.elapsed, 3s) << both.err;
}

TEST_F(HangCheck, ZeroTurnsItOffAndTheWaitDeadlineEndsTheJob) {
  LauncherResult r = runLauncher(scenarioJob(TDIST_HANG_SCENARIO_PATH, 2, "deadlock",
                                             {"--hang-check", "0", "--wait-timeout", "3"}));
  EXPECT_EQ(r.exit_status, 97) << r.err;
  EXPECT_FALSE(contains(r.err, "no PE can make progress")) << r.err;
  EXPECT_TRUE(contains(r.err, "wait passed its deadline of 3.000 s")) << r.err;
}

TEST_F(HangCheck, PeComputingLongerThanTheStallTimeIsNotFlagged) {
  LauncherResult r = runLauncher(hangJob(3, "compute-while-others-wait"));
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "no PE can make progress")) << r.err;
}

TEST_F(HangCheck, SlowButLiveJobIsNotFlagged) {
  LauncherResult r = runLauncher(hangJob(3, "slow-but-live", {"--hang-check", "1"}));
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "no PE can make progress")) << r.err;
}

}  // namespace
}  // namespace tdist
