// A failed assertion in the multi-PE suite ends the job at once, naming the PE and the test,
// instead of leaving the other PEs waiting until their deadline: the deliberately failing tests
// of pe/pe_deliberate_failure_test.cpp, run alone under tdist-run as the suite runs.
#include <gtest/gtest.h>

#include <string>

#include "test/integration/backend_runs.h"
#include "test/launcher/launcher_harness.h"

namespace tdist {
namespace {

using launcher::test::contains;
using launcher::test::LauncherResult;
using launcher::test::runLauncher;
using namespace std::chrono_literals;

// The suite's --wait-timeout: a job that ended only when the waits expired took at least this.
constexpr auto kWaitTimeout = 30s;

LauncherResult runFailingTest(int n_pes, const std::string &test) {
  return runLauncher({"-n", std::to_string(n_pes), "--heap", "16M", "--wait-timeout", "30", "--",
                      TDIST_PE_TESTS_PATH, "--gtest_also_run_disabled_tests",
                      "--gtest_filter=DeliberateFailure.DISABLED_" + test});
}

void expectEndedAtOnce(const LauncherResult &r, int failing_pe, const std::string &test) {
  const std::string pe = "PE " + std::to_string(failing_pe);
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_status, 1) << r.err;
  EXPECT_LT(r.elapsed, kWaitTimeout / 3) << r.err;
  // The PE names itself and the test; the launcher names the PE that ended the job.
  EXPECT_TRUE(contains(r.err, pe + ": DeliberateFailure.DISABLED_" + test + " failed; ending the job")) << r.err;
  EXPECT_TRUE(contains(r.err, "tdist-run: " + pe + " (pid ")) << r.err;
  EXPECT_TRUE(contains(r.err, ") exited with status 1; ending the job")) << r.err;
  EXPECT_TRUE(contains(r.err + r.out, "fails on purpose")) << r.out << r.err;
  EXPECT_FALSE(contains(r.err, "passed its deadline")) << r.err;
}

// Skipped where the suite's backend cannot run (backend_runs.h).
class PeSuiteFailure : public testing::OnTheSuiteBackend {};

TEST_F(PeSuiteFailure, FatalFailureInABarrierLoopEndsTheJob) {
  for (int n : {2, 4}) {
    SCOPED_TRACE(std::to_string(n) + " PEs");
    expectEndedAtOnce(runFailingTest(n, "FatalInABarrierLoop"), n - 1, "FatalInABarrierLoop");
  }
}

TEST_F(PeSuiteFailure, NonFatalFailureInASignalRingEndsTheJob) {
  for (int n : {2, 4}) {
    SCOPED_TRACE(std::to_string(n) + " PEs");
    expectEndedAtOnce(runFailingTest(n, "NonFatalInASignalRing"), 1, "NonFatalInASignalRing");
  }
}

TEST_F(PeSuiteFailure, FailureInAProgramOfALaunchEndsTheJob) {
  for (int n : {2, 4}) {
    SCOPED_TRACE(std::to_string(n) + " PEs");
    expectEndedAtOnce(runFailingTest(n, "InAProgramOfALaunch"), n - 1, "InAProgramOfALaunch");
  }
}

// On one PE nobody waits for the failing one: GoogleTest reports every failure as usual.
TEST_F(PeSuiteFailure, OnOnePeTheTestRunsToItsEnd) {
  LauncherResult r = runFailingTest(1, "FatalInABarrierLoop");
  EXPECT_EQ(r.exit_status, 1) << r.err;
  EXPECT_FALSE(contains(r.err, "failed; ending the job")) << r.err;
  EXPECT_TRUE(contains(r.out, "[  FAILED  ] DeliberateFailure.DISABLED_FatalInABarrierLoop")) << r.out;
}

}  // namespace
}  // namespace tdist
