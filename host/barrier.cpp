// host/barrier.cpp - barrier_all and sync_all, also from the programs of a launch.
//
// Compiled kernels call barrier_all from every program of their grid, as aclshmem's device
// barrier is called by every core of a kernel: inside a launch the programs of this PE first
// meet (runtime::acrossPrograms), the last to arrive does the PE barrier, then all go on. So
// every program of the grid must call it the same number of times; outside a launch it is the
// PE barrier alone.
#include "host/calls.h"
#include "runtime/fiber_scheduler.h"
#include "runtime/runtime_state.h"
#include "runtime/teams.h"
#include "runtime/trace.h"
#include "tdist/shmem.h"

namespace tdist::host {

using runtime::CollectiveApi;
using runtime::CollectiveOp;

namespace {
// The barrier's span in the trace, on the calling program.
struct TracedBarrier {
  explicit TracedBarrier(const char *call) : call_(trace::active() ? call : nullptr) {
    if (call_ != nullptr) [[unlikely]] trace::recordBarrier(trace::Kind::BarrierBegin, call_);
  }
  ~TracedBarrier() {
    if (call_ != nullptr) [[unlikely]] trace::recordBarrier(trace::Kind::BarrierEnd, call_);
  }
  const char *call_;
};
}  // namespace

void barrierAll(const char *call, CollectiveApi api) {
  auto &state = runtime::requireState(call);
  TracedBarrier traced(call);
  runtime::acrossPrograms(call, [&] {
    shmem::quiet();
    runtime::teamSync(state, state.teams.teams[shmem::kTeamWorld], CollectiveOp::Barrier, api, call);
  });
}

void syncAll(const char *call, CollectiveApi api) {
  auto &state = runtime::requireState(call);
  TracedBarrier traced(call);
  runtime::acrossPrograms(call, [&] {
    runtime::teamSync(state, state.teams.teams[shmem::kTeamWorld], CollectiveOp::Sync, api, call);
  });
}

}  // namespace tdist::host

namespace tdist::shmem {

void barrier_all() { host::barrierAll("aclshmem_barrier_all", runtime::CollectiveApi::AclshmemBarrierAll); }
void sync_all() { host::syncAll("aclshmem_sync_all", runtime::CollectiveApi::AclshmemSyncAll); }

}  // namespace tdist::shmem
