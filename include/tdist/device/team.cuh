// tdist/device/team.cuh - teams and barriers in kernels: barrier_all, sync_all, barrier, sync,
// and the block forms barrier_all_block, sync_all_block.
//
// The seeds' centralized pull barrier with monotone epochs (DESIGN §4): each PE raises its own
// epoch of the team, publishes it with a release store into its own barrier slot of that team, and
// then reads every member's slot through the peer mapping until it shows at least that epoch. A PE
// only ever writes its own slot, nothing is reset between barriers, and a fast PE already in a
// later barrier (its slot past ours) never leaves a slow one waiting.
//
// Where the words are (the cuda backend lays them out after the user heap and resets a team's slot
// and epoch when the team is created): the slot of team t on PE m is the first uint64 of the
// 64-byte line heap_base + m * stride + internal.barrier_slots + t * 64; this PE's epoch of team t
// is the uint64 at its own segment + internal.barrier_epochs + t * 8, touched by nobody else.
//
// barrier/sync are called by ONE thread of the PE: that thread's own earlier writes are ordered by
// its release store (barrier adds a quiet first); other threads of its block must __syncthreads
// before it, and read peers' data only after a __syncthreads behind it, which is what the _block
// forms do.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tdist/device/signal.cuh"
#include "tdist/device/state.cuh"
#include "tdist/device/wait.cuh"
#include "tdist/shmem.h"

namespace tdist::device {
namespace detail {

// A team as world PEs: member i is start + i * stride; my_index is -1 on non-members.
struct TeamMembers {
  int start = 0;
  int stride = 1;
  int size = 0;
  int my_index = -1;
};

// The world team needs no table: it is every PE.
__device__ __forceinline__ TeamMembers team_members(int team) {
  const DeviceState &s = state();
  if (team == shmem::kTeamWorld) return TeamMembers{0, 1, s.n_pes, s.my_pe};
  if (team < 0 || team >= kMaxDeviceTeams || s.teams == nullptr) return TeamMembers{};
  const TeamState &t = s.teams[team];
  return TeamMembers{t.start, t.stride, t.size, t.my_pe};
}

__device__ __forceinline__ std::uint64_t *barrier_slot(int team, int pe) {
  const DeviceState &s = state();
  std::byte *segment = s.heap_base + static_cast<std::size_t>(pe) * s.stride;
  return reinterpret_cast<std::uint64_t *>(segment + s.internal.barrier_slots +
                                           static_cast<std::size_t>(team) * kSignalLineBytes);
}

__device__ __forceinline__ volatile std::uint64_t *barrier_epoch(int team) {
  return reinterpret_cast<volatile std::uint64_t *>(own_segment() + state().internal.barrier_epochs +
                                                    static_cast<std::size_t>(team) * sizeof(std::uint64_t));
}

// The barrier without the quiet. A team this PE is not a member of (or no such team) has nobody
// to meet: the call returns at once, as it cannot report an error from a kernel.
__device__ __forceinline__ void team_sync(int team, const char *call) {
  TeamMembers members = team_members(team);
  if (members.size <= 0 || members.my_index < 0) return;
  trace(TraceKind::BarrierBegin, nullptr, -1, team);
  volatile std::uint64_t *epoch = barrier_epoch(team);
  std::uint64_t mine = *epoch + 1;
  *epoch = mine;
  ptx::store_release(barrier_slot(team, state().my_pe), mine, scope());
  // Consecutive members' slots are a constant distance apart, so the one wait loop walks them as
  // the slots of a single call: one deadline, and the record names the member not yet arrived.
  std::ptrdiff_t member_distance =
      static_cast<std::ptrdiff_t>(members.stride) * static_cast<std::ptrdiff_t>(state().stride);
  wait_words<std::uint64_t>(barrier_slot(team, members.start), members.size, member_distance, shmem::Cmp::GE,
                            mine, call, [](std::uint64_t) {});
  trace(TraceKind::BarrierEnd, nullptr, -1, team);
}

__device__ __forceinline__ bool block_leader() { return (threadIdx.x | threadIdx.y | threadIdx.z) == 0; }

}  // namespace detail

// This PE's index in team, and the team's size; -1 when it is not a member or there is no team.
__device__ __forceinline__ int team_my_pe(int team) { return detail::team_members(team).my_index; }
__device__ __forceinline__ int team_n_pes(int team) {
  detail::TeamMembers members = detail::team_members(team);
  return members.size > 0 ? members.size : -1;
}

__device__ __forceinline__ void barrier_all() {
  quiet();
  detail::team_sync(shmem::kTeamWorld, "tdist::device::barrier_all");
}

__device__ __forceinline__ void sync_all() { detail::team_sync(shmem::kTeamWorld, "tdist::device::sync_all"); }

__device__ __forceinline__ void barrier(int team) {
  quiet();
  detail::team_sync(team, "tdist::device::barrier");
}

__device__ __forceinline__ void sync(int team) { detail::team_sync(team, "tdist::device::sync"); }

// Every thread of one block calls these; its first thread does the PE barrier.
__device__ __forceinline__ void barrier_all_block() {
  __syncthreads();
  if (detail::block_leader()) {
    quiet();
    detail::team_sync(shmem::kTeamWorld, "tdist::device::barrier_all_block");
  }
  __syncthreads();
}

__device__ __forceinline__ void sync_all_block() {
  __syncthreads();
  if (detail::block_leader()) detail::team_sync(shmem::kTeamWorld, "tdist::device::sync_all_block");
  __syncthreads();
}

}  // namespace tdist::device
