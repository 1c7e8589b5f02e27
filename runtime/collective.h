// runtime/collective.h - agreeing on a collective call across a team.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "runtime/control_block.h"
#include "runtime/runtime_state.h"

namespace tdist::runtime {

// Every member's record of one step (index = team PE), held inline for teams of up to
// kInlineMembers: a step is on the path of every small collective, and an aligned heap allocation
// and its free cost ~13% of a one-step call of 2 PEs.
class MemberRecords {
 public:
  static constexpr int kInlineMembers = 8;
  explicit MemberRecords(int members) : size_(static_cast<std::size_t>(members)) {
    if (members > kInlineMembers) spilled_.resize(size_);
  }
  CollectiveRecord *data() { return spilled_.empty() ? inline_ : spilled_.data(); }
  const CollectiveRecord *data() const { return spilled_.empty() ? inline_ : spilled_.data(); }
  std::size_t size() const { return size_; }
  CollectiveRecord &operator[](std::size_t i) { return data()[i]; }
  const CollectiveRecord &operator[](std::size_t i) const { return data()[i]; }
  CollectiveRecord *begin() { return data(); }
  CollectiveRecord *end() { return data() + size_; }
  const CollectiveRecord *begin() const { return data(); }
  const CollectiveRecord *end() const { return data() + size_; }
  operator std::span<const CollectiveRecord>() const { return {data(), size_}; }

 private:
  std::size_t size_;
  CollectiveRecord inline_[kInlineMembers];
  std::vector<CollectiveRecord> spilled_;
};

// One collective step of this PE on team: publishes `record` (its sequence is set here), waits
// until every member reached the step, and returns every member's record (index = team PE).
// Throws Error(CollectiveMismatch), naming every member's call, when a member is in another
// operation at this step; then nothing has changed on any PE.
MemberRecords agreeOnStep(RuntimeState &state, TeamInfo &team, const CollectiveRecord &record, const char *call);
// The same step carrying `carried` (at most kCarriedBytes) beside the record; after it, every
// member's carried bytes are at carriedBy(state, team, member) until this PE's next step on team.
MemberRecords agreeOnStep(RuntimeState &state, TeamInfo &team, const CollectiveRecord &record,
                          std::span<const std::byte> carried, const char *call);
// The same step delivering data to members of other nodes as well (teamSync's deliveries below).
MemberRecords agreeOnStep(RuntimeState &state, TeamInfo &team, const CollectiveRecord &record,
                          std::span<const std::byte> carried, std::span<const HostChannel::Delivery> deliveries,
                          const char *call);
const std::byte *carriedBy(const RuntimeState &state, const TeamInfo &team, int member);

// teamSync (teams.h) that also delivers data to members of other nodes: each delivery's bytes
// are in that member's memory once its wait for this step ends (every delivery's pe is a member
// of another node: HostChannel::mirrored).
void teamSync(RuntimeState &state, TeamInfo &team, CollectiveOp op, CollectiveApi api,
              std::span<const HostChannel::Delivery> deliveries, const char *call);
// The same step in two halves, so that this PE works while its step travels: postSync publishes
// it (with its deliveries) and returns its sequence; awaitSync waits until every member reached
// it, with teamSync's checks. Nothing else on the team between the two.
std::uint64_t postSync(RuntimeState &state, TeamInfo &team, CollectiveOp op, CollectiveApi api,
                       std::span<const HostChannel::Delivery> deliveries);
void awaitSync(RuntimeState &state, TeamInfo &team, std::uint64_t sequence, CollectiveOp op, const char *call);

// "<call>: collective call #<sequence> on <team> differs between PEs: PE 0 called ..., PE 1
// called ...", from every member's record of one step (index = team PE).
std::string callsDiffer(const RuntimeState &state, const TeamInfo &team,
                        std::span<const CollectiveRecord> records, const char *call);

// The user's call as it was made, e.g. "aclshmem_calloc(4, 8)".
std::string describeCall(const CollectiveRecord &record);
const char *apiName(CollectiveApi api);

// The operation of a reduction (a data collective's arg1), as OpenSHMEM names them.
enum class ReduceOp : std::uint8_t { And, Or, Xor, Max, Min, Sum, Prod };
const char *reduceOpName(int op);  // "and", ..., "prod"; "?" for another value

// Refuses a host-only call made from a program of a launch: Error(InvalidParam) naming call.
void requireHostThread(const RuntimeState &state, const char *call);

}  // namespace tdist::runtime
