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

#include "tdist/wait_description.h"

namespace tdist::wait_board {

constexpr std::size_t kRecordBytes = 320;

struct alignas(64) Record {
  std::atomic<std::uint64_t> sequence;   // sequence lock over the fields after `observed`
  std::atomic<std::int64_t> observed;    // the value the wait saw last (wait.observed is the first)
  // Written under the sequence lock.
  std::uint32_t waiting;                 // 1 inside a published wait, 0 otherwise
  std::int64_t since_ns;                 // CLOCK_MONOTONIC when the wait began
  WaitDescription wait;
};
static_assert(sizeof(Record) == kRecordBytes);

// What a reader copies out of a record; wait.observed is the latest value.
struct Snapshot {
  std::uint64_t sequence = 0;
  bool waiting = false;
  std::int64_t since_ns = 0;
  WaitDescription wait;
};

// The writer's side: begin, write the fields, end.
inline void beginWrite(Record &record) {
  record.sequence.store(record.sequence.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
}
inline void endWrite(Record &record) {
  record.sequence.store(record.sequence.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

// The one publisher: the record now says that its PE waits as `wait` describes, since since_ns.
inline void publish(Record &record, const WaitDescription &wait, std::int64_t since_ns) {
  beginWrite(record);
  record.observed.store(wait.observed, std::memory_order_relaxed);
  record.waiting = 1;
  record.since_ns = since_ns;
  std::memcpy(&record.wait, &wait, sizeof wait);
  endWrite(record);
}

// The published wait goes on: only what it observes changes (the sequence stays, so a reader
// that sees the same value twice knows that nothing happened).
inline void refresh(Record &record, std::int64_t observed) {
  record.observed.store(observed, std::memory_order_relaxed);
}

// The published wait ended.
inline void clear(Record &record) {
  beginWrite(record);
  record.waiting = 0;
  endWrite(record);
}

// The reader's side: false when the record was being written (try again on the next look).
inline bool read(const Record &record, Snapshot &out) {
  const std::uint64_t before = record.sequence.load(std::memory_order_acquire);
  if (before & 1) return false;
  const std::int64_t observed = record.observed.load(std::memory_order_relaxed);
  out.waiting = record.waiting != 0;
  out.since_ns = record.since_ns;
  std::memcpy(&out.wait, &record.wait, sizeof out.wait);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (record.sequence.load(std::memory_order_relaxed) != before) return false;
  out.wait.observed = observed;
  out.wait.call[sizeof out.wait.call - 1] = out.wait.predicate[sizeof out.wait.predicate - 1] =
      out.wait.where[sizeof out.wait.where - 1] = '\0';
  out.sequence = before;
  return true;
}

}  // namespace tdist::wait_board
