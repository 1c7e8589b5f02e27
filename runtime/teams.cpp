// runtime/teams.cpp - team split / translate / destroy and team barriers.
#include "runtime/teams.h"

#include <atomic>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <string_view>

#include "runtime/collective.h"
#include "runtime/backend.h"
#include "runtime/runtime_state.h"
#include "runtime/wait.h"
#include "tdist/shmem.h"

namespace tdist::runtime {

TeamInfo &requireTeam(RuntimeState &state, int team, const char *call) {
  if (team < 0 || team >= kMaxTeams || !state.teams.teams[team].active) [[unlikely]] {
    throw Error(ErrorCode::InvalidParam,
                std::string(call) + ": team " + std::to_string(team) + " is not a valid team");
  }
  return state.teams.teams[team];
}

}  // namespace tdist::runtime

namespace tdist::shmem {

using runtime::CollectiveApi;
using runtime::CollectiveOp;
using runtime::CollectiveRecord;
using runtime::TeamInfo;

}  // namespace tdist::shmem

namespace tdist::runtime {

using shmem::kTeamInvalid;
using shmem::kTeamWorld;
using shmem::quiet;
using shmem::Team;

Team splitStrided(Team parent, int start, int stride, int size, const char *call, CollectiveApi api) {
  auto &state = runtime::requireState(call);
  runtime::requireHostThread(state, call);
  TeamInfo &parent_team = runtime::requireTeam(state, parent, call);

  // Arguments are checked locally, then agreed on: every member fails alike.
  std::int32_t status = 0;
  if (size < 1 || start < 0 || start >= parent_team.size || stride < 1 ||
      static_cast<long long>(start) + static_cast<long long>(stride) * (size - 1) >= parent_team.size) {
    status = static_cast<std::int32_t>(ErrorCode::InvalidParam);
  }
  CollectiveRecord mine{};
  mine.op = CollectiveOp::TeamSplit;
  mine.api = api;
  mine.status = status;
  mine.arg0 = static_cast<std::uint64_t>(start);
  mine.arg1 = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(stride)) << 32) |
              static_cast<std::uint32_t>(size);
  mine.arg2 = state.teams.freeMask();
  auto all = runtime::agreeOnStep(state, parent_team, mine, call);

  std::uint64_t common_free = ~std::uint64_t{0};
  for (int member = 0; member < parent_team.size; ++member) {
    const CollectiveRecord &r = all[member];
    if (r.arg0 != mine.arg0 || r.arg1 != mine.arg1) {
      throw Error(ErrorCode::CollectiveMismatch,
                  runtime::callsDiffer(state, parent_team, all, call) + "; no team was created");
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
  // (Sequences only grow, so a member still polling an old team's line is released by them.)
  CollectiveRecord epoch_record{};
  epoch_record.op = CollectiveOp::TeamEpoch;
  epoch_record.api = api;
  epoch_record.arg0 = runtime::lineSequence(
      state.channel.local().team_line[index].value.load(std::memory_order_acquire));
  epoch_record.arg1 = static_cast<std::uint64_t>(index);
  auto epochs = runtime::agreeOnStep(state, parent_team, epoch_record, call);
  std::uint64_t base = 0;
  for (const CollectiveRecord &r : epochs) base = std::max(base, r.arg0);

  if (team.my_pe < 0) return kTeamInvalid;
  team.sequence = base;
  state.teams.teams[index] = team;
  if (state.backend->team_created != nullptr) state.backend->team_created(state, index);
  return index;
}

void destroyTeam(Team team, const char *call, CollectiveApi api) {
  auto &state = runtime::requireState(call);
  if (team == kTeamWorld) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": the world team cannot be destroyed");
  }
  runtime::requireHostThread(state, call);
  TeamInfo &info = runtime::requireTeam(state, team, call);
  // Members leave together so that nobody still polls a line of the team when it is reused.
  quiet();
  runtime::teamSync(state, info, CollectiveOp::TeamDestroy, api, call);
  info.active = false;
}

