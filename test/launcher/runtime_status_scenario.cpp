// tdist_status_scenario NAME: PE programs that end with and without finalize;
// runtime_status_test.cpp runs them under tdist-run and checks how the job ends.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

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

}  // namespace

int main(int argc, char **argv) {
  const std::string name = argc == 2 ? argv[1] : "";
  if (name == "return-without-finalize") return returnWithoutFinalize();
  if (name == "finalize") return finalizeAndReturn();
  if (name == "init-twice") return initTwice();
  if (name == "start-a-program") return startAProgram();
  if (name == "global-exit-zero") return globalExitZero();
  std::fprintf(stderr, "usage: tdist_status_scenario return-without-finalize|finalize|"
                       "init-twice|start-a-program|global-exit-zero\n");
  return 2;
}
