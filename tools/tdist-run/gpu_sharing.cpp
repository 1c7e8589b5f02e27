#include "gpu_sharing.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <dlfcn.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <system_error>
#include <thread>
#include <unistd.h>

#include "exit_status.h"
#include "fd_io.h"

extern char **environ;

namespace tdist::launcher {
namespace {

using Clock = std::chrono::steady_clock;

// cuInit can take seconds on a host with many GPUs; a driver that takes longer is stuck.
constexpr std::chrono::seconds kDriverLimit{30};
// The control daemon answers in well under a second; quitting waits for its servers, whose
// clients (the PEs) are gone by then.
constexpr std::chrono::seconds kMpsStartLimit{10};
constexpr std::chrono::seconds kMpsStopLimit{15};

constexpr const char *kMpsControl = "nvidia-cuda-mps-control";

// Runs in the child: "N" GPUs, or "0 why".
std::string askDriver() {
  void *cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) return std::string("0 the CUDA driver cannot be loaded: ") + ::dlerror();
  using Init = int (*)(unsigned);
  using GetCount = int (*)(int *);
  using ErrorText = int (*)(int, const char **);
  auto init = reinterpret_cast<Init>(::dlsym(cuda, "cuInit"));
  auto get_count = reinterpret_cast<GetCount>(::dlsym(cuda, "cuDeviceGetCount"));
  auto error_name = reinterpret_cast<ErrorText>(::dlsym(cuda, "cuGetErrorName"));
  auto error_string = reinterpret_cast<ErrorText>(::dlsym(cuda, "cuGetErrorString"));
  if (!init || !get_count) return "0 libcuda.so.1 lacks cuInit or cuDeviceGetCount";
  auto describe = [&](const char *call, int result) {
    const char *name = nullptr, *text = nullptr;
    if (error_name) error_name(result, &name);
    if (error_string) error_string(result, &text);
    std::string why = std::string("0 ") + call + ": " + (name ? name : std::to_string(result));
    if (text) why += std::string(", ") + text;
    return why;
  };
  if (int result = init(0); result != 0) return describe("cuInit", result);
  int count = 0;
  if (int result = get_count(&count); result != 0) return describe("cuDeviceGetCount", result);
  if (count == 0) return "0 the driver lists no device";
  return std::to_string(count);
}

std::optional<int> waitBounded(pid_t pid, Clock::duration limit) {
  const Clock::time_point deadline = Clock::now() + limit;
  while (true) {
    int wait_status = 0;
    pid_t got = ::waitpid(pid, &wait_status, WNOHANG);
    if (got == pid) return wait_status;
    if (got < 0 && errno != EINTR) return std::nullopt;
    if (Clock::now() >= deadline) {
      // Its own group (spawnHelper): whatever it started goes too.
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::optional<std::string> findOnPath(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    std::string_view dir = dirs.substr(0, dirs.find(':'));
    std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + name;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (dir.size() == dirs.size()) return std::nullopt;
    dirs.remove_prefix(dir.size() + 1);
  }
}

// Runs the MPS control program with the job's variables, in a process group of its own so that a
// Ctrl-C meant for the job cannot cut its stop short, and with the signal state tdist-run was
// started with (its blocked signals would otherwise survive exec into the daemon).
pid_t spawnHelper(const std::string &path, const std::vector<std::string> &argv,
                  const std::vector<std::pair<std::string, std::string>> &variables,
                  int stdin_fd, int stdout_fd, int stderr_fd, const ChildSignalState &signals) {
  std::vector<std::string> environment;
  for (char **entry = environ; *entry; ++entry) {
    std::string_view name = std::string_view(*entry).substr(0, std::string_view(*entry).find('='));
    bool replaced = false;
    for (const auto &[job_name, value] : variables) replaced = replaced || name == job_name;
    if (!replaced) environment.emplace_back(*entry);
  }
  for (const auto &[name, value] : variables) environment.push_back(name + "=" + value);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, stdin_fd, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  if (stderr_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stderr_fd, STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &signals.mask);
  posix_spawnattr_setsigdefault(&attributes, &signals.reset_to_default);

  std::vector<char *> c_argv, c_environment;
  for (const std::string &word : argv) c_argv.push_back(const_cast<char *>(word.c_str()));
  c_argv.push_back(nullptr);
  for (const std::string &entry : environment)
    c_environment.push_back(const_cast<char *>(entry.c_str()));
  c_environment.push_back(nullptr);
  pid_t pid = 0;
  int error = ::posix_spawn(&pid, path.c_str(), &actions, &attributes, c_argv.data(),
                            c_environment.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) throw std::system_error(error, std::generic_category(), "cannot start " + path);
  return pid;
}

std::string firstLineOf(const std::string &path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

}  // namespace

GpuCount countVisibleGpus() {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe for the GPU count");
  UniqueFd answer(ends[0]), child_end(ends[1]);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork for the GPU count");
  if (pid == 0) {
    writeAll(child_end.get(), askDriver());
    ::_exit(0);
  }
  child_end.reset();

  std::string text;
  const Clock::time_point deadline = Clock::now() + kDriverLimit;
  bool answered = false;
  while (Clock::now() < deadline) {
    pollfd readable{.fd = answer.get(), .events = POLLIN, .revents = 0};
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (::poll(&readable, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[512];
    ssize_t got = ::read(answer.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      answered = true;
      break;
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  std::optional<int> ended = waitBounded(pid, answered ? kDriverLimit : Clock::duration::zero());
  if (!answered)
    return {.count = 0, .why_none = "the CUDA driver did not answer within " +
                                    std::to_string(kDriverLimit.count()) + " s"};
  if (!ended || !endedCleanly(*ended))
    return {.count = 0, .why_none = "asking the CUDA driver, the process " +
                                    (ended ? describePeEnd(*ended) : std::string("hung"))};
  const std::size_t space = text.find(' ');
  GpuCount count{.count = std::atoi(text.c_str()), .why_none = {}};
  if (count.count == 0) count.why_none = space == std::string::npos ? text : text.substr(space + 1);
  if (const char *visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible && count.count == 0)
    count.why_none += std::string("; CUDA_VISIBLE_DEVICES='") + visible + "'";
  return count;
}

int gpusForJob(const Options &options) {
  if (options.assumed_gpus) return *options.assumed_gpus;
  // Found here rather than by each PE: one message before anything starts, instead of one init
  // failure per PE after a daemon was started for nothing.
  GpuCount found = countVisibleGpus();
  if (found.count == 0)
    throw NoGpuError("--backend cuda: no CUDA GPU is visible (" + found.why_none + ")");
  return found.count;
}

JobMps::JobMps(const Options &options, int gpus, const std::string &job_id,
               const ChildSignalState &child_signals)
    : child_signals_(child_signals) {
  const bool shared = options.n_pes > gpus;
  if (options.mps == MpsMode::Off || (options.mps == MpsMode::Auto && !shared)) return;
  // A daemon the user runs and pointed us to: the PEs inherit its pipe folder.
  if (const char *theirs = std::getenv("CUDA_MPS_PIPE_DIRECTORY"); theirs && *theirs) return;

  const std::string sharing = std::to_string(options.n_pes) + " PEs share " +
                              std::to_string(gpus) + " GPU(s)";
  const char *slower = ": their kernels will time-slice (much slower)";
  std::optional<std::string> control = findOnPath(kMpsControl);
  if (!control) {
    if (options.mps == MpsMode::On)
      throw std::runtime_error(std::string("--mps on: ") + kMpsControl + " was not found on PATH");
    report("warning: " + sharing + " and " + kMpsControl + " was not found" + slower);
    return;
  }
  control_ = *control;

  const char *tmp = std::getenv("TMPDIR");
  std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/tdist-" + job_id + "-XXXXXX";
  if (!::mkdtemp(name.data()))
    throw std::system_error(errno, std::generic_category(), "temporary folder for the MPS daemon");
  folder_ = name;
  pipe_dir_ = folder_ + "/mps-pipe";
  const std::string log_dir = folder_ + "/mps-log";
  for (const std::string &dir : {pipe_dir_, log_dir})
    if (::mkdir(dir.c_str(), 0700) != 0) {
      int error = errno;
      removeFolder();
      throw std::system_error(error, std::generic_category(), "cannot create " + dir);
    }
  variables_ = {{"CUDA_MPS_PIPE_DIRECTORY", pipe_dir_}, {"CUDA_MPS_LOG_DIRECTORY", log_dir}};

  if (std::string why = start(); !why.empty()) {
    stop();  // it may have half started
    variables_.clear();
    if (options.mps == MpsMode::On)
      throw std::runtime_error("--mps on: the MPS daemon did not start (" + why + ")");
    report("warning: " + sharing + " and their MPS daemon did not start (" + why + ")" + slower);
  }
}

std::string JobMps::start() {
  // Its output, kept for the message should it fail: once in the background it has no terminal.
  const std::string output_path = folder_ + "/mps-start.out";
  UniqueFd output(::open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  UniqueFd no_input(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!output || !no_input) return std::string("cannot open its output: ") + std::strerror(errno);
  const Clock::time_point deadline = Clock::now() + kMpsStartLimit;
  pid_t pid = 0;
  try {
    pid = spawnHelper(control_, {kMpsControl, "-d"}, variables_, no_input.get(), output.get(),
                      output.get(), child_signals_);
  } catch (const std::system_error &error) {
    return error.what();
  }
  std::optional<int> ended = waitBounded(pid, kMpsStartLimit);
  auto withOutput = [&](std::string why) {
    if (std::string said = firstLineOf(output_path); !said.empty()) why += ": " + said;
    return why;
  };
  if (!ended) return withOutput(std::string(kMpsControl) + " -d did not return");
  if (!endedCleanly(*ended))
    return withOutput(std::string(kMpsControl) + " -d " + describePeEnd(*ended));
  running_ = true;  // from here on it must be told to quit, whatever follows
  // The daemon answers once its control pipe exists; a client finding none runs without MPS.
  const std::string control_pipe = pipe_dir_ + "/control";
  while (::access(control_pipe.c_str(), F_OK) != 0) {
    if (Clock::now() >= deadline)
      return withOutput("no control pipe in " + pipe_dir_ + " after " +
                        std::to_string(kMpsStartLimit.count()) + " s");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "";
}

void JobMps::stop() {
  if (running_) {
    running_ = false;
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) {
      report("warning: cannot stop the job's MPS daemon: no pipe for its quit command");
      return;
    }
    UniqueFd quit_in(ends[0]), quit_out(ends[1]);
    writeAll(quit_out.get(), "quit\n");  // far below a pipe's capacity
    quit_out.reset();
    UniqueFd no_output(::open("/dev/null", O_WRONLY | O_CLOEXEC));
    std::optional<int> ended;
    try {
      // quit returns once the daemon and its servers have exited: that is the wait for it.
      // Its complaints, if any, go to tdist-run's stderr.
      ended = waitBounded(spawnHelper(control_, {kMpsControl}, variables_, quit_in.get(),
                                      no_output.get(), -1, child_signals_),
                          kMpsStopLimit);
    } catch (const std::exception &error) {
      report(std::string("warning: cannot stop the job's MPS daemon: ") + error.what());
    }
    if (!ended) {
      // Its pipe folder is the only way to reach it: it stays.
      report("warning: the job's MPS daemon did not stop within " +
             std::to_string(kMpsStopLimit.count()) + " s; stop it with: echo quit | "
             "CUDA_MPS_PIPE_DIRECTORY=" + pipe_dir_ + " " + kMpsControl);
      folder_.clear();
      return;
    }
    if (!endedCleanly(*ended))
      report(std::string("warning: quitting the job's MPS daemon, ") + kMpsControl + " " +
             describePeEnd(*ended));
  }
  removeFolder();
}

void JobMps::removeFolder() {
  if (folder_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
  folder_.clear();
}

}  // namespace tdist::launcher
