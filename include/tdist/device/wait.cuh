// tdist/device/wait.cuh - the one device wait loop, behind wait (the dl primitive),
// signal_wait_until, wait_until and the barriers.
//
// A GPU wait must never hang silently: a peer that died, or a kernel whose signal never comes,
// would otherwise keep the GPU busy forever and the job would never end. So every wait spins
// with acquire loads at the job's scope (ptx.cuh), and every 256 polls (reading the clock costs
// more than a poll) checks the GPU's global timer against one deadline for the whole call and the host-mapped
// abort flag. Past the deadline the first expired wait of the PE claims the hang record, fills
// it, and traps; the PE's host watchdog prints the record as the cpu backend prints its wait
// diagnostic and ends the job with status 97. An abort request traps without a record (the job
// is already ending, with the status it was given). A wait that has lasted a millisecond also
// notes itself in the PE's host-mapped wait note, for tdist-run's hang check (state.h, WaitNote).
//
// After about 20 us of pure spinning (the latency that matters for small messages), the loop
// sleeps between polls with a doubling __nanosleep capped at about a microsecond, so that waiting
// warps leave issue slots and memory bandwidth to the compute warps they overlap with.
// wait_timeout_ns == 0 (a state never published) falls back to the cpu backend's default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tdist/device/ptx.cuh"
#include "tdist/device/state.cuh"
#include "tdist/device/trace.cuh"
#include "tdist/shmem.h"

