// backends/cpu/barrier.cpp - barrier_all, sync_all and global_exit.
//
// Compiled kernels call barrier_all from every program of their grid, as aclshmem's device
// barrier is called by every core of a kernel: inside a launch the programs of this PE first
// meet (runtime::acrossPrograms), the last to arrive does the PE barrier, then all go on. So
// every program of the grid must call it the same number of times; outside a launch it is the
// PE barrier alone.
#include <cstdio>
#include <cstdlib>

#include "backends/cpu/fiber_scheduler.h"
#include "runtime/runtime_state.h"
#include "runtime/teams.h"
#include "tdist/shmem.h"

namespace tdist::shmem {

void barrier_all() {
  constexpr const char *call = "aclshmem_barrier_all";
  auto &state = runtime::requireState(call);
  runtime::acrossPrograms(call, [&] {
    quiet();
    runtime::teamSync(state, state.teams.teams[kTeamWorld], call);
  });
}

void sync_all() {
  constexpr const char *call = "aclshmem_sync_all";
  auto &state = runtime::requireState(call);
  runtime::acrossPrograms(call, [&] { runtime::teamSync(state, state.teams.teams[kTeamWorld], call); });
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
