// backends/cpu/barrier.cpp - barrier_all and sync_all, also from the programs of a launch.
//
// Compiled kernels call barrier_all from every program of their grid, as aclshmem's device
// barrier is called by every core of a kernel: inside a launch the programs of this PE first
// meet (runtime::acrossPrograms), the last to arrive does the PE barrier, then all go on. So
// every program of the grid must call it the same number of times; outside a launch it is the
// PE barrier alone.
#include "backends/cpu/fiber_scheduler.h"
#include "runtime/runtime_state.h"
#include "runtime/teams.h"
#include "tdist/shmem.h"

namespace tdist::shmem {

using runtime::CollectiveApi;
using runtime::CollectiveOp;

void barrier_all() {
  constexpr const char *call = "aclshmem_barrier_all";
  auto &state = runtime::requireState(call);
  runtime::acrossPrograms(call, [&] {
    quiet();
    runtime::teamSync(state, state.teams.teams[kTeamWorld], CollectiveOp::Barrier,
                      CollectiveApi::AclshmemBarrierAll, call);
  });
}

void sync_all() {
  constexpr const char *call = "aclshmem_sync_all";
  auto &state = runtime::requireState(call);
  runtime::acrossPrograms(call, [&] {
    runtime::teamSync(state, state.teams.teams[kTeamWorld], CollectiveOp::Sync,
                      CollectiveApi::AclshmemSyncAll, call);
  });
}

}  // namespace tdist::shmem