namespace tdist::device::detail {

struct WaitPolicy {
  static constexpr std::uint32_t kPollsPerCheck = 256;  // a power of two
  static constexpr std::uint64_t kSpinNs = 20'000;       // pure spinning first
  static constexpr std::uint32_t kFirstSleepNs = 32;
  static constexpr std::uint32_t kMaxSleepNs = 1'024;
  static constexpr std::uint64_t kDefaultTimeoutNs = 120'000'000'000;  // the cpu backend's default
  static constexpr std::uint64_t kNoteAfterNs = 1'000'000;  // a wait this old notes itself (WaitNote)
  static constexpr std::uint64_t kLoserGraceNs = 1'000'000'000;  // see expire
};

// Who a wait is, among the threads that wait on the same words together (a program's lanes):
// the leader keeps the wait's books (trace, wait note, deadline, hang record), followers only
// poll, with the leader's pacing, so that a warp's lanes poll as one instruction. A follower
// never expires: its leader does, on the same loads.
enum class WaitRole { Leader, Follower };

// tdist/wait_description.h's test (the host's too), in shmem::Cmp's terms.
template <class T>
__device__ __forceinline__ bool satisfies(T observed, shmem::Cmp cmp, T value) {
  return waitSatisfied(observed, static_cast<std::int32_t>(cmp), value);
}

// The record's expected/observed fields: the value as the cpu diagnostic prints it.
template <class T>
__device__ __forceinline__ std::int64_t record_value(T value) {
  return static_cast<std::int64_t>(value);
}

// What a wait is for, handed only to the cold path.
struct WaitSite {
  const char *call;       // the device function that waits
  shmem::Cmp predicate;
  std::int64_t expected;
  int slots;              // how many words the call waits on
};

// The description the hang record and the wait note carry: the wait, its word, and where it runs.
// Volatile: the host reads these bytes while the kernel is still alive.
__device__ __forceinline__ void describe_wait(volatile WaitDescription *wait, const WaitSite &site,
                                              const void *address, std::int64_t observed, int slot) {
  HeapLocation where = locate(address);
  wait->pe = state().my_pe;
  wait->owner_pe = where.owner_pe;
  wait->offset = where.offset;
  wait->expected = site.expected;
  wait->observed = observed;
  wait->on_device = 1;
  wait->block[0] = blockIdx.x;
  wait->block[1] = blockIdx.y;
  wait->block[2] = blockIdx.z;
  wait->thread[0] = threadIdx.x;
  wait->thread[1] = threadIdx.y;
  wait->thread[2] = threadIdx.z;
  wait->slot = slot;
  wait->slots = site.slots;
  copyWaitText(wait->call, site.call);
  copyWaitText(wait->predicate, waitPredicateName(static_cast<std::int32_t>(site.predicate)));
  wait->where[0] = '\0';  // the place is the symmetric offset
}

// Fills the PE's hang record (if this wait wins the claim) and ends the kernel. Kept out of line:
// it runs once per job at most, and inlining it would cost every waiting kernel registers. The
// site comes as its fields, in registers: a reference would make every wait build it in local
// memory, and a struct by value is a byval pointer to local memory for clang (the bitcode), which
// the NVPTX back end of Triton's LLVM cannot lower with 32-bit local pointers.
[[noreturn]] inline __device__ __noinline__ void expire(const char *call, shmem::Cmp predicate,
                                                         std::int64_t expected, int slots, const void *address,
                                                         std::int64_t observed, int slot) {
  const WaitSite site{call, predicate, expected, slots};
  const DeviceState &s = state();
  if (s.abort_flag != nullptr && *s.abort_flag != 0) __trap();
  // hang_claim lies past the user heap, so 0 means the internal layout was never published.
  if (s.hang != nullptr && s.heap_base != nullptr && s.internal.hang_claim != 0) {
    auto *claim = reinterpret_cast<std::uint32_t *>(own_segment() + s.internal.hang_claim);
    volatile HangRecord *record = s.hang;
    if (ptx::atomic_compare_exchange<std::uint32_t>(claim, 0u, 1u) == 0u) {
      describe_wait(&record->wait, site, address, observed, slot);
      // Every field before `written`, and `written` before the trap tears the context down.
      __threadfence_system();
      record->written = 1;
      __threadfence_system();
    } else {
      // Another wait claimed the record: a trap now would tear the context down before that wait
      // has written it (threads of one warp expire together). Its trap ends this one too; the
      // bound only covers a claim whose owner never writes (a record left over from a reset).
      const std::uint64_t since = ptx::global_timer();
      while (record->written == 0 && ptx::global_timer() - since < WaitPolicy::kLoserGraceNs) __nanosleep(1'024);
    }
  }
  __trap();
}

// Claims the PE's wait note for this wait and writes it; false when another wait holds it.
// Out of line, like expire (and for the same reasons given its site as fields): it runs once per
// wait that lasted, never on the fast path.
inline __device__ __noinline__ bool note_wait(const char *call, shmem::Cmp predicate, std::int64_t expected,
                                              int slots, const void *address, std::int64_t observed, int slot) {
  const WaitSite site{call, predicate, expected, slots};
  const DeviceState &s = state();
  if (s.wait_note == nullptr || s.heap_base == nullptr || s.internal.hang_claim == 0) return false;
  auto *claim = reinterpret_cast<std::uint32_t *>(own_segment() + s.internal.hang_claim) + 1;
  if (ptx::atomic_compare_exchange<std::uint32_t>(claim, 0u, 1u) != 0u) return false;
  volatile WaitNote *note = s.wait_note;
  note->sequence = note->sequence + 1;
  __threadfence_system();
  note->waiting = 1;
  describe_wait(&note->wait, site, address, observed, slot);
  __threadfence_system();
  note->sequence = note->sequence + 1;
  __threadfence_system();
  return true;
}

// Ends the noted wait: clears `waiting`, then gives the note back.
inline __device__ __noinline__ void end_noted_wait() {
  const DeviceState &s = state();
  volatile WaitNote *note = s.wait_note;
  note->sequence = note->sequence + 1;
  __threadfence_system();
  note->waiting = 0;
  __threadfence_system();
  note->sequence = note->sequence + 1;
  __threadfence_system();
  auto *claim = reinterpret_cast<std::uint32_t *>(own_segment() + s.internal.hang_claim) + 1;
  ptx::atomic_exchange<std::uint32_t>(claim, 0u);
}

// The pacing and deadline of one wait call; started by its first unsatisfied poll.
class WaitLoop {
 public:
  // After the call's last poll was satisfied.
  __device__ __forceinline__ void finish() {
    if (noted_) end_noted_wait();
  }

  // After a poll that was not satisfied.
  __device__ __forceinline__ void pause(const WaitSite &site, const void *address, std::int64_t observed,
                                        int slot, WaitRole role = WaitRole::Leader) {
    if (!timing_) {
      timing_ = true;
      started_ns_ = ptx::global_timer();
    }
    if ((++polls_ & (WaitPolicy::kPollsPerCheck - 1)) == 0) check(site, address, observed, slot, role);
    if (sleep_ns_ != 0) {
      __nanosleep(sleep_ns_);
      sleep_ns_ = sleep_ns_ * 2 < WaitPolicy::kMaxSleepNs ? sleep_ns_ * 2 : WaitPolicy::kMaxSleepNs;
    }
  }

 private:
  __device__ __forceinline__ void check(const WaitSite &site, const void *address, std::int64_t observed,
                                        int slot, WaitRole role) {
    const DeviceState &s = state();
    if (s.abort_flag != nullptr && *s.abort_flag != 0) __trap();
    std::uint64_t timeout = s.wait_timeout_ns != 0 ? s.wait_timeout_ns : WaitPolicy::kDefaultTimeoutNs;
    std::uint64_t waited = ptx::global_timer() - started_ns_;
    if (sleep_ns_ == 0 && waited >= WaitPolicy::kSpinNs) sleep_ns_ = WaitPolicy::kFirstSleepNs;
    if (role == WaitRole::Follower) return;
    if (waited >= timeout) expire(site.call, site.predicate, site.expected, site.slots, address, observed, slot);
    if (noted_) {
      volatile WaitNote *note = s.wait_note;
      note->wait.observed = observed;
      note->wait.slot = slot;
    } else if (!note_tried_ && waited >= WaitPolicy::kNoteAfterNs) {
      note_tried_ = true;
      noted_ = note_wait(site.call, site.predicate, site.expected, site.slots, address, observed, slot);
    }
  }

  std::uint64_t started_ns_ = 0;
  std::uint32_t polls_ = 0;
  std::uint32_t sleep_ns_ = 0;
  bool timing_ = false;
  bool note_tried_ = false;
  bool noted_ = false;
};

// Waits until each of `count` words, `stride_bytes` apart from `first`, satisfies cmp value, with
// an acquire (or, with Poll::Relaxed, relaxed) load at the job's scope, in order, under one deadline for the whole call; calls
// on_ready(value) with the value that satisfied each word. The words may be this PE's or a peer's
// (barriers poll their members' slots through the peer mapping).
// How a wait polls: Acquire (the default: what the word publishes is read after the wait) or
// Relaxed (the word publishes nothing the waiter reads through it; see ptx::load_relaxed).
enum class Poll { Acquire, Relaxed };

template <Poll P, class T>
__device__ __forceinline__ T poll(const T *address) {
  if constexpr (P == Poll::Relaxed) {
    return ptx::load_relaxed(address, scope());
  } else {
    return ptx::load_acquire(address, scope());
  }
}

template <class T, class OnReady, Poll P = Poll::Acquire>
__device__ __forceinline__ void wait_words(const T *first, int count, std::ptrdiff_t stride_bytes,
                                           shmem::Cmp cmp, T value, const char *call, OnReady &&on_ready,
                                           WaitRole role = WaitRole::Leader) {
  WaitLoop loop;
  const bool traced = role == WaitRole::Leader && tracing();
  if (traced) [[unlikely]]
    trace_record(TraceKind::WaitBegin, first, -1, record_value(value), static_cast<std::int32_t>(cmp), 0);
  const T *address = first;
  T seen{};
  bool polled = false;
  for (int slot = 0; slot < count; ++slot) {
    address = reinterpret_cast<const T *>(reinterpret_cast<const std::byte *>(first) + slot * stride_bytes);
    seen = poll<P>(address);
    while (!satisfies(seen, cmp, value)) {
      polled = true;
      loop.pause(WaitSite{call, cmp, record_value(value), count}, address, record_value(seen), slot, role);
      seen = poll<P>(address);
    }
    on_ready(seen);
  }
  loop.finish();
  if (traced) [[unlikely]]
    trace_record(TraceKind::WaitEnd, address, -1, record_value(seen), static_cast<std::int32_t>(cmp), polled ? 1 : 0);
}

// One word; returns the value that satisfied the predicate.
template <class T, Poll P = Poll::Acquire>
__device__ __forceinline__ T wait_word(const T *address, shmem::Cmp cmp, T value, const char *call,
                                       WaitRole role = WaitRole::Leader) {
  T ready{};
  auto on_ready = [&](T seen) { ready = seen; };
  wait_words<T, decltype(on_ready) &, P>(address, 1, 0, cmp, value, call, on_ready, role);
  return ready;
}

}  // namespace tdist::device::detail
