#include "exit_status.h"

#include <cstring>
#include <sys/wait.h>

#include "tdist/exit_codes.h"

namespace tdist::launcher {
namespace {

// The statuses a tdist PE uses on purpose (tdist/exit_codes.h); its stderr has the details.
const char *meaningOfStatus(int status) {
  switch (status) {
    case kExitWaitTimeout: return "a wait passed its deadline";
    case kExitFatalError: return "fatal runtime error";
    default: return nullptr;
  }
}

}  // namespace

std::string describePeEnd(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    int signo = WTERMSIG(wait_status);
    std::string text = "was killed by signal " + std::to_string(signo) + " (" +
                       ::strsignal(signo) + ")";
    if (WCOREDUMP(wait_status)) text += ", core dumped";
    return text;
  }
  return "exited with " + describeExitStatus(WEXITSTATUS(wait_status));
}

std::string describeExitStatus(int status) {
  std::string text = "status " + std::to_string(status);
  if (const char *meaning = meaningOfStatus(status)) text += std::string(" (") + meaning + ")";
  return text;
}

int exitStatusFor(int wait_status) {
  return WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
}

bool endedCleanly(int wait_status) {
  return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
}

}  // namespace tdist::launcher
