// runtime/control_block.h - the runtime's own region at the start of every PE's heap.
//
// Peers reach it through the same base tables as user data, so barriers and collective
// checks are plain loads and stores on the heap, like aclshmem's sync pool.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace tdist::runtime {

constexpr int kMaxTeams = 64;

// One value alone on its 64-byte line.
struct alignas(64) SignalLine {
  std::atomic<std::int64_t> value{0};
};
static_assert(sizeof(SignalLine) == 64);

enum class CollectiveKind : std::uint32_t {
  Malloc = 1,
  Calloc = 2,
  Align = 3,
  Free = 4,
  TeamSplit = 5,
  TeamEpoch = 6,
};

// What a PE says about the collective call it is in; compared across the team's members.
struct alignas(64) CollectiveRecord {
  std::uint64_t sequence;   // calls on this team so far, counting this one
  CollectiveKind kind;
  std::int32_t status;      // 0, or the ErrorCode this PE found locally
  std::uint64_t arg0;
  std::uint64_t arg1;
  std::uint64_t arg2;
};
static_assert(sizeof(CollectiveRecord) == 64);

struct ControlBlock {
  SignalLine team_barrier[kMaxTeams];        // epoch of this PE's last arrival, per team
  SignalLine exit_request;                   // 0, or 1 + the status global_exit asked for
  CollectiveRecord records[kMaxTeams][2];    // double-buffered by sequence parity
};

// The user heap begins after the control block, on a page boundary.
constexpr std::size_t kControlBytes = (sizeof(ControlBlock) + 4095) / 4096 * 4096;

}  // namespace tdist::runtime
