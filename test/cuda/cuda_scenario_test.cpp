// Jobs on the cuda backend that end badly end quickly, with the status and the message that
// name the PE and the cause: a device wait or a stream wait that can never be satisfied, a
// device barrier that a PE never enters, a PE that dies while its peers spin in kernels.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "test/launcher/launcher_harness.h"

namespace tdist {
namespace {

using launcher::test::contains;
using launcher::test::LauncherResult;
using launcher::test::runLauncher;
using launcher::test::runLauncherWithEnvironment;
using launcher::test::scenarioJob;
using namespace std::chrono_literals;

constexpr int kExitWaitTimeout = 97;  // tdist/exit_codes.h

LauncherResult runScenario(int n_pes, const std::string &name, std::vector<std::string> options) {
  return runLauncher(scenarioJob(TDIST_CUDA_SCENARIO_PATH, n_pes, name, options));
}

bool matches(const std::string &text, const std::string &pattern) { return std::regex_search(text, std::regex(pattern)); }

TEST(CudaScenario, UnsatisfiableDeviceWaitEndsWithTheDiagnostic) {
  for (int n : {1, 2}) {
    LauncherResult r = runScenario(n, "device-wait-forever", {"--wait-timeout", "2", "--hang-check", "0"});
    EXPECT_FALSE(r.hung) << n;
    EXPECT_EQ(r.exit_status, kExitWaitTimeout) << n << "\n" << r.err;
    EXPECT_LT(r.elapsed, 20s) << n;
    // The cpu wait's words, and where on the GPU the wait ran.
    EXPECT_TRUE(matches(r.err, "PE [0-9]+: tdist::device::wait.*wait passed its deadline.*"
                               "waiting for EQ .*observed .*block \\("))
        << r.err;
    EXPECT_TRUE(contains(r.err, "PE 0: tdist::device::wait: wait passed its deadline of 2.000 s")) << r.err;
    EXPECT_TRUE(contains(r.err, "waiting for EQ 1, observed 0")) << r.err;
    EXPECT_TRUE(contains(r.err, "block (0,0,0) thread (0,0,0)")) << r.err;
    EXPECT_FALSE(contains(r.err, "the watchdog did not end the job")) << r.err;
  }
}

// 2,048 threads expire together; the record of the one that claims it is printed every time.
TEST(CudaScenario, UnsatisfiableWaitOfEveryThreadEndsWithOneDiagnostic) {
  for (int round = 0; round < 3; ++round) {
    LauncherResult r = runScenario(1, "device-wait-forever-every-thread", {"--wait-timeout", "1", "--hang-check", "0"});
    EXPECT_FALSE(r.hung) << round;
    EXPECT_EQ(r.exit_status, kExitWaitTimeout) << round << "\n" << r.err;
    EXPECT_LT(r.elapsed, 20s) << round;
    EXPECT_TRUE(contains(r.err, "PE 0: tdist::device::wait: wait passed its deadline of 1.000 s")) << round << "\n"
                                                                                                    << r.err;
    EXPECT_TRUE(contains(r.err, "waiting for EQ 1, observed 0")) << r.err;
  }
}

TEST(CudaScenario, UnsatisfiableStreamWaitEndsWithTheDiagnostic) {
  LauncherResult r = runScenario(2, "stream-wait-forever", {"--wait-timeout", "2", "--hang-check", "0"});
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_status, kExitWaitTimeout) << r.err;
  EXPECT_LT(r.elapsed, 20s);
  EXPECT_TRUE(matches(r.err, "PE 0: [^\n]*signal_wait_until_on_stream[^\n]*wait passed its deadline of 2.000 s"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "symmetric offset 0x")) << r.err;
  EXPECT_TRUE(contains(r.err, "waiting for EQ 1, observed 0")) << r.err;
  EXPECT_FALSE(contains(r.err, "the watchdog did not end the job")) << r.err;
}

TEST(CudaScenario, DeviceBarrierThatAPeNeverEntersEndsWithTheDiagnostic) {
  LauncherResult r = runScenario(3, "device-barrier-missing-pe", {"--wait-timeout", "2", "--hang-check", "0"});
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_status, kExitWaitTimeout) << r.err;
  EXPECT_LT(r.elapsed, 20s);
  // A waiter names the slot of the missing PE 2: its barrier word, on its heap.
  EXPECT_TRUE(matches(r.err, "PE [01]: [^\n]*barrier_all[^\n]*wait passed its deadline[^\n]*of PE 2")) << r.err;
}

