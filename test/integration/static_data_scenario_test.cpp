// Jobs around the program's static data: a wait on a static variable that nobody signals ends
// with a diagnostic that names the variable's place in the program; where the static data is not
// symmetric (a PE opted out, or the PEs run different programs) a put to it is an error that
// says why, and the heap works as before.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "test/integration/backend_runs.h"
#include "test/launcher/launcher_harness.h"

namespace tdist {
namespace {

using namespace launcher::test;
using namespace std::chrono_literals;

// The static data is symmetric on the cpu backend; the cuda backend's errors are the
// conformance suite's (pe_static_data_test.cpp).
class StaticDataScenario : public testing::OnTheSuiteBackend {
 protected:
  void SetUp() override {
    testing::OnTheSuiteBackend::SetUp();
    const char *backend = std::getenv("TDIST_BACKEND");
    if (backend != nullptr && std::string(backend) != "cpu") GTEST_SKIP() << "static data is shared on cpu only";
  }
};

// The text after `prefix` in text, up to the end of its line.
std::string after(const std::string &text, const std::string &prefix) {
  const std::size_t at = text.find(prefix);
  if (at == std::string::npos) return "";
  const std::size_t start = at + prefix.size();
  return text.substr(start, text.find('\n', start) - start);
}

TEST_F(StaticDataScenario, UnsignalledWaitOnAStaticVariableEndsWithADiagnostic) {
  LauncherResult r = runLauncher(scenarioJob(TDIST_SCENARIO_PATH, 2, "static-wait-forever", {"--wait-timeout", "1"}));
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_status, 97) << r.err;
  EXPECT_LT(r.elapsed, 15s);
  const std::string offset = after(r.err, "scenario: the signal is at ");
  ASSERT_FALSE(offset.empty()) << r.err;
  EXPECT_TRUE(contains(r.err, "PE 0: aclshmem_signal_wait_until: wait passed its deadline of 1.000 s: value at "
                              "static data at " + offset + " of PE 0's program, waiting for EQ 1, observed 0"))
      << r.err;
}

TEST_F(StaticDataScenario, APutToStaticDataReachesThePeer) {
  LauncherResult r = runLauncher(scenarioJob(TDIST_SCENARIO_PATH, 3, "static-put"));
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "scenario: the put succeeded")) << r.err;
  EXPECT_TRUE(contains(r.err, "scenario: the heap word is 5, the static word 7")) << r.err;
}

// The job of the static-put scenario ended well, PE 0's put failed saying `because`, and the
// heap worked as before.
void expectNotSymmetric(const LauncherResult &r, const std::string &because) {
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "scenario: the put failed: tdist::shmem::p: dest 0x")) << r.err;
  EXPECT_TRUE(contains(r.err, "(+4 bytes) is in the program's static data, which is not symmetric in this job: " +
                                  because))
      << r.err;
  EXPECT_TRUE(contains(r.err, "scenario: the heap word is 5, the static word 0")) << r.err;
}

TEST_F(StaticDataScenario, OptingOutMakesAPutToStaticDataAClearError) {
  expectNotSymmetric(runLauncherWithEnvironment({"TDIST_STATIC_DATA=0"}, scenarioJob(TDIST_SCENARIO_PATH, 2, "static-put")),
                     "TDIST_STATIC_DATA=0 on PE 0 (invalid parameter)");
}

TEST_F(StaticDataScenario, OnePeOptingOutTurnsItOffForTheJob) {
  expectNotSymmetric(runLauncher(scenarioJob(TDIST_SCENARIO_PATH, 3, "static-put-one-opted-out")),
                     "TDIST_STATIC_DATA=0 on PE 1 (invalid parameter)");
}

TEST_F(StaticDataScenario, AnInvalidOptOutValueFailsInit) {
  LauncherResult r = runLauncherWithEnvironment({"TDIST_STATIC_DATA=yes"}, scenarioJob(TDIST_SCENARIO_PATH, 1, "static-put"));
  EXPECT_NE(r.exit_status, 0);
  EXPECT_TRUE(contains(r.err, "environment: TDIST_STATIC_DATA: ")) << r.err;
}

TEST_F(StaticDataScenario, DifferentProgramsHaveNoSymmetricStaticData) {
  const std::string script = std::string("if [ \"$TDIST_PE\" = 0 ]; then exec '") + TDIST_SCENARIO_PATH +
                             "' static-put; else exec '" + TDIST_SCENARIO_OTHER_PATH + "' static-put; fi";
  const LauncherResult r = runLauncher(shellJob(2, script));
  expectNotSymmetric(r, "PE 1 runs another program than PE 0 (");
  EXPECT_TRUE(contains(r.err, ", another build)")) << r.err;
}

}  // namespace
}  // namespace tdist
