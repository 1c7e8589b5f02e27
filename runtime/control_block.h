// runtime/control_block.h - what a PE publishes to its peers on the host channel.
//
// Every collective call on a team (barriers, allocation, team creation) is one step of the
// team's sequence: the PE writes its record of the call, then its team line, (sequence << 8) |
// operation. Peers wait until the line reaches their own sequence (monotone: any later value
// also releases them) and compare the operation, so two PEs in different calls at the same point
// both fail, naming both calls, instead of meeting in the wrong barrier.
// (The line also carries the operation of the step before: see lineValue.)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace tdist::runtime {

constexpr int kMaxTeams = 64;
// The most bytes a data collective carries in its agreement step (a small broadcast, fcollect,
// alltoall or reduction moves no data otherwise and needs no second step).
constexpr std::size_t kCarriedBytes = 256;

// One value alone on its 64-byte line.
struct alignas(64) SignalLine {
  std::atomic<std::int64_t> value{0};
};
static_assert(sizeof(SignalLine) == 64);

// The operation of a collective call: what the PEs must agree on.
enum class CollectiveOp : std::uint8_t {
  None = 0,
  Barrier = 1,     // quiet, then synchronize
  Sync = 2,        // synchronize
  Allocate = 3,    // arg0 bytes, arg1 alignment
  Calloc = 4,      // arg0 count, arg1 size
  Free = 5,        // arg0 heap offset, arg1 1 for NULL, 2 for a pointer off the heap
  TeamSplit = 6,   // arg0 start, arg1 stride << 32 | size, arg2 free team indices
  TeamEpoch = 7,   // arg0 this PE's line for the new index, arg1 the index
  TeamDestroy = 8,
  LibraryCall = 9, // a collective call of a library on the runtime (tdist::exchangeCallArgs)
  Exchange = 10,   // a data collective: arg0 bytes, arg1 root or operation, arg2 element size
};

// The API function the user called, for messages (not compared: aclshmem_malloc(n) and
// aclshmem_align(64, n) are the same operation).
enum class CollectiveApi : std::uint8_t {
  AclshmemMalloc, AclshmemCalloc, AclshmemAlign, AclshmemFree,
  AclshmemBarrierAll, AclshmemSyncAll, AclshmemBarrier, AclshmemTeamSync,
  AclshmemTeamSplitStrided, AclshmemTeamDestroy,
  Allocate, AllocateZeroed, Deallocate, CreateTensor, FreeTensor,
  LibraryCall,
  // OpenSHMEM's names (include/shmem.h)
  ShmemMalloc, ShmemCalloc, ShmemAlign, ShmemRealloc, ShmemFree,
  ShmemBarrierAll, ShmemSyncAll, ShmemBarrier, ShmemSync, ShmemTeamSync,
  ShmemTeamSplitStrided, ShmemTeamSplit2d, ShmemTeamDestroy,
  ShmemBroadcast, ShmemCollect, ShmemFcollect, ShmemAlltoall, ShmemAlltoalls, ShmemReduce,
  Reduce,  // tdist::shmem::reduce
  Fcollectmem,  // tdist::shmem::fcollectmem
};

// A team line: the sequence of the PE's last step, its operation, and the operation of the step
// before. A member is at most one step ahead of a waiter, so the line alone tells the waiter
// what the member did at the waiter's step, without reading the member's record.
constexpr std::int64_t lineValue(std::uint64_t sequence, CollectiveOp op, CollectiveOp previous) {
  return static_cast<std::int64_t>(sequence << 16 | static_cast<std::uint64_t>(previous) << 8 |
                                   static_cast<std::uint8_t>(op));
}
constexpr std::uint64_t lineSequence(std::int64_t line) { return static_cast<std::uint64_t>(line) >> 16; }
constexpr CollectiveOp lineOp(std::int64_t line) { return static_cast<CollectiveOp>(line & 0xff); }
constexpr CollectiveOp linePreviousOp(std::int64_t line) { return static_cast<CollectiveOp>((line >> 8) & 0xff); }
// Whether a member's line shows it at `sequence` or past it.
constexpr bool lineReached(std::int64_t line, std::uint64_t sequence) { return lineSequence(line) >= sequence; }
// The member's operation at `sequence`, from a line that reached it (at most one step past).
constexpr CollectiveOp lineOpAt(std::int64_t line, std::uint64_t sequence) {
  return lineSequence(line) == sequence ? lineOp(line) : linePreviousOp(line);
}

// What a PE says about the collective call it is in.
struct alignas(64) CollectiveRecord {
  std::uint64_t sequence;  // calls on this team so far, counting this one
  CollectiveOp op;
  CollectiveApi api;
  std::int32_t status;     // 0, or the ErrorCode this PE found locally
  std::uint64_t arg0;
  std::uint64_t arg1;
  std::uint64_t arg2;
};
static_assert(sizeof(CollectiveRecord) == 64);

struct ControlBlock {
  SignalLine team_line[kMaxTeams];         // lineValue of this PE's last collective step, per team
  SignalLine exit_request;                 // 0, or 1 + the status global_exit asked for
  // Double-buffered by sequence parity: a member can be at most one call ahead of the slowest
  // (it cannot complete call k+1 before every member wrote call k+1), so the record of call k
  // stays readable until every member is past it.
  CollectiveRecord records[kMaxTeams][2];
  // Data a small collective carries with its one step (agreeOnStep's `carried`), in the same
  // double buffer as the records.
  std::byte carried[kMaxTeams][2][kCarriedBytes];
};

constexpr std::size_t kControlBytes = (sizeof(ControlBlock) + 4095) / 4096 * 4096;

// A PE's slot of a channel segment: its ControlBlock (or the mirror of a PE of another node),
// then that PE's inbox: what a PE of another node delivers to this one with a collective's step
// (a reduction's contribution), at most kInboxBytes a step, in kInboxParts parts used in turn
// (HostChannel::takeInbox). Pages of an inbox that nothing delivers to are never touched. 128
// KiB: a one-step call through the inboxes took 0.43-0.72x a pulled one's time at 128 KiB across
// 2 nodes, and 0.73-1.25x at 256 KiB, where its copies outweigh the step it saves.
constexpr std::size_t kInboxBytes = std::size_t{128} << 10;
// Three parts: a call of several inbox steps sends step k+1 before it reads what step k brought
// (HostChannel::takeInbox says why three are enough).
constexpr int kInboxParts = 3;
// A part: a 64-byte header (the step that delivered it: its team and sequence; zeros, none yet),
// then its bytes.
struct InboxHeader {
  std::uint64_t sequence;
  std::uint64_t team;
};
constexpr std::size_t kInboxHeaderBytes = 64;
constexpr std::size_t kInboxPartBytes = kInboxHeaderBytes + kInboxBytes;
constexpr std::size_t kSlotBytes = kControlBytes + (kInboxParts * kInboxPartBytes + 4095) / 4096 * 4096;

}  // namespace tdist::runtime
