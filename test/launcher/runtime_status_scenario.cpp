// tdist_status_scenario NAME: PE programs that end with and without finalize;
// runtime_status_test.cpp runs them under tdist-run and checks how the job ends.
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "aclshmem.h"

namespace {

bool init() {
  const int rc = aclshmem_init();
  if (rc != ACLSHMEM_SUCCESS) std::fprintf(stderr, "status scenario: init failed (%d)\n", rc);
  return rc == ACLSHMEM_SUCCESS;
}

// PE 1 returns from main without finalize, as a program with a forgotten call or an early
// return does, while the others wait for it in a barrier.
int returnWithoutFinalize() {
  if (!init()) return 1;
  if (aclshmem_my_pe() == 1) return 0;
  aclshmem_barrier_all();
  aclshmem_finalize();
  return 0;
}

int finalizeAndReturn() {
  if (!init()) return 1;
  aclshmem_barrier_all();
  aclshmem_finalize();
  return 0;
}

// Init may follow finalize: the second finalize is the one that counts.
int initTwice() {
  for (int round = 0; round < 2; ++round) {
    if (!init()) return 1;
    aclshmem_barrier_all();
    aclshmem_finalize();
  }
  return 0;
}

// After init, a program the PE starts looks for the PE's status channel among its descriptors.
int startAProgram() {
  if (!init()) return 1;
  std::fflush(stdout);
  const int status = std::system(
      R"(if [ -e "/proc/$$/fd/$TDIST_STATUS_FD" ]; then echo "status channel inherited"; )"
      R"(else echo "status channel closed"; fi)");
  aclshmem_finalize();
  return status == 0 ? 0 : 1;
}

// PE 0 ends the job in order with global_exit(0) while the others wait for a signal that never
// comes; every PE leaves with status 0 and none calls finalize.
int globalExitZero() {
  if (!init()) return 1;
  auto *signal = static_cast<std::int32_t *>(aclshmem_calloc(1, sizeof(std::int32_t)));
  aclshmem_barrier_all();
  if (aclshmem_my_pe() == 0) aclshmem_global_exit(0);
  aclshmem_signal_wait_until(signal, ACLSHMEM_CMP_EQ, 1);
  return 1;
}

// The runtime's words on a channel of this PE's own: a child, the PE of the job, inits and then
// waits past its deadline; this process reads what the child said and how it ended, and never
// inits itself (so tdist-run sees a program that did not use the runtime, ending with 0).
int childSaysItsEnding() {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) return 1;
  const std::string fd = std::to_string(ends[1]);
  ::setenv("TDIST_STATUS_FD", fd.c_str(), 1);
  const pid_t child = ::fork();
  if (child < 0) return 1;
  if (child == 0) {
    ::close(ends[0]);
    if (!init()) std::_Exit(1);
    auto *signal = static_cast<std::int32_t *>(aclshmem_calloc(1, sizeof(std::int32_t)));
    aclshmem_signal_wait_until(signal, ACLSHMEM_CMP_EQ, 1);  // nobody sets it: the deadline
    std::_Exit(1);
  }
  ::close(ends[1]);
  std::string said;
  char bytes[64];
  for (ssize_t got; (got = ::read(ends[0], bytes, sizeof bytes)) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return 1;
    for (ssize_t i = 0; i < got; ++i)  // the byte after an 'E' is a status
      said += !said.empty() && said.back() == 'E' ? "<" + std::to_string(static_cast<unsigned char>(bytes[i])) + ">"
                                                  : std::string(1, bytes[i]);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  std::printf("child said %s and exited with %d\n", said.c_str(), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}

// PE 0 says it is ending with 97, as a PE past a wait's deadline does, and then takes its time
// to exit (a GPU context's teardown); PE 1 fails of it at once, as its store connection closing
// with PE 0 would make it. The job's cause is PE 0's.
int endingThenPeerFails() {
  if (!init()) return 1;
  auto *signal = static_cast<std::int32_t *>(aclshmem_calloc(1, sizeof(std::int32_t)));
  aclshmem_barrier_all();
  if (aclshmem_my_pe() == 0) {
    const int channel = std::atoi(std::getenv("TDIST_STATUS_FD"));
    const char word[2] = {'E', 97};
    if (::send(channel, word, sizeof word, MSG_NOSIGNAL) != 2) return 1;
    aclshmem_int32_p(signal, 1, 1);
    aclshmem_quiet();
    for (int second = 0; second < 60; ++second) std::this_thread::sleep_for(std::chrono::seconds(1));
    return 2;  // tdist-run ends this PE long before
  }
  aclshmem_signal_wait_until(signal, ACLSHMEM_CMP_EQ, 1);
  std::abort();
}

// Every PE says its pid once initialized, then waits for a signal nobody sends.
int waitForNothing() {
  if (!init()) return 1;
  auto *signal = static_cast<std::int32_t *>(aclshmem_calloc(1, sizeof(std::int32_t)));
  aclshmem_barrier_all();
  std::printf("PE %d pid=%d\n", aclshmem_my_pe(), static_cast<int>(::getpid()));
  std::fflush(stdout);
  aclshmem_signal_wait_until(signal, ACLSHMEM_CMP_EQ, 1);
  return 1;
}

// What UCX will read of its TCP settings, once init has made the engine (TDIST_TRANSPORT=ucx).
int ucxTcpSettings() {
  if (!init()) return 1;
  for (const char *name : {"UCX_TCP_TX_SEG_SIZE", "UCX_TCP_RX_SEG_SIZE", "UCX_TCP_SNDBUF", "UCX_TCP_RCVBUF"}) {
    const char *value = std::getenv(name);
    if (aclshmem_my_pe() == 0) std::printf("%s=%s\n", name, value != nullptr ? value : "(unset)");
  }
  aclshmem_finalize();
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const std::string name = argc == 2 ? argv[1] : "";
  if (name == "return-without-finalize") return returnWithoutFinalize();
  if (name == "finalize") return finalizeAndReturn();
  if (name == "init-twice") return initTwice();
  if (name == "start-a-program") return startAProgram();
  if (name == "global-exit-zero") return globalExitZero();
  if (name == "child-says-its-ending") return childSaysItsEnding();
  if (name == "ending-then-peer-fails") return endingThenPeerFails();
  if (name == "wait-for-nothing") return waitForNothing();
  if (name == "ucx-tcp-settings") return ucxTcpSettings();
  std::fprintf(stderr, "usage: tdist_status_scenario return-without-finalize|finalize|"
                       "init-twice|start-a-program|global-exit-zero|child-says-its-ending|"
                       "ending-then-peer-fails|wait-for-nothing|ucx-tcp-settings\n");
  return 2;
}
