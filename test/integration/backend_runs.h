// test/integration/backend_runs.h - whether the backend that a suite runs on can run jobs here.
//
// ctest runs the scenario suites on every backend of the build (TDIST_BACKEND); the cuda backend
// needs a GPU that it can drive, which tdist_gpu_probe looks for (exit 0: it can; 77: it cannot,
// and says why). Each test of such a suite skips itself where the backend cannot run.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace tdist::testing {

enum class BackendRuns { Yes, No, ProbeFailed };

// Whether TDIST_BACKEND can run here; otherwise *why says what is missing (or what the probe
// said when it failed).
inline BackendRuns backendRuns(std::string *why) {
  const char *backend = std::getenv("TDIST_BACKEND");
  if (backend == nullptr || std::string_view(backend) != "cuda") return BackendRuns::Yes;
#ifdef TDIST_GPU_PROBE_PATH
  FILE *probe = popen("'" TDIST_GPU_PROBE_PATH "' 2>&1", "r");
  if (probe == nullptr) {
    *why = "cannot start the GPU probe " TDIST_GPU_PROBE_PATH;
    return BackendRuns::ProbeFailed;
  }
  std::string said;
  char chunk[256];
  while (std::fgets(chunk, sizeof chunk, probe) != nullptr) said += chunk;
  const int status = pclose(probe);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return BackendRuns::Yes;
  const bool cannot = WIFEXITED(status) && WEXITSTATUS(status) == 77;
  *why = (cannot ? "the cuda backend cannot run here: " : "the GPU probe failed: ") + said;
  return cannot ? BackendRuns::No : BackendRuns::ProbeFailed;
#else
  *why = "this build has no cuda backend";
  return BackendRuns::No;
#endif
}

// The fixture of a suite whose tests start jobs on TDIST_BACKEND: skipped where it cannot run.
class OnTheSuiteBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::string why;
    static const BackendRuns runs = backendRuns(&why);
    if (runs == BackendRuns::No) GTEST_SKIP() << why;
    ASSERT_NE(runs, BackendRuns::ProbeFailed) << why;
  }
};

}  // namespace tdist::testing
