// runtime/teams.cpp - team barrier, record exchange, split / translate / destroy.
#include "runtime/teams.h"

#include <bit>
#include <cinttypes>
#include <cstdio>

#include "runtime/collective.h"
#include "runtime/runtime_state.h"
#include "runtime/wait.h"
#include "tdist/shmem.h"

namespace tdist::runtime {
namespace {

std::int64_t readLine(const void *address) {
  return static_cast<const std::atomic<std::int64_t> *>(address)->load(std::memory_order_relaxed);
}

}  // namespace

TeamInfo &requireTeam(RuntimeState &state, int team, const char *call) {
  if (team < 0 || team >= kMaxTeams || !state.teams.teams[team].active) [[unlikely]] {
    throw Error(ErrorCode::InvalidParam,
                std::string(call) + ": team " + std::to_string(team) + " is not a valid team");
  }
  return state.teams.teams[team];
}

void teamSync(RuntimeState &state, TeamInfo &team, const char *call) {
  const int index = static_cast<int>(&team - state.teams.teams.data());
  const std::int64_t epoch = ++team.epoch;
  state.heap.control().team_barrier[index].value.store(epoch, std::memory_order_release);
  for (int member = 0; member < team.size; ++member) {
    const int pe = team.worldPe(member);
    if (pe == state.my_pe) continue;
    auto &line = state.heap.peerControl(pe).team_barrier[index].value;
    WaitSite site;
    site.call = call;
    site.address = &line;
    site.owner_pe = pe;
    site.predicate = "barrier epoch EQ (or EQ+1)";
    site.expected = epoch;
    site.read = readLine;
    waitUntil(site, [&] {
      std::int64_t seen = line.load(std::memory_order_acquire);
      return seen == epoch || seen == epoch + 1;
    });
  }
}

std::vector<CollectiveRecord> exchangeRecords(RuntimeState &state, TeamInfo &team,
                                              const CollectiveRecord &call_record, const char *call) {
  const int index = static_cast<int>(&team - state.teams.teams.data());
  CollectiveRecord mine = call_record;
  mine.sequence = ++team.sequence;
  const int parity = static_cast<int>(mine.sequence & 1);
  state.heap.control().records[index][parity] = mine;
  teamSync(state, team, call);
  std::vector<CollectiveRecord> all(team.size);
  for (int member = 0; member < team.size; ++member) {
    all[member] = state.heap.peerControl(team.worldPe(member)).records[index][parity];
  }
  return all;
}

}  // namespace tdist::runtime

