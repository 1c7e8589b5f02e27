// runtime/teams.h - teams: strided subsets of the world, each with its own line on the host
// channel.
#pragma once

#include <array>
#include <cstdint>

#include "runtime/control_block.h"

namespace tdist::runtime {

struct TeamInfo {
  bool active = false;
  int start = 0;   // world PE of team PE 0
  int stride = 1;
  int size = 0;
  int my_pe = -1;  // this PE's index in the team
  std::uint64_t sequence = 0;  // collective calls on this team so far
  CollectiveOp last_op = CollectiveOp::None;  // the operation of the last one

  int worldPe(int team_pe) const { return start + team_pe * stride; }
  int teamPe(int world_pe) const {
    int delta = world_pe - start;
    if (delta < 0 || delta % stride != 0 || delta / stride >= size) return -1;
    return delta / stride;
  }
};

// The team index that OpenSHMEM active sets which are no team run on (teamOfActiveSet): never
// handed out by a split.
constexpr int kActiveSetTeam = kMaxTeams - 1;

struct TeamTable {
  std::array<TeamInfo, kMaxTeams> teams{};

  std::uint64_t freeMask() const {
    std::uint64_t mask = 0;
    for (int t = 0; t < kActiveSetTeam; ++t) {
      if (!teams[t].active) mask |= std::uint64_t{1} << t;
    }
    return mask;
  }
};

struct RuntimeState;

// Looks team up, or throws Error(InvalidParam) naming call.
TeamInfo &requireTeam(RuntimeState &state, int team, const char *call);

// A barrier over team, the seeds' centralized pull: this PE publishes the step on its own line,
// then reads every member's line until it reached the step. Error(CollectiveMismatch) when a
// member is in another collective call at this step.
void teamSync(RuntimeState &state, TeamInfo &team, CollectiveOp op, CollectiveApi api, const char *call);

// The team calls, by the name and API of the call the user made (aclshmem_ or shmem_), for
// errors and mismatch reports. splitStrided returns kTeamInvalid on PEs outside the new team.
int splitStrided(int parent, int start, int stride, int size, const char *call, CollectiveApi api);
void destroyTeam(int team, const char *call, CollectiveApi api);
void barrierTeam(int team, const char *call, CollectiveApi api);  // quiet, then sync
void syncTeam(int team, const char *call, CollectiveApi api);

// The team of an OpenSHMEM active set (PE_start, logPE_stride, PE_size) that this PE is in: the
// world, or a team made with the same PEs; otherwise kActiveSetTeam, joined by the members alone
// through psync (the call's symmetric pSync, SHMEM_SYNC_SIZE longs of SHMEM_SYNC_VALUE = 0): each
// raises word 1 on the set's first PE to its own step count of kActiveSetTeam, then counts itself
// in word 0 there; once all have, every member starts from the same step count, the largest, so
// that the team's steps line up whichever sets each member ran before. The last member to read it
// restores the words (counted in word 2) before its first step, so that a pSync may serve the
// next call at once. The call must end with leaveActiveSet. Error(InvalidParam) when the triplet is out of range, this PE is not in it, or
// psync is not symmetric; Error(NotSupported) on a backend without host-side team collectives.
int teamOfActiveSet(int pe_start, int log_pe_stride, int pe_size, long *psync, const char *call);
// After the call on teamOfActiveSet's team: kActiveSetTeam is free again.
void leaveActiveSet(int team);

}  // namespace tdist::runtime
