// tdist/device/state.h - what a CUDA kernel of a PE knows about the job: the device state that
// the cuda backend fills at init, and the record a device wait writes when its deadline passes.
//
// Plain C++ shared by host and device code. Every translation unit that includes
// tdist/device/*.cuh holds its own __constant__ copy of DeviceState, which the runtime fills at
// init (tdist/device/state.cuh registers it), so kernels need no -rdc and no extra argument.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tdist/wait_description.h"

namespace tdist::device {

// One signal slot per 64-byte line, as on every backend (DESIGN §4).
constexpr std::size_t kSignalLineBytes = 64;

// Teams a kernel can name: the same table as the host's (runtime/control_block.h kMaxTeams).
constexpr int kMaxDeviceTeams = 64;

struct TeamState {
  int start = 0;   // world PE of team PE 0
  int stride = 1;
  int size = 0;    // 0 = no such team
  int my_pe = -1;  // this PE's index in the team, -1 when not a member
};

// Written once, by the first device wait of this PE whose deadline passed, into host-mapped
// memory; the PE's watchdog prints it and ends the job with the wait status (97).
struct HangRecord {
  std::uint32_t written = 0;      // 0, then 1 once `wait` is written
  WaitDescription wait;           // on_device, with the symmetric offset of the word
};

// The device wait this PE's GPU is blocked in, in host-mapped memory: the first wait that has
// lasted a millisecond claims it (the word after hang_claim) and writes it, refreshes
// wait.observed and wait.slot while it waits, and clears `waiting` when it ends. The PE's watchdog
// forwards it to the PE's record on the job's wait board (common/wait_board.h) unless a host wait
// holds the record, so that tdist-run's hang check sees device waits as it sees host ones.
struct WaitNote {
  std::uint32_t sequence = 0;     // odd while `wait` (but observed and slot) is written
  std::uint32_t waiting = 0;      // 1 while a device wait is noted
  WaitDescription wait;
};

// Where a PE's internal words live: after the user heap in its own VMM segment, so that a peer
// reaches them by the same arithmetic as user data.
struct InternalLayout {
  std::size_t barrier_slots = 0;   // offset from the PE's segment base: kMaxDeviceTeams lines
  std::size_t barrier_epochs = 0;  // this PE's epoch per team (only this PE touches them)
  std::size_t hang_claim = 0;      // one uint32: the device wait that CASes it 0 -> 1 writes `hang`;
                                   // the next uint32 is the claim of the wait note
  std::size_t bytes = 0;           // total internal bytes
};

// One event that a kernel recorded (tdist/device/trace.cuh) while the job is traced
// (docs/TRACING.md). The cuda backend turns a PE's events into its "gpu" trace file at finalize,
// on the host's clock. kind is a tdist::trace_format::Kind.
struct TraceEvent {
  std::uint64_t t_ns = 0;      // %globaltimer
  std::uint64_t offset = 0;    // symmetric offset of the slot or destination, ~0 when none
  std::int64_t value = 0;      // expected, observed, the word's value after a notify, or bytes
  std::uint16_t kind = 0;
  std::uint16_t flags = 0;     // a transfer's kind; 1 on a wait's end when it polled more than once
  std::int32_t pe = -1;        // slot owner or target PE
  std::int32_t aux = 0;        // a wait's comparison
  std::uint32_t block = 0;     // the recording block, linear in its grid
  std::uint32_t thread = 0;    // the recording thread, linear in its block
};
static_assert(sizeof(TraceEvent) == 48, "the device trace layout");

// The PE's device event buffer (device memory): events[0 .. min(count, capacity)); count keeps
// counting past capacity, so count - capacity events were dropped.
struct TraceBuffer {
  unsigned long long count = 0;
  unsigned long long capacity = 0;
  TraceEvent *events = nullptr;
};

struct DeviceState {
  int my_pe = 0;
  int n_pes = 0;
  std::byte *heap_base = nullptr;  // PE 0's segment in this process; PE p's = heap_base + p * stride
  std::size_t stride = 0;          // bytes between two PEs' segments
  std::size_t heap_size = 0;       // the user part of each segment: symmetric offsets are below it
  InternalLayout internal{};       // offsets within each segment, at or past heap_size
  std::uint64_t wait_timeout_ns = 0;  // every device wait's deadline
  // 1 when every PE of the job runs on this GPU (several PEs under MPS): the primitives then
  // synchronise at GPU scope (tdist/device/ptx.cuh), else at system scope.
  std::int32_t one_device = 0;
  HangRecord *hang = nullptr;         // host-mapped: the first expired wait's record
  WaitNote *wait_note = nullptr;      // host-mapped: the wait the GPU is blocked in
  const volatile std::int32_t *abort_flag = nullptr;  // host-mapped: non-zero = the job ends
  const TeamState *teams = nullptr;   // device memory: kMaxDeviceTeams entries, [0] = world
  std::uint64_t generation = 0;       // non-zero once filled; changes at every init
  TraceBuffer *trace = nullptr;       // device memory while the job is traced; nullptr: not traced
};

}  // namespace tdist::device
