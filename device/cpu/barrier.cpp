// device/cpu/barrier.cpp - barrier_all, sync_all and global_exit.
#include <cstdio>
#include <cstdlib>

#include "runtime/runtime_state.h"
#include "runtime/teams.h"
#include "tdist/shmem.h"

namespace tdist::shmem {

void barrier_all() {
  auto &state = runtime::requireState("aclshmem_barrier_all");
  quiet();
  runtime::teamSync(state, state.teams.teams[kTeamWorld], "aclshmem_barrier_all");
}

void sync_all() {
  auto &state = runtime::requireState("aclshmem_sync_all");
  runtime::teamSync(state, state.teams.teams[kTeamWorld], "aclshmem_sync_all");
}

void global_exit(int status) {
  if (runtime::RuntimeState *state = runtime::g_state) {
    // Every PE's waits look at their own exit line, so they end promptly with this status.
    const std::int64_t request = 1 + (status & 0xff);
    for (int pe = 0; pe < state->n_pes; ++pe) {
      state->heap.peerControl(pe).exit_request.value.store(request, std::memory_order_release);
    }
  }
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(status);
}

}  // namespace tdist::shmem
