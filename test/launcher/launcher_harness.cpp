#include "launcher_harness.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace tdist::launcher::test {
namespace {

std::vector<char *> cStrings(std::vector<std::string> &strings) {
  std::vector<char *> pointers;
  for (std::string &s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// The test process's environment without TDIST_*, so that only what the launcher sets reaches
// the PEs whatever the shell running the tests exported.
std::vector<std::string> cleanEnvironment() {
  std::vector<std::string> environment;
  for (char **entry = environ; *entry; ++entry)
    if (!std::string_view(*entry).starts_with("TDIST_")) environment.emplace_back(*entry);
  return environment;
}

}  // namespace

LauncherProcess::LauncherProcess(const std::vector<std::string> &args)
    : LauncherProcess(TDIST_RUN_PATH, args) {}

LauncherProcess::LauncherProcess(const std::string &launcher,
                                 const std::vector<std::string> &args)
    : LauncherProcess(launcher, args, {}) {}

LauncherProcess::LauncherProcess(const std::string &launcher, const std::vector<std::string> &args,
                                 const std::vector<std::string> &added_environment) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe2 failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  // The launcher starts with default signal handling whatever the test runner inherited: run as
  // a background job, it would ignore SIGINT, and so would tdist-run (on purpose).
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t signals;
  sigemptyset(&signals);
  posix_spawnattr_setsigmask(&attributes, &signals);
  for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD}) sigaddset(&signals, signo);
  posix_spawnattr_setsigdefault(&attributes, &signals);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> argv = {launcher};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> environment;
  for (std::string &entry : cleanEnvironment()) {
    const std::string name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const std::string &added : added_environment) replaced = replaced || added.starts_with(name);
    if (!replaced) environment.push_back(std::move(entry));
  }
  environment.insert(environment.end(), added_environment.begin(), added_environment.end());
  std::vector<char *> c_argv = cStrings(argv);
  std::vector<char *> c_environment = cStrings(environment);
  started_ = std::chrono::steady_clock::now();
  int error = ::posix_spawn(&pid_, launcher.c_str(), &actions, &attributes, c_argv.data(),
                            c_environment.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(out[1]);
  ::close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
  if (error != 0) throw std::runtime_error("cannot start " + launcher);
}

LauncherProcess::~LauncherProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
}

bool LauncherProcess::captureSome() {
  std::vector<pollfd> fds;
  for (int fd : {out_fd_, err_fd_})
    if (fd >= 0) fds.push_back({.fd = fd, .events = POLLIN, .revents = 0});
  if (fds.empty()) return false;
  Seconds left = kSafetyLimit - (std::chrono::steady_clock::now() - started_);
  if (left <= Seconds(0)) return false;
  int ready = ::poll(fds.data(), fds.size(), static_cast<int>(left.count() * 1000) + 1);
  if (ready < 0 && errno == EINTR) return true;
  for (const pollfd &fd : fds) {
    if (fd.revents == 0) continue;
    char buffer[4096];
    ssize_t got = ::read(fd.fd, buffer, sizeof buffer);
    std::string &sink = fd.fd == out_fd_ ? result_.out : result_.err;
    if (got > 0) {
      sink.append(buffer, static_cast<std::size_t>(got));
    } else {
      (fd.fd == out_fd_ ? out_fd_ : err_fd_) = -1;
      ::close(fd.fd);
    }
  }
  return true;
}

bool LauncherProcess::waitForStdout(const std::function<bool(const std::string &)> &done) {
  while (!done(result_.out))
    if (!captureSome()) return false;
  return true;
}

void LauncherProcess::sendSignal(int signo) { ::kill(pid_, signo); }

LauncherResult LauncherProcess::finish() {
  while (captureSome()) {
  }
  // The pipes close when the launcher and every PE have gone, or the limit passed first.
  if (out_fd_ >= 0 || err_fd_ >= 0) {
    result_.hung = true;
    ::kill(pid_, SIGKILL);
  }
  int wait_status = 0;
  ::waitpid(pid_, &wait_status, 0);
  pid_ = -1;
  result_.elapsed = std::chrono::steady_clock::now() - started_;
  result_.exit_status =
      WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
  return result_;
}

LauncherResult runLauncher(const std::vector<std::string> &args) {
  return LauncherProcess(args).finish();
}

LauncherResult runLauncherAt(const std::string &launcher, const std::vector<std::string> &args) {
  return LauncherProcess(launcher, args).finish();
}

LauncherResult runLauncherWithEnvironment(const std::vector<std::string> &environment,
                                          const std::vector<std::string> &args) {
  return LauncherProcess(TDIST_RUN_PATH, args, environment).finish();
}

std::vector<std::string> shellJob(int n_pes, const std::string &script,
                                  const std::vector<std::string> &options) {
  std::vector<std::string> args = options;
  args.insert(args.end(), {"-n", std::to_string(n_pes), "--", "/bin/sh", "-c", script});
  return args;
}

std::vector<std::string> scenarioJob(const std::string &program, int n_pes, const std::string &scenario,
                                     const std::vector<std::string> &options) {
  std::vector<std::string> args = options;
  args.insert(args.end(), {"-n", std::to_string(n_pes), "--", program, scenario});
  return args;
}

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t newline = text.find('\n', start);
    if (newline == std::string::npos) newline = text.size();
    lines.push_back(text.substr(start, newline - start));
    start = newline + 1;
  }
  return lines;
}

}  // namespace tdist::launcher::test
