// common/wait_board.h - the wait board: one record per PE, in a small shared segment that
// tdist-run creates for the job, in which each PE publishes the wait it is blocked in, so that
// tdist-run can tell a job in which no PE can make progress (tools/tdist-run/hang_check.h) long
// before any wait deadline.
//
// A PE is the only writer of its record (runtime/published_wait.cpp); tdist-run only reads, and
// never takes a lock: the descriptive fields are guarded by a sequence lock (`sequence` is odd
// while they are written), and `observed` is refreshed alone while the wait lasts. Every publish
// and every end of a published wait moves `sequence` on, so a reader that sees the same even
// sequence and the same observed value twice knows that this PE has done nothing in between.
//
// A wait that is satisfied at once never publishes; a wait publishes once it has polled for a
// while (its slow path), and clears `waiting` when it ends.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tdist::wait_board {

constexpr std::size_t kRecordBytes = 256;

struct alignas(64) Record {
  std::atomic<std::uint64_t> sequence;   // sequence lock over the fields after `observed`
  std::atomic<std::int64_t> observed;    // the value the wait saw last
  // Written under the sequence lock.
  std::uint32_t waiting;                 // 1 inside a published wait, 0 otherwise
  std::int32_t owner_pe;                 // PE that holds the polled word; -1 when unknown
  std::int32_t slot;                     // multi-slot waits: the slot that is not ready
  std::int32_t slots;
  std::int64_t expected;
  std::int64_t since_ns;                 // CLOCK_MONOTONIC when the wait began
  char call[48];                         // the API function that waits
  char predicate[64];                    // how observed is compared with expected; "" for a
                                         // blocking call without a value (where says what)
  char where[96];                        // where the word is, as the wait diagnostic says it
};
static_assert(sizeof(Record) == kRecordBytes);

// What a reader copies out of a record.
struct Snapshot {
  std::uint64_t sequence = 0;
  std::int64_t observed = 0;
  bool waiting = false;
  int owner_pe = -1;
  int slot = 0;
  int slots = 1;
  std::int64_t expected = 0;
  std::int64_t since_ns = 0;
  char call[sizeof Record::call] = "";
  char predicate[sizeof Record::predicate] = "";
  char where[sizeof Record::where] = "";
};

// Copies text into a fixed field, cut short and always terminated.
template <std::size_t N>
inline void copyText(char (&field)[N], const char *text) {
  std::size_t length = text != nullptr ? std::strlen(text) : 0;
  if (length >= N) length = N - 1;
  if (length != 0) std::memcpy(field, text, length);
  field[length] = '\0';
}

// The writer's side: begin, write the fields, end.
inline void beginWrite(Record &record) {
  record.sequence.store(record.sequence.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
}
inline void endWrite(Record &record) {
  record.sequence.store(record.sequence.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

// The reader's side: false when the record was being written (try again on the next look).
inline bool read(const Record &record, Snapshot &out) {
  const std::uint64_t before = record.sequence.load(std::memory_order_acquire);
  if (before & 1) return false;
  out.observed = record.observed.load(std::memory_order_relaxed);
  out.waiting = record.waiting != 0;
  out.owner_pe = record.owner_pe;
  out.slot = record.slot;
  out.slots = record.slots;
  out.expected = record.expected;
  out.since_ns = record.since_ns;
  std::memcpy(out.call, record.call, sizeof out.call);
  std::memcpy(out.predicate, record.predicate, sizeof out.predicate);
  std::memcpy(out.where, record.where, sizeof out.where);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (record.sequence.load(std::memory_order_relaxed) != before) return false;
  out.call[sizeof out.call - 1] = out.predicate[sizeof out.predicate - 1] = out.where[sizeof out.where - 1] = '\0';
  out.sequence = before;
  return true;
}

}  // namespace tdist::wait_board
