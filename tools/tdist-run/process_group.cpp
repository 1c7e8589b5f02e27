#include "process_group.h"

#include <cerrno>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <system_error>

namespace tdist::launcher {
namespace {

// posix_spawn's C handles, released on every path.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  SpawnSetup(const SpawnSetup &) = delete;
  SpawnSetup &operator=(const SpawnSetup &) = delete;
};

std::vector<char *> cStrings(const std::vector<std::string> &strings) {
  std::vector<char *> pointers;
  for (const std::string &s : strings) pointers.push_back(const_cast<char *>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

void ProcessGroup::start(const std::string &path, const std::vector<std::string> &argv,
                         const std::vector<std::string> &environment, const PeStdio &stdio) {
  const int pe = size();
  SpawnSetup setup;
  if (stdio.null_stdin)
    posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (stdio.stdout_fd >= 0)
    posix_spawn_file_actions_adddup2(&setup.actions, stdio.stdout_fd, STDOUT_FILENO);
  if (stdio.stderr_fd >= 0)
    posix_spawn_file_actions_adddup2(&setup.actions, stdio.stderr_fd, STDERR_FILENO);
  // Every descriptor of the launcher is close-on-exec; dup2 onto itself clears the flag for this
  // one child alone (POSIX 2024, glibc >= 2.29), so no other PE ever sees it.
  for (int fd : stdio.inherited_fds) posix_spawn_file_actions_adddup2(&setup.actions, fd, fd);

  posix_spawnattr_setflags(&setup.attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&setup.attributes, group_);  // 0 for PE 0: it founds the group
  posix_spawnattr_setsigmask(&setup.attributes, &signals_.mask);
  posix_spawnattr_setsigdefault(&setup.attributes, &signals_.reset_to_default);

  std::vector<char *> c_argv = cStrings(argv);
  std::vector<char *> c_environment = cStrings(environment);
  pid_t pid = 0;
  int error = ::posix_spawn(&pid, path.c_str(), &setup.actions, &setup.attributes, c_argv.data(),
                            c_environment.data());
  if (error != 0)
    throw std::system_error(error, std::generic_category(),
                            "cannot start PE " + std::to_string(pe) + " ('" + path + "')");
  if (pe == 0) group_ = pid;
  pes_.push_back({.pid = pid, .running = true});
}

void ProcessGroup::recordExit(pid_t pid, int wait_status, std::vector<PeExit> *exits) {
  for (int pe = 0; pe < size(); ++pe) {
    if (pes_[pe].pid != pid || !pes_[pe].running) continue;
    pes_[pe].running = false;
    if (exits) exits->push_back({.pe = pe, .pid = pid, .wait_status = wait_status});
    return;
  }
}

std::vector<PeExit> ProcessGroup::reapEnded() {
  std::vector<PeExit> exits;
  int wait_status = 0;
  pid_t pid = 0;
  while ((pid = ::waitpid(-1, &wait_status, WNOHANG)) > 0) recordExit(pid, wait_status, &exits);
  return exits;
}

void ProcessGroup::reapAll() {
  while (anyRunning()) {
    int wait_status = 0;
    pid_t pid = ::waitpid(-1, &wait_status, 0);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) break;  // ECHILD: nothing left to wait for
    recordExit(pid, wait_status, nullptr);
  }
}

void ProcessGroup::signalAll(int signo) {
  if (group_ > 0) ::kill(-group_, signo);
  // A PE that moved to a group of its own (setsid, setpgid) is reached by its pid.
  for (const Pe &pe : pes_)
    if (pe.running && ::getpgid(pe.pid) != group_) ::kill(pe.pid, signo);
}

bool ProcessGroup::anyRunning() const {
  for (const Pe &pe : pes_)
    if (pe.running) return true;
  return false;
}

std::vector<int> ProcessGroup::runningPes() const {
  std::vector<int> running;
  for (int pe = 0; pe < size(); ++pe)
    if (pes_[pe].running) running.push_back(pe);
  return running;
}

}  // namespace tdist::launcher
