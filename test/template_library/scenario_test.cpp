// Errors in calls of the template library end the job: a fatal error (status 98) with a message
// that names the PE, the symbol and the cause; a wait that cannot be satisfied, or a barrier that
// not every program of a launch reaches, end in the wait diagnostic (status 97), never a hang.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// Every PE makes the bad call; the job ends with 98 and the message of one of them.
void expectFatal(int n_pes, const std::string &scenario, const std::string &symbol, const std::string &cause) {
  LauncherResult r = runScenario(n_pes, scenario);
  EXPECT_FALSE(r.hung) << scenario;
  EXPECT_EQ(r.exit_status, 98) << scenario << "\n" << r.err;
  EXPECT_LT(r.elapsed, 15s) << scenario;
  EXPECT_TRUE(contains(r.err, ": " + symbol + ": ")) << r.err;
  EXPECT_TRUE(contains(r.err, "tdist: PE ")) << r.err;
  EXPECT_TRUE(contains(r.err, cause)) << r.err;
  EXPECT_TRUE(contains(r.err, "exited with status 98 (fatal runtime error)")) << r.err;
}

TEST(TemplateScenario, BadSignalOperationIsFatal) {
  expectFatal(2, "bad-sig-op", "_mlir_ciface_aclshmemx_signal_op", "signal operation 7 is neither SET (0) nor ADD (1)");
}

TEST(TemplateScenario, PutBeyondItsMemRefIsFatal) {
  expectFatal(2, "put-beyond-memref", "_mlir_ciface_aclshmem_float_put_m1_m1",
              "nelems 20 is outside [0, 16], the size of the dest memref");
}

TEST(TemplateScenario, StridedPutIsFatal) {
  expectFatal(1, "strided-put", "_mlir_ciface_aclshmem_int32_put_nbi_m1_m1", "the dest memref has stride 2");
}

TEST(TemplateScenario, NegativeByteCountIsFatal) {
  expectFatal(1, "negative-bytes", "_mlir_ciface_aclshmem_putmem", "bytes -1 is negative");
}

TEST(TemplateScenario, SymmAtOffTheHeapOrToABadPeIsFatal) {
  expectFatal(1, "ptr-off-heap", "_mlir_ciface_aclshmem_ptr_float_m1_m1", "is not on the symmetric heap");
  expectFatal(2, "ptr-bad-pe", "_mlir_ciface_aclshmem_ptr_float_m1_m1", "PE 2 is out of range 0..1");
}

// A PE reached through the network alone (every peer under TDIST_TRANSPORT=ucx) has no address:
// symm_at says so instead of handing out a pointer nothing backs.
TEST(TemplateScenario, SymmAtToAPeReachedThroughTheNetworkAloneIsFatal) {
#ifdef TDIST_TEST_WITH_UCX
  LauncherResult r = launcher::test::runLauncherWithEnvironment(
      {"TDIST_TRANSPORT=ucx"}, scenarioJob(TDIST_SCENARIO_PATH, 2, "ptr-network-peer"));
  EXPECT_EQ(r.exit_status, 98) << r.err;
  EXPECT_TRUE(contains(r.err, ": _mlir_ciface_aclshmem_ptr_float_m1_m1: PE ")) << r.err;
  EXPECT_TRUE(contains(r.err, "is reached through the network alone (TDIST_TRANSPORT=ucx, or another host)"))
      << r.err;
#else
  GTEST_SKIP() << "built without UCX";
#endif
}

TEST(TemplateScenario, ProgramIdOfABadAxisIsFatal) {
  expectFatal(1, "bad-axis", "_mlir_ciface_tdist_program_id", "axis 3 is not 0, 1 or 2");
}

// Checked whether or not the job records a trace: these jobs record none.
TEST(TemplateScenario, BadSpanArgumentsAreFatal) {
  expectFatal(1, "bad-span-category", "_mlir_ciface_tdist_trace_begin_span_m1",
              "category 5 is not a span category: 0 (user), 1 (call), 2 (compute), 3 (move) or 4 (wait)");
  expectFatal(2, "empty-span-name", "_mlir_ciface_tdist_trace_begin_span_m1",
              "a span needs a name; the name memref holds none");
  expectFatal(1, "strided-span-name", "_mlir_ciface_tdist_trace_begin_span_m1",
              "the name memref has stride 2; a span's name is contiguous bytes (stride 1)");
}

TEST(TemplateScenario, CallBeforeInitIsFatal) {
  LauncherResult r = runScenario(1, "before-init");
  EXPECT_EQ(r.exit_status, 98) << r.err;
  EXPECT_TRUE(contains(r.err, "tdist: _mlir_ciface_aclshmem_my_pe: aclshmem_my_pe: tdist is not initialized")) << r.err;
}

TEST(TemplateScenario, UnsatisfiableWaitEndsWithTheWaitDiagnostic) {
  LauncherResult r = runScenario(2, "wait-never-satisfied", {"--wait-timeout", "1"});
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_status, 97) << r.err;
  EXPECT_LT(r.elapsed, 15s);
  EXPECT_TRUE(contains(r.err, "_mlir_ciface_aclshmem_wait_int32_m1: wait passed its deadline of 1.000 s")) << r.err;
  EXPECT_TRUE(contains(r.err, "(slot 1 of 2), waiting for EQ 5, observed 0")) << r.err;
}

TEST(TemplateScenario, BarrierNotReachedByEveryProgramEndsWithTheWaitDiagnostic) {
  for (int n : {1, 2}) {
    LauncherResult r = runScenario(n, "barrier-some-programs", {"--wait-timeout", "1"});
    EXPECT_FALSE(r.hung);
    EXPECT_EQ(r.exit_status, 97) << r.err;
    EXPECT_LT(r.elapsed, 15s);
    EXPECT_TRUE(contains(r.err, "aclshmem_barrier_all: wait passed its deadline of 1.000 s")) << r.err;
    EXPECT_TRUE(contains(r.err, "waiting for programs of the launch arrived at the barrier EQ 4, observed 2")) << r.err;
  }
}

}  // namespace
}  // namespace tdist
