// exit_status.h - what tdist-run's exit status means, and how it words the way a PE ended.
#pragma once

#include <string>

namespace tdist::launcher {

constexpr int kExitLauncherError = 1;  // tdist-run itself failed (no socket, cannot fork, ...)
constexpr int kExitUsage = 2;
// --backend cuda and no GPU is visible: 77, what tdist_gpu_probe and a skipped test exit with, so
// that a GPU test run under tdist-run is reported skipped (ctest SKIP_RETURN_CODE) on a host
// without one.
constexpr int kExitNoGpu = 77;
constexpr int kExitWithoutFinalize = 99;  // a PE exited 0 after init without calling finalize
constexpr int kExitJobDeadline = 124;  // --timeout passed; the value timeout(1) uses

// "exited with status 97 (a wait passed its deadline)" or "was killed by signal 11
// (Segmentation fault)", from a waitpid status.
std::string describePeEnd(int wait_status);
// "status 97 (a wait passed its deadline)", of an exit status.
std::string describeExitStatus(int status);

// The launcher's exit status for a PE that ended so: its own status, or 128+S for signal S, as a
// shell reports it.
int exitStatusFor(int wait_status);

bool endedCleanly(int wait_status);

}  // namespace tdist::launcher