void barrierTeam(Team team, const char *call, CollectiveApi api) {
  auto &state = runtime::requireState(call);
  runtime::requireHostThread(state, call);
  TeamInfo &info = runtime::requireTeam(state, team, call);
  quiet();
  runtime::teamSync(state, info, CollectiveOp::Barrier, api, call);
}

void syncTeam(Team team, const char *call, CollectiveApi api) {
  auto &state = runtime::requireState(call);
  runtime::requireHostThread(state, call);
  runtime::teamSync(state, runtime::requireTeam(state, team, call), CollectiveOp::Sync, api, call);
}

namespace {

// The words of pSync on the set's first PE, as this PE reaches them: loads and CPU atomics where
// the host has a view of them, else the backend's word operations (a PE of another node).
class PsyncWords {
 public:
  PsyncWords(RuntimeState &state, long *words, const char *call)
      : state_(state), words_(words), call_(call),
        direct_(state.backend->host_view(state, words, 3 * sizeof(long)) != nullptr) {}

  long load(int i) const {
    if (direct_) return word(i).load(std::memory_order_acquire);
    return static_cast<long>(op(WordOp::Fetch, i, 0, 0));
  }
  // Previous value.
  long fetchAdd(int i, long value) const {
    if (direct_) return word(i).fetch_add(value, std::memory_order_acq_rel);
    return static_cast<long>(op(WordOp::FetchAdd, i, static_cast<std::uint64_t>(value), 0));
  }
  // Raises word i to at least value.
  void raise(int i, long value) const {
    long seen = load(i);
    while (seen < value) {
      if (direct_) {
        if (word(i).compare_exchange_weak(seen, value, std::memory_order_acq_rel)) return;
      } else {
        const long before = static_cast<long>(
            op(WordOp::CompareSwap, i, static_cast<std::uint64_t>(value), static_cast<std::uint64_t>(seen)));
        if (before == seen) return;
        seen = before;
      }
    }
  }
  void store(int i, long value) const {
    if (direct_) return word(i).store(value, std::memory_order_release);
    op(WordOp::Set, i, static_cast<std::uint64_t>(value), 0);
  }
  const long *address(int i) const { return words_ + i; }
  bool direct() const { return direct_; }

 private:
  std::atomic<long> &word(int i) const { return *reinterpret_cast<std::atomic<long> *>(words_ + i); }
  std::uint64_t op(WordOp kind, int i, std::uint64_t operand, std::uint64_t compare) const {
    return state_.backend->word_op(state_, kind, words_ + i, sizeof(long), operand, compare, call_);
  }

