// Jobs that end badly end quickly, with a non-zero status and a message naming the PE and the
// cause: a wait that can never be satisfied, a crash, a refused peer, global_exit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "test/integration/backend_runs.h"
#include "test/launcher/launcher_harness.h"

namespace tdist {
namespace {

using launcher::test::contains;
using launcher::test::LauncherResult;
using launcher::test::runLauncher;
using launcher::test::scenarioJob;
using namespace std::chrono_literals;

LauncherResult runScenario(int n_pes, const std::string &name, std::vector<std::string> options = {}) {
  return runLauncher(scenarioJob(TDIST_SCENARIO_PATH, n_pes, name, options));
}

// Skipped where the suite's backend cannot run (backend_runs.h).
class Scenario : public testing::OnTheSuiteBackend {};

TEST_F(Scenario, UnsatisfiableWaitEndsWithADiagnostic) {
  for (int n : {1, 2, 4}) {
    LauncherResult r = runScenario(n, "wait-forever", {"--wait-timeout", "1"});
    EXPECT_FALSE(r.hung);
    EXPECT_NE(r.exit_status, 0);
    EXPECT_LT(r.elapsed, 15s) << n;
    // What was waited for: rank, symmetric offset, predicate, expected and observed value.
    EXPECT_TRUE(contains(r.err, "PE 0: aclshmem_signal_wait_until: wait passed its deadline of 1.000 s")) << r.err;
    EXPECT_TRUE(contains(r.err, "symmetric offset 0x")) << r.err;
    EXPECT_TRUE(contains(r.err, "waiting for EQ 1, observed 0")) << r.err;
    EXPECT_TRUE(contains(r.err, "PE 0")) << r.err;
    EXPECT_TRUE(contains(r.err, "deadline")) << r.err;
  }
}

TEST_F(Scenario, DlWaitNamesTheMissingSlot) {
  LauncherResult r = runScenario(2, "dl-wait-missing-notify", {"--wait-timeout", "0.5"});
  EXPECT_NE(r.exit_status, 0);
  EXPECT_TRUE(contains(r.err, "dl.wait: wait passed its deadline")) << r.err;
  EXPECT_TRUE(contains(r.err, "(slot 2 of 4)")) << r.err;
  EXPECT_TRUE(contains(r.err, "waiting for EQ 5, observed 0")) << r.err;
}

TEST_F(Scenario, DlWaitHasOneDeadlineForAllItsSlots) {
  LauncherResult r = runScenario(2, "dl-wait-one-deadline", {"--wait-timeout", "1"});
  EXPECT_EQ(r.exit_status, 97) << r.err;
  EXPECT_TRUE(contains(r.err, "PE 0: dl.wait: wait passed its deadline of 1.000 s")) << r.err;
  EXPECT_TRUE(contains(r.err, " of 4)")) << r.err;
}

TEST_F(Scenario, CrashedPeEndsTheJob) {
  for (int n : {2, 3, 4}) {
    LauncherResult r = runScenario(n, "crash");
    EXPECT_FALSE(r.hung);
    EXPECT_NE(r.exit_status, 0);
    EXPECT_LT(r.elapsed, 10s);
    EXPECT_TRUE(contains(r.err, "PE " + std::to_string(n - 1))) << r.err;
    EXPECT_TRUE(contains(r.err, "signal 11")) << r.err;
  }
}

// Across nodes (tdist-run --nodes, the peers through UCX): a wait nobody satisfies still ends at
// its deadline, and a PE that dies while a peer puts to it ends the job, naming it.
TEST_F(Scenario, FailuresAcrossNodesEndTheJob) {
#ifdef TDIST_TEST_WITH_UCX
  const char *backend = std::getenv("TDIST_BACKEND");
  if (backend != nullptr && std::string(backend) == "cuda") GTEST_SKIP() << "the cuda backend runs on one node";
  LauncherResult wait = runScenario(4, "wait-forever", {"--nodes", "2", "--wait-timeout", "1"});
  EXPECT_FALSE(wait.hung);
  EXPECT_EQ(wait.exit_status, 97) << wait.err;
  EXPECT_LT(wait.elapsed, 15s);
  EXPECT_TRUE(contains(wait.err, "aclshmem_signal_wait_until: wait passed its deadline of 1.000 s")) << wait.err;
  LauncherResult crash = runScenario(2, "crash-during-puts", {"--nodes", "2"});
  EXPECT_FALSE(crash.hung);
  EXPECT_NE(crash.exit_status, 0);
  EXPECT_LT(crash.elapsed, 15s);
  EXPECT_TRUE(contains(crash.err, "PE 1")) << crash.err;
  EXPECT_TRUE(contains(crash.err, "signal 9")) << crash.err;
#else
  GTEST_SKIP() << "built without UCX";
#endif
}

TEST_F(Scenario, PeerWithTheWrongSecretIsRefused) {
  LauncherResult r = runScenario(2, "wrong-secret", {"--timeout", "30"});
  EXPECT_NE(r.exit_status, 0);
  EXPECT_LT(r.elapsed, 20s);
  EXPECT_TRUE(contains(r.err, "wrong job secret")) << r.err;
  EXPECT_TRUE(contains(r.err, "PE 1")) << r.err;
}

TEST_F(Scenario, GlobalExitEndsEveryPeWithItsStatus) {
  LauncherResult r = runScenario(3, "global-exit");
  EXPECT_EQ(r.exit_status, 7) << r.err;
  EXPECT_LT(r.elapsed, 10s);
}

}  // namespace
}  // namespace tdist
