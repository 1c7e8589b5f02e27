// process_group.h - the PEs of one job: starting them, reaping them, and signalling all of them.
//
// The PEs share a process group of their own (PE 0 leads it), so one kill() reaches every PE and
// everything a PE started, such as the commands of a shell script, while tdist-run stays out of
// it: a Ctrl-C at the terminal reaches the launcher alone, which forwards it and then times the
// ending.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

#include "signal_inbox.h"

namespace tdist::launcher {

// Where one PE's standard streams go and which descriptors it inherits.
struct PeStdio {
  bool null_stdin = false;  // read /dev/null instead of the launcher's stdin
  int stdout_fd = -1;       // -1: the launcher's own
  int stderr_fd = -1;
  // Kept open at the same numbers: the PE's status socket, and PE 0's bootstrap socket.
  std::vector<int> inherited_fds;
};

struct PeExit {
  int pe;
  pid_t pid;
  int wait_status;  // as waitpid reports it
};

class ProcessGroup {
 public:
  explicit ProcessGroup(const ChildSignalState &signals) : signals_(signals) {}

  // Starts the next PE (its number is how many were started before) running path with argv and
  // environment. Throws std::system_error naming the PE when it cannot be started.
  void start(const std::string &path, const std::vector<std::string> &argv,
             const std::vector<std::string> &environment, const PeStdio &stdio);

  // Collects the PEs that have ended, without blocking.
  std::vector<PeExit> reapEnded();
  // Blocks until every PE has ended.
  void reapAll();

  // Sends signo to every running PE and to the job's process group, which also holds what the
  // PEs started.
  void signalAll(int signo);

  int size() const { return static_cast<int>(pes_.size()); }
  pid_t pid(int pe) const { return pes_[pe].pid; }
  bool anyRunning() const;
  std::vector<int> runningPes() const;

 private:
  struct Pe {
    pid_t pid;
    bool running;
  };

  void recordExit(pid_t pid, int wait_status, std::vector<PeExit> *exits);

  ChildSignalState signals_;
  std::vector<Pe> pes_;
  pid_t group_ = 0;  // the process group id, PE 0's pid once started
};

}  // namespace tdist::launcher