namespace tdist::shmem {

using runtime::CollectiveKind;
using runtime::CollectiveRecord;
using runtime::TeamInfo;

Team team_split_strided(Team parent, int start, int stride, int size) {
  constexpr const char *call = "aclshmem_team_split_strided";
  auto &state = runtime::requireState(call);
  TeamInfo &parent_team = runtime::requireTeam(state, parent, call);

  // Arguments are checked locally, then agreed on: every member fails alike.
  std::int32_t status = 0;
  if (size < 1 || start < 0 || start >= parent_team.size || stride < 1 ||
      static_cast<long long>(start) + static_cast<long long>(stride) * (size - 1) >= parent_team.size) {
    status = static_cast<std::int32_t>(ErrorCode::InvalidParam);
  }
  CollectiveRecord mine{};
  mine.kind = CollectiveKind::TeamSplit;
  mine.status = status;
  mine.arg0 = static_cast<std::uint64_t>(start);
  mine.arg1 = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(stride)) << 32) |
              static_cast<std::uint32_t>(size);
  mine.arg2 = state.teams.freeMask();
  auto all = runtime::exchangeRecords(state, parent_team, mine, call);

  std::uint64_t common_free = ~std::uint64_t{0};
  for (int member = 0; member < parent_team.size; ++member) {
    const CollectiveRecord &r = all[member];
    if (r.kind != mine.kind || r.arg0 != mine.arg0 || r.arg1 != mine.arg1) {
      throw Error(ErrorCode::CollectiveMismatch,
                  std::string(call) + ": team PE " + std::to_string(member) +
                      " made a different collective call (or split with other arguments) than "
                      "team PE " + std::to_string(parent_team.my_pe));
    }
    common_free &= r.arg2;
  }
  if (status != 0) {
    throw Error(ErrorCode::InvalidParam,
                std::string(call) + ": start " + std::to_string(start) + ", stride " +
                    std::to_string(stride) + ", size " + std::to_string(size) +
                    " do not describe PEs of a team of " + std::to_string(parent_team.size));
  }
  if (common_free == 0) {
    throw Error(ErrorCode::InvalidValue, std::string(call) + ": all " +
                                             std::to_string(runtime::kMaxTeams) +
                                             " teams are in use");
  }
  const int index = std::countr_zero(common_free);

  TeamInfo team;
  team.active = true;
  team.start = parent_team.worldPe(start);
  team.stride = parent_team.stride * stride;
  team.size = size;
  team.my_pe = team.teamPe(state.my_pe);

  // A reused index may hold a previous team's epochs: start above all of them.
  CollectiveRecord epoch_record{};
  epoch_record.kind = CollectiveKind::TeamEpoch;
  epoch_record.arg0 = static_cast<std::uint64_t>(
      state.heap.control().team_barrier[index].value.load(std::memory_order_acquire));
  epoch_record.arg1 = static_cast<std::uint64_t>(index);
  auto epochs = runtime::exchangeRecords(state, parent_team, epoch_record, call);
  std::int64_t base = 0;
  for (const CollectiveRecord &r : epochs) base = std::max(base, static_cast<std::int64_t>(r.arg0));

  if (team.my_pe < 0) return kTeamInvalid;
  team.epoch = base;
  team.sequence = 0;
  state.teams.teams[index] = team;
  return index;
}

int team_translate_pe(Team src_team, int src_pe, Team dest_team) {
  auto &state = runtime::requireState("aclshmem_team_translate_pe");
  if (src_team < 0 || src_team >= runtime::kMaxTeams || dest_team < 0 ||
      dest_team >= runtime::kMaxTeams) {
    return -1;
  }
  const TeamInfo &src = state.teams.teams[src_team];
  const TeamInfo &dest = state.teams.teams[dest_team];
  if (!src.active || !dest.active || src_pe < 0 || src_pe >= src.size) return -1;
  return dest.teamPe(src.worldPe(src_pe));
}

int team_my_pe(Team team) {
  auto &state = runtime::requireState("aclshmem_team_my_pe");
  if (team < 0 || team >= runtime::kMaxTeams || !state.teams.teams[team].active) return -1;
  return state.teams.teams[team].my_pe;
}

int team_n_pes(Team team) {
  auto &state = runtime::requireState("aclshmem_team_n_pes");
  if (team < 0 || team >= runtime::kMaxTeams || !state.teams.teams[team].active) return -1;
  return state.teams.teams[team].size;
}

void team_destroy(Team team) {
  constexpr const char *call = "aclshmem_team_destroy";
  auto &state = runtime::requireState(call);
  if (team == kTeamWorld) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": the world team cannot be destroyed");
  }
  TeamInfo &info = runtime::requireTeam(state, team, call);
  // Members leave together so that nobody still polls a line of the team when it is reused.
  quiet();
  runtime::teamSync(state, info, call);
  info.active = false;
}

void barrier(Team team) {
  auto &state = runtime::requireState("aclshmem_barrier");
  TeamInfo &info = runtime::requireTeam(state, team, "aclshmem_barrier");
  quiet();
  runtime::teamSync(state, info, "aclshmem_barrier");
}

void sync(Team team) {
  auto &state = runtime::requireState("aclshmem_team_sync");
  runtime::teamSync(state, runtime::requireTeam(state, team, "aclshmem_team_sync"),
                    "aclshmem_team_sync");
}

}  // namespace tdist::shmem
