// runtime/collective.cpp - collective steps on the host channel: publish, pull, compare.
#include "runtime/collective.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "runtime/backend.h"
#include "runtime/wait.h"

namespace tdist::runtime {
namespace {

std::int64_t readLine(const void *address, void *) {
  return static_cast<const std::atomic<std::int64_t> *>(address)->load(std::memory_order_relaxed);
}

int teamIndex(const RuntimeState &state, const TeamInfo &team) {
  return static_cast<int>(&team - state.teams.teams.data());
}

std::string teamName(int index) {
  return index == 0 ? "the world team" : "team " + std::to_string(index);
}

// Every member's record of the step at `sequence`: every member reached it, and its record stays
// until every member is past it.
MemberRecords membersRecords(const RuntimeState &state, const TeamInfo &team, std::uint64_t sequence) {
  const int index = teamIndex(state, team);
  MemberRecords all(team.size);
  for (int member = 0; member < team.size; ++member) {
    all[member] = state.channel.peer(team.worldPe(member)).records[index][sequence & 1];
  }
  return all;
}

// The members of other nodes keep a mirror of this PE's block: the step goes to them too.
void pushToOtherNodes(RuntimeState &state, const TeamInfo &team, int index, std::uint64_t sequence,
                      std::size_t carried_bytes, std::span<const HostChannel::Delivery> deliveries) {
  std::vector<int> remote;
  for (int member = 0; member < team.size; ++member) {
    const int pe = team.worldPe(member);
    if (pe != state.my_pe && state.channel.mirrored(pe)) remote.push_back(pe);
  }
  state.channel.pushStep(remote, index, sequence, carried_bytes, deliveries);
}

// Publishes this PE's step (its sequence set here): its record and line, pushed with the
// deliveries to the members of other nodes. Returns the step's sequence.
std::uint64_t publish(RuntimeState &state, TeamInfo &team, const CollectiveRecord &step_record,
                      std::size_t carried_bytes, std::span<const HostChannel::Delivery> deliveries) {
  const int index = teamIndex(state, team);
  ControlBlock &mine = state.channel.local();
  CollectiveRecord record = step_record;
  record.sequence = ++team.sequence;
  mine.records[index][record.sequence & 1] = record;
  mine.team_line[index].value.store(lineValue(record.sequence, record.op, team.last_op),
                                    std::memory_order_release);
  team.last_op = record.op;
  if (state.channel.anyMirrored()) pushToOtherNodes(state, team, index, record.sequence, carried_bytes, deliveries);
  return record.sequence;
}

// Pulls every member's line until it reached this PE's published step `sequence` of `op`. A
// mismatch is reported only once every member reached the step: so no member can be more than
// one step ahead of another (the records' double buffer relies on it), and every member sees the
// same calls and decides alike.
void awaitMembers(RuntimeState &state, TeamInfo &team, std::uint64_t sequence, CollectiveOp op, const char *call) {
  const int index = teamIndex(state, team);
  bool same = true;
  for (int member = 0; member < team.size; ++member) {
    const int pe = team.worldPe(member);
    if (pe == state.my_pe) continue;
    const ControlBlock &peer = state.channel.peer(pe);
    auto &line = peer.team_line[index].value;
    std::int64_t seen = line.load(std::memory_order_acquire);
    if (!lineReached(seen, sequence)) {
      WaitSite site;
      site.call = call;
      site.address = &line;
      site.owner_pe = pe;
      site.predicate = "collective step (sequence << 16 | operations) of the team GE";
      site.expected = lineValue(sequence, CollectiveOp::None, CollectiveOp::None);
      site.read = readLine;
      waitUntil(site, [&] {
        seen = line.load(std::memory_order_acquire);
        return lineReached(seen, sequence);
      });
    }
    same = same && lineOpAt(seen, sequence) == op;
  }
  if (!same) [[unlikely]] {
    throw Error(ErrorCode::CollectiveMismatch, callsDiffer(state, team, membersRecords(state, team, sequence), call) +
                                                   "; nothing was allocated, freed or created");
  }
}

// One step: published, then awaited.
std::uint64_t step(RuntimeState &state, TeamInfo &team, const CollectiveRecord &record, const char *call,
                   std::size_t carried_bytes = 0, std::span<const HostChannel::Delivery> deliveries = {}) {
  const std::uint64_t sequence = publish(state, team, record, carried_bytes, deliveries);
  awaitMembers(state, team, sequence, record.op, call);
  return sequence;
}

}  // namespace

const char *apiName(CollectiveApi api) {
  switch (api) {
    case CollectiveApi::AclshmemMalloc: return "aclshmem_malloc";
    case CollectiveApi::AclshmemCalloc: return "aclshmem_calloc";
    case CollectiveApi::AclshmemAlign: return "aclshmem_align";
    case CollectiveApi::AclshmemFree: return "aclshmem_free";
    case CollectiveApi::AclshmemBarrierAll: return "aclshmem_barrier_all";
    case CollectiveApi::AclshmemSyncAll: return "aclshmem_sync_all";
    case CollectiveApi::AclshmemBarrier: return "aclshmem_barrier";
    case CollectiveApi::AclshmemTeamSync: return "aclshmem_team_sync";
    case CollectiveApi::AclshmemTeamSplitStrided: return "aclshmem_team_split_strided";
    case CollectiveApi::AclshmemTeamDestroy: return "aclshmem_team_destroy";
    case CollectiveApi::Allocate: return "tdist::allocate";
    case CollectiveApi::AllocateZeroed: return "tdist::allocateZeroed";
    case CollectiveApi::Deallocate: return "tdist::deallocate";
    case CollectiveApi::CreateTensor: return "tdist::createTensor";
    case CollectiveApi::FreeTensor: return "tdist::freeTensor";
    case CollectiveApi::LibraryCall: return "a library call";
    case CollectiveApi::ShmemMalloc: return "shmem_malloc";
    case CollectiveApi::ShmemCalloc: return "shmem_calloc";
    case CollectiveApi::ShmemAlign: return "shmem_align";
    case CollectiveApi::ShmemRealloc: return "shmem_realloc";
    case CollectiveApi::ShmemFree: return "shmem_free";
    case CollectiveApi::ShmemBarrierAll: return "shmem_barrier_all";
    case CollectiveApi::ShmemSyncAll: return "shmem_sync_all";
    case CollectiveApi::ShmemBarrier: return "shmem_barrier";
    case CollectiveApi::ShmemSync: return "shmem_sync";
    case CollectiveApi::ShmemTeamSync: return "shmem_team_sync";
    case CollectiveApi::ShmemTeamSplitStrided: return "shmem_team_split_strided";
    case CollectiveApi::ShmemTeamSplit2d: return "shmem_team_split_2d";
    case CollectiveApi::ShmemTeamDestroy: return "shmem_team_destroy";
    case CollectiveApi::ShmemBroadcast: return "shmem_broadcast";
    case CollectiveApi::ShmemCollect: return "shmem_collect";
    case CollectiveApi::ShmemFcollect: return "shmem_fcollect";
    case CollectiveApi::ShmemAlltoall: return "shmem_alltoall";
    case CollectiveApi::ShmemAlltoalls: return "shmem_alltoalls";
    case CollectiveApi::ShmemReduce: return "shmem_reduce";
    case CollectiveApi::Reduce: return "tdist::shmem::reduce";
    case CollectiveApi::Fcollectmem: return "tdist::shmem::fcollectmem";
  }
  return "a collective call";
}

const char *reduceOpName(int op) {
  static const char *names[] = {"and", "or", "xor", "max", "min", "sum", "prod"};
  return op >= 0 && op < 7 ? names[op] : "?";
}

std::string describeCall(const CollectiveRecord &r) {
  const char *name = apiName(r.api);
  char text[160];
  switch (r.op) {
    case CollectiveOp::Allocate:
      if (r.api == CollectiveApi::AclshmemAlign) {
        std::snprintf(text, sizeof text, "%s(%" PRIu64 ", %" PRIu64 ")", name, r.arg1, r.arg0);
      } else if (r.api == CollectiveApi::Allocate && r.arg1 != 64) {
        std::snprintf(text, sizeof text, "%s(%" PRIu64 ", alignment %" PRIu64 ")", name, r.arg0, r.arg1);
      } else {
        std::snprintf(text, sizeof text, "%s(%" PRIu64 ")", name, r.arg0);
      }
      break;
    case CollectiveOp::Calloc:
      std::snprintf(text, sizeof text, "%s(%" PRIu64 ", %" PRIu64 ")", name, r.arg0, r.arg1);
      break;
    case CollectiveOp::Free:
      if (r.arg1 == 1) std::snprintf(text, sizeof text, "%s(NULL)", name);
      else if (r.arg1 == 2) std::snprintf(text, sizeof text, "%s(a pointer off the heap)", name);
      else std::snprintf(text, sizeof text, "%s(heap offset 0x%" PRIx64 ")", name, r.arg0);
      break;
    case CollectiveOp::TeamSplit:
      std::snprintf(text, sizeof text, "%s(start %" PRIu64 ", stride %" PRIu64 ", size %" PRIu64 ")",
                    name, r.arg0, r.arg1 >> 32, r.arg1 & 0xffffffffu);
      break;
    case CollectiveOp::Exchange:
      if (r.api == CollectiveApi::ShmemBroadcast) {
        std::snprintf(text, sizeof text, "%s(%" PRIu64 " bytes, root %" PRIu64 ")", name, r.arg0, r.arg1);
      } else if (r.api == CollectiveApi::ShmemReduce) {
        std::snprintf(text, sizeof text, "%s(%s of %" PRIu64 " bytes, elements of %" PRIu64 " bytes)", name,
                      reduceOpName(static_cast<int>(r.arg1)), r.arg0, r.arg2);
      } else {
        std::snprintf(text, sizeof text, "%s(%" PRIu64 " bytes)", name, r.arg0);
      }
      break;
    default:
      std::snprintf(text, sizeof text, "%s()", name);
      break;
  }
  return text;
}

std::string callsDiffer(const RuntimeState &state, const TeamInfo &team,
                        std::span<const CollectiveRecord> records, const char *call) {
  std::string text = std::string(call) + ": collective call #" + std::to_string(records[0].sequence) +
                     " on " + teamName(teamIndex(state, team)) + " differs between PEs:";
  for (int member = 0; member < team.size; ++member) {
    text += (member ? ", PE " : " PE ") + std::to_string(team.worldPe(member)) + " called " +
            describeCall(records[member]);
  }
  return text;
}

MemberRecords agreeOnStep(RuntimeState &state, TeamInfo &team, const CollectiveRecord &record, const char *call) {
  return agreeOnStep(state, team, record, {}, call);
}

MemberRecords agreeOnStep(RuntimeState &state, TeamInfo &team, const CollectiveRecord &record,
                          std::span<const std::byte> carried, const char *call) {
  return agreeOnStep(state, team, record, carried, {}, call);
}

MemberRecords agreeOnStep(RuntimeState &state, TeamInfo &team, const CollectiveRecord &record,
                          std::span<const std::byte> carried, std::span<const HostChannel::Delivery> deliveries,
                          const char *call) {
  if (carried.size() > kCarriedBytes) {
    throw Error(ErrorCode::Internal, std::string(call) + ": " + std::to_string(carried.size()) +
                                         " bytes to carry in one step, more than " + std::to_string(kCarriedBytes));
  }
  // The step's own buffer (its parity): published by the line's release store in step().
  const std::uint64_t sequence = team.sequence + 1;
  if (!carried.empty())
    std::memcpy(state.channel.local().carried[teamIndex(state, team)][sequence & 1], carried.data(), carried.size());
  return membersRecords(state, team, step(state, team, record, call, carried.size(), deliveries));
}

const std::byte *carriedBy(const RuntimeState &state, const TeamInfo &team, int member) {
  return state.channel.peer(team.worldPe(member)).carried[teamIndex(state, team)][team.sequence & 1];
}

void teamSync(RuntimeState &state, TeamInfo &team, CollectiveOp op, CollectiveApi api, const char *call) {
  teamSync(state, team, op, api, {}, call);
}

void teamSync(RuntimeState &state, TeamInfo &team, CollectiveOp op, CollectiveApi api,
              std::span<const HostChannel::Delivery> deliveries, const char *call) {
  awaitSync(state, team, postSync(state, team, op, api, deliveries), op, call);
}

std::uint64_t postSync(RuntimeState &state, TeamInfo &team, CollectiveOp op, CollectiveApi api,
                       std::span<const HostChannel::Delivery> deliveries) {
  CollectiveRecord record{};
  record.op = op;
  record.api = api;
  return publish(state, team, record, 0, deliveries);
}

void awaitSync(RuntimeState &state, TeamInfo &team, std::uint64_t sequence, CollectiveOp op, const char *call) {
  awaitMembers(state, team, sequence, op, call);
}

void requireHostThread(const RuntimeState &state, const char *call) {
  if (state.backend->in_program()) [[unlikely]] {
    throw Error(ErrorCode::InvalidParam,
                std::string(call) + ": is a host-only call and cannot be made from the programs "
                                    "of a launch (make it before or after the launch)");
  }
}

}  // namespace tdist::runtime
