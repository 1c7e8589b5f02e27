// launcher_harness.h - runs the tdist-run under test as a child and captures what it does.
//
// Every wait here is bounded (kSafetyLimit), so a launcher bug fails a test instead of hanging
// the suite; nothing sleeps a fixed time.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace tdist::launcher::test {

using Seconds = std::chrono::duration<double>;

// Far above what any test expects, far below ctest's timeout.
constexpr Seconds kSafetyLimit{60};

struct LauncherResult {
  int exit_status = -1;  // exit code; 128+S if the launcher itself died of signal S
  bool hung = false;     // killed by the harness after kSafetyLimit
  std::string out;
  std::string err;
  Seconds elapsed{0};
};

class LauncherProcess {
 public:
  // Starts TDIST_RUN_PATH with args, stdin from /dev/null, no TDIST_* variables inherited.
  explicit LauncherProcess(const std::vector<std::string> &args);
  // The same with another copy of the launcher, one with other programs beside it.
  LauncherProcess(const std::string &launcher, const std::vector<std::string> &args);
  // The same with "NAME=value" entries added to the environment, replacing inherited ones.
  LauncherProcess(const std::string &launcher, const std::vector<std::string> &args,
                  const std::vector<std::string> &environment);
  ~LauncherProcess();
  LauncherProcess(const LauncherProcess &) = delete;
  LauncherProcess &operator=(const LauncherProcess &) = delete;

  // Captures output until done(stdout so far) holds; false if the launcher ended or the limit
  // passed first.
  bool waitForStdout(const std::function<bool(const std::string &)> &done);
  void sendSignal(int signo);
  // Captures the rest and reaps the launcher.
  LauncherResult finish();

 private:
  // One poll() over the open pipes; false when there is nothing left to read or time is up.
  bool captureSome();

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::chrono::steady_clock::time_point started_;
  LauncherResult result_;
};

// Runs tdist-run with args to the end.
LauncherResult runLauncher(const std::vector<std::string> &args);
LauncherResult runLauncherAt(const std::string &launcher, const std::vector<std::string> &args);
// Runs tdist-run with args and "NAME=value" entries added to its environment.
LauncherResult runLauncherWithEnvironment(const std::vector<std::string> &environment,
                                          const std::vector<std::string> &args);

// tdist-run [options...] -n n_pes -- /bin/sh -c script
std::vector<std::string> shellJob(int n_pes, const std::string &script,
                                  const std::vector<std::string> &options = {});

// tdist-run [options...] -n n_pes -- program scenario: one scenario of a scenario program.
std::vector<std::string> scenarioJob(const std::string &program, int n_pes, const std::string &scenario,
                                     const std::vector<std::string> &options = {});

std::vector<std::string> splitLines(const std::string &text);

inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

}  // namespace tdist::launcher::test