// Device waits publish through the wait note: a deadlock of kernels is ended by the hang check
// within seconds, each PE's line naming its device wait, long before the wait deadline.
TEST(CudaScenario, DeadlockOfKernelsIsDiagnosedByTheHangCheck) {
  for (int n : {2, 4}) {
    LauncherResult r = runScenario(n, "device-deadlock", {"--wait-timeout", "5m"});
    EXPECT_FALSE(r.hung) << n;
    EXPECT_EQ(r.exit_status, kExitWaitTimeout) << n << "\n" << r.err;
    EXPECT_LT(r.elapsed, 15s) << n;
    EXPECT_TRUE(contains(r.err, "tdist-run: no PE can make progress")) << r.err;
    for (int pe = 0; pe < n; ++pe) {
      EXPECT_TRUE(matches(r.err, "PE " + std::to_string(pe) +
                                     ": tdist::device::signal_wait_until: waiting for EQ 1 at symmetric offset "
                                     "0x[0-9a-f]+ of PE " + std::to_string(pe) +
                                     ", block \\(0,0,0\\) thread \\(0,0,0\\), observed 0, for "))
          << r.err;
    }
    EXPECT_FALSE(contains(r.err, "passed its deadline")) << r.err;
  }
}

TEST(CudaScenario, CrashedPeEndsPeersSpinningInKernels) {
  for (int n : {2, 3}) {
    // The waits' own deadline is far beyond the bound below: the crash must end the job.
    LauncherResult r = runScenario(n, "crash-while-peers-spin", {"--wait-timeout", "120", "--timeout", "50"});
    EXPECT_FALSE(r.hung) << n;
    EXPECT_NE(r.exit_status, 0) << n;
    EXPECT_NE(r.exit_status, kExitWaitTimeout) << n << "\n" << r.err;
    EXPECT_LT(r.elapsed, 20s) << n;
    EXPECT_TRUE(contains(r.err, "PE " + std::to_string(n - 1))) << r.err;
    EXPECT_TRUE(contains(r.err, "signal 6")) << r.err;
  }
}

// A Context's GEMM and the program's own stream across init/finalize rounds (one PE: the device
// memory read is the process's own view of the GPU's).
TEST(CudaScenario, KernelsAcrossInitFinalizeKeepNothing) {
  LauncherResult r = runScenario(1, "kernels-across-init-finalize", {"--wait-timeout", "20"});
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_status, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "round 4 ok")) << r.out << r.err;
}

TEST(CudaScenario, InitFinalizeInitMapsAFreshHeapEachRound) {
  for (int n : {1, 2, 4}) {
    LauncherResult r = runScenario(n, "init-finalize-init", {"--wait-timeout", "20"});
    EXPECT_FALSE(r.hung) << n;
    EXPECT_EQ(r.exit_status, 0) << n << "\n" << r.err;
    for (int pe = 0; pe < n; ++pe) {
      EXPECT_TRUE(contains(r.out, "PE " + std::to_string(pe) + ": round 3 ok")) << r.out << r.err;
    }
  }
}

// A host store into the heap, which is GPU memory, ends the PE with a message that says so and
// names the segment's PE and the offset, not with a bare segmentation fault.
TEST(CudaScenario, HostStoreIntoTheHeapNamesTheHeap) {
  for (int n : {1, 2}) {
    LauncherResult r = runScenario(n, "host-stores-heap", {"--wait-timeout", "20"});
    EXPECT_FALSE(r.hung) << n;
    EXPECT_NE(r.exit_status, 0) << n << "\n" << r.err;
    EXPECT_FALSE(contains(r.err, "did not fault")) << r.err;
    EXPECT_TRUE(contains(r.err, "signal 11")) << r.err;
    EXPECT_TRUE(matches(r.err, "PE [0-9]+: error: the host loaded or stored 0x[0-9a-f]+ in PE " +
                                   std::string(n == 1 ? "0" : "[01]") +
                                   "'s symmetric heap \\(offset 0x[0-9a-f]+\\), which the host cannot reach on the "
                                   "cuda backend"))
        << r.err;
  }
}

// A TDIST_CUDA_SYNC_SCOPE that is neither "auto" nor "system" fails init on every PE with the
// variable's name and value, and the job ends (no PE left waiting for the others).
TEST(CudaScenario, UnknownSyncScopeIsRefusedAtInit) {
  LauncherResult r = runLauncherWithEnvironment(
      {"TDIST_CUDA_SYNC_SCOPE=gpu-please"}, scenarioJob(TDIST_CUDA_SCENARIO_PATH, 2, "init-finalize-init",
                                                        {"--wait-timeout", "20"}));
  EXPECT_FALSE(r.hung);
  EXPECT_NE(r.exit_status, 0) << r.err;
  EXPECT_LT(r.elapsed, 30s);
  EXPECT_TRUE(contains(r.err, "TDIST_CUDA_SYNC_SCOPE must be \"auto\" or \"system\", not \"gpu-please\""))
      << r.err;
}

}  // namespace
}  // namespace tdist