  RuntimeState &state_;
  long *words_;
  const char *call_;
  bool direct_;
};

std::int64_t readPsyncWord(const void *address, void *context) {
  const auto &words = *static_cast<const PsyncWords *>(context);
  return words.direct() ? static_cast<const std::atomic<long> *>(address)->load(std::memory_order_acquire)
                        : words.load(0);
}

// Joins kActiveSetTeam with the PEs of (start, stride, size), this PE among them.
Team joinActiveSet(RuntimeState &state, int start, int stride, int size, long *psync, const char *call) {
  if (std::string_view(state.backend->name) != "cpu") {
    throw Error(ErrorCode::NotSupported,
                std::string(call) + ": an active set that is no team (world PEs start, stride, size: " +
                    std::to_string(start) + ", " + std::to_string(stride) + ", " + std::to_string(size) +
                    ") runs on the cpu backend only; make it a team (shmem_team_split_strided) or use the team form");
  }
  if (psync == nullptr) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": pSync is NULL");
  }
  TeamInfo &team = state.teams.teams[kActiveSetTeam];
  if (team.active) {
    throw Error(ErrorCode::Internal, std::string(call) + ": an active-set call is already in progress on this PE");
  }
  // psync words 0 (arrivals), 1 (the largest step count) and 2 (departures) on the set's first PE.
  const PsyncWords words(state, reinterpret_cast<long *>(peerAddress(state, psync, 3 * sizeof(long), start, call,
                                                                     "pSync")),
                         call);
  constexpr int kArrivals = 0, kSteps = 1, kDepartures = 2;
  words.raise(kSteps, static_cast<long>(team.sequence));
  words.fetchAdd(kArrivals, 1);
  WaitSite site;
  site.call = call;
  site.address = words.address(kArrivals);
  site.owner_pe = start;
  site.predicate = "active-set arrivals in pSync[0] GE";
  site.expected = size;
  site.read = readPsyncWord;
  site.read_context = const_cast<PsyncWords *>(&words);
  waitUntil(site, [&] { return words.load(kArrivals) >= size; });
  team.active = true;
  team.start = start;
  team.stride = stride;
  team.size = size;
  team.my_pe = team.teamPe(state.my_pe);
  team.sequence = static_cast<std::uint64_t>(words.load(kSteps));
  team.last_op = CollectiveOp::None;
  // The last member to have read restores the words, before its first step of the call: so
  // before any member can finish the call and join the next one on the same pSync.
  if (words.fetchAdd(kDepartures, 1) + 1 == size) {
    words.store(kArrivals, 0);
    words.store(kSteps, 0);
    words.store(kDepartures, 0);
  }
  return kActiveSetTeam;
}

}  // namespace

void leaveActiveSet(Team index) {
  if (index != kActiveSetTeam || g_state == nullptr) return;
  g_state->teams.teams[kActiveSetTeam].active = false;
}

Team teamOfActiveSet(int pe_start, int log_pe_stride, int pe_size, long *psync, const char *call) {
  auto &state = runtime::requireState(call);
  if (pe_start < 0 || log_pe_stride < 0 || log_pe_stride > 30 || pe_size < 1 ||
      static_cast<long long>(pe_start) + (static_cast<long long>(pe_size - 1) << log_pe_stride) >= state.n_pes) {
    throw Error(ErrorCode::InvalidParam,
                std::string(call) + ": the active set (PE_start " + std::to_string(pe_start) + ", logPE_stride " +
                    std::to_string(log_pe_stride) + ", PE_size " + std::to_string(pe_size) +
                    ") does not describe PEs of a job of " + std::to_string(state.n_pes));
  }
  const int stride = pe_size == 1 ? 1 : 1 << log_pe_stride;
  for (int index = 0; index < kMaxTeams; ++index) {
    const TeamInfo &team = state.teams.teams[index];
    if (team.active && team.my_pe >= 0 && team.start == pe_start && team.size == pe_size &&
        (team.stride == stride || pe_size == 1)) {
      return index;
    }
  }
  const std::string triplet = std::to_string(pe_start) + ", " + std::to_string(stride) + ", " + std::to_string(pe_size);
  if (TeamInfo{true, pe_start, stride, pe_size}.teamPe(state.my_pe) < 0) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": PE " + std::to_string(state.my_pe) +
                                             " is not in the active set (world PEs start, stride, size: " +
                                             triplet + ")");
  }
  return joinActiveSet(state, pe_start, stride, pe_size, psync, call);
}

}  // namespace tdist::runtime

namespace tdist::shmem {

Team team_split_strided(Team parent, int start, int stride, int size) {
  return runtime::splitStrided(parent, start, stride, size, "aclshmem_team_split_strided",
                               CollectiveApi::AclshmemTeamSplitStrided);
}
void team_destroy(Team team) {
  runtime::destroyTeam(team, "aclshmem_team_destroy", CollectiveApi::AclshmemTeamDestroy);
}
void barrier(Team team) { runtime::barrierTeam(team, "aclshmem_barrier", CollectiveApi::AclshmemBarrier); }
void sync(Team team) { runtime::syncTeam(team, "aclshmem_team_sync", CollectiveApi::AclshmemTeamSync); }

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

}  // namespace tdist::shmem
