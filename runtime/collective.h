// runtime/collective.h - agreeing on a collective call's arguments across a team.
#pragma once

#include <vector>

#include "runtime/control_block.h"
#include "runtime/runtime_state.h"

namespace tdist::runtime {

// Publishes this PE's record of the call in its control block, syncs the team, and returns
// every member's record (index = team PE). Records are double-buffered by sequence parity: a
// member can rewrite its slot for call k+2 only after the barrier of call k+1, which every
// member enters only after it finished reading call k.
std::vector<CollectiveRecord> exchangeRecords(RuntimeState &state, TeamInfo &team,
                                              const CollectiveRecord &call_record, const char *call);

}  // namespace tdist::runtime
