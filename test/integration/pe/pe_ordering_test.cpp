// Ordering contracts, each over hundreds of rounds round a ring of PEs: put-with-signal delivers
// its data before its signal (blocking and non-blocking, SET and ADD, every signal width), fence
// orders a put before the next put to the same PE, quiet completes non-blocking puts and gets.
//
// Every round moves one of kSizes bytes, on both sides of cache-line and page boundaries and up
// to megabytes, to one of kOffsets, and the receiver checks them as soon as the signal says
// that they are there. Beforehand it fills its inbox with bytes that each differ from what the
// round brings, so a byte that comes late, or not at all, fails; guard bytes on either side
// catch a transfer that writes too much. A copy of megabytes takes a millisecond or more, long
// enough for the receiver to look while it is under way even when both share one core. In the
// suite's runs with --engines mte,sdma and sdma, the copy engine carries these transfers.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "aclshmem.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/heap_access.h"
#include "test/integration/pe/ring.h"

namespace tdist {
namespace {

namespace sh = tdist::shmem;

using testing::next;
using testing::prev;

constexpr std::size_t kSizes[] = {1,    8,    63,        64,           65,          4095,
                                  4096, 4097, 3 * 4096 + 1, 64 * 1024 + 8, (1 << 20) + 3, (8 << 20) - 5};
constexpr std::size_t kMaxBytes = (8 << 20) - 5;
constexpr std::size_t kOffsets[] = {0, 1, 60};  // aligned, odd, across a cache line
constexpr std::size_t kGuard = 64;              // bytes on either side that no transfer may touch
constexpr std::uint8_t kGuardByte = 0xa5;
constexpr std::size_t kBufferBytes = kGuard + 64 + kMaxBytes + kGuard;
// Every size at every offset, with SET and ADD, four times.
constexpr std::int64_t kRounds = 4 * 2 * std::size(kSizes) * std::size(kOffsets);

struct Round {
  std::int64_t number;
  std::size_t bytes;
  std::size_t offset;         // in the inbox
  std::size_t source_offset;  // in the buffer that a get reads
  sh::SignalOp op;            // SET to the round's number, or ADD 1 to the previous round's
  template <class S>
  S signal() const {
    return static_cast<S>(op == sh::SignalOp::Set ? number : 1);
  }
};

Round round(std::int64_t number) {
  const std::size_t sizes = std::size(kSizes), offsets = std::size(kOffsets);
  const std::size_t turn = static_cast<std::size_t>(number) / sizes;
  return {number, kSizes[number % sizes], kOffsets[turn / 2 % offsets], kOffsets[(turn / 2 + 1) % offsets],
          turn % 2 == 0 ? sh::SignalOp::Set : sh::SignalOp::Add};
}

std::string describe(const Round &r) {
  return "round " + std::to_string(r.number) + " (" + std::to_string(r.bytes) + " bytes at offset " +
         std::to_string(r.offset) + (r.op == sh::SignalOp::Set ? ", SET)" : ", ADD)");
}

// What the PEs send: windows of one fixed random sequence in which no byte equals the next, so
// that the window one byte further on differs from a window in every byte. Each round and PE
// has its own window, at an alignment that changes from round to round.
class Pattern {
 public:
  static constexpr std::size_t kSpan = 65521;  // windows start in [0, kSpan)

  Pattern() : bytes_(kMaxBytes + kSpan + 1) {
    std::uint32_t x = 2463534242u;  // xorshift32
    std::uint8_t before = 0;
    for (std::uint8_t &b : bytes_) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      b = static_cast<std::uint8_t>(x >> 24);
      if (b == before) b ^= 0x80;
      before = b;
    }
  }
  const std::uint8_t *sent(std::int64_t round, int src) const {
    return bytes_.data() + static_cast<std::size_t>(round * 7919 + src * 104729) % kSpan;
  }
  // Differs from sent(round, src) in each of its bytes.
  const std::uint8_t *notSent(std::int64_t round, int src) const { return sent(round, src) + 1; }

 private:
  std::vector<std::uint8_t> bytes_;
};

const Pattern &pattern() {
  static const Pattern p;
  return p;
}

// The C API's wait for each signal width.
std::int32_t waitForSignal(std::int32_t *sig, std::int32_t value) {
  return aclshmem_signal_wait_until(sig, ACLSHMEM_CMP_EQ, value);
}
std::int64_t waitForSignal(std::int64_t *sig, std::int64_t value) {
  return aclshmemx_signal_wait_until_i64(sig, ACLSHMEM_CMP_EQ, value);
}
std::uint64_t waitForSignal(std::uint64_t *sig, std::uint64_t value) {
  return aclshmemx_signal64_wait_until(sig, ACLSHMEM_CMP_EQ, value);
}

// Where each round's data lands: at the round's offset in a buffer of kBufferBytes, on this PE's
// heap or in private memory. A heap inbox is written and read through the API (the host may not
// load the heap on every backend): each round's window, guards included, in one copy.
class Inbox {
 public:
  explicit Inbox(std::uint8_t *buffer) : buffer_(buffer), on_heap_(testing::onHeap(buffer)) {}

  std::uint8_t *at(const Round &r) const { return buffer_ + kGuard + r.offset; }

  // Before anyone may send round r from src here: no byte of it is what src will send.
  void prepare(const Round &r, int src) const {
    window_.assign(kGuard + r.bytes + kGuard, kGuardByte);
    std::memcpy(window_.data() + kGuard, pattern().notSent(r.number, src), r.bytes);
    if (on_heap_) testing::heapWriteBytes(at(r) - kGuard, window_.data(), window_.size());
    else std::memcpy(at(r) - kGuard, window_.data(), window_.size());
  }

  // "" if round r from src is all there and nothing around it changed, else what is wrong.
  std::string check(const Round &r, int src) const {
    window_.resize(kGuard + r.bytes + kGuard);
    if (on_heap_) testing::heapReadBytes(window_.data(), at(r) - kGuard, window_.size());
    else std::memcpy(window_.data(), at(r) - kGuard, window_.size());
    const std::uint8_t *data = window_.data() + kGuard;
    const std::uint8_t *sent = pattern().sent(r.number, src);
    // The end first, byte by byte: a forward copy writes it last.
    const std::size_t tail = r.bytes < 64 ? r.bytes : 64;
    for (std::size_t i = r.bytes; i-- > r.bytes - tail;) {
      if (data[i] != sent[i]) return wrong(r, "byte " + std::to_string(i), data[i], sent[i]);
    }
    if (std::memcmp(data, sent, r.bytes) != 0) {
      for (std::size_t i = r.bytes; i-- > 0;) {
        if (data[i] != sent[i]) return wrong(r, "byte " + std::to_string(i), data[i], sent[i]);
      }
      return describe(r) + ": some bytes arrived after the signal";
    }
    for (std::size_t i = 0; i < kGuard; ++i) {
      const std::uint8_t after = data[r.bytes + i], before = *(data - 1 - i);
      if (after != kGuardByte) return wrong(r, "guard byte " + std::to_string(i) + " after the data", after, kGuardByte);
      if (before != kGuardByte) return wrong(r, "guard byte " + std::to_string(i) + " before the data", before, kGuardByte);
    }
    return "";
  }

 private:
  static std::string wrong(const Round &r, const std::string &what, std::uint8_t seen, std::uint8_t expected) {
    char values[64];
    std::snprintf(values, sizeof values, " is 0x%02x, expected 0x%02x", seen, expected);
    return describe(r) + ": " + what + values;
  }

  std::uint8_t *buffer_;
  bool on_heap_;
  mutable std::vector<std::uint8_t> window_;  // the round's bytes with their guards, in private memory
};

// Round after round, every PE sends to the next PE on the ring with deliver(round, dest,
// source, signal, pe), which must have the round's data at pe before it sets pe's signal to
// the round's number; the receiver checks the data as soon as it sees that number, then tells
// the sender that it may send the next round.
template <class S, class Deliver>
void ringOfRounds(Deliver deliver) {
  auto *buffer = static_cast<std::uint8_t *>(allocate(kBufferBytes));
  auto *signal = static_cast<S *>(allocateZeroed(1, sizeof(S)));
  auto *checked = static_cast<std::int64_t *>(allocateZeroed(1, sizeof(std::int64_t)));  // by next(me)
  const Inbox inbox(buffer);
  const int me = sh::my_pe();
  inbox.prepare(round(1), prev(me));
  sh::barrier_all();
  for (std::int64_t number = 1; number <= kRounds; ++number) {
    const Round r = round(number);
    sh::signal_wait_until<std::int64_t>(checked, sh::Cmp::GE, number - 1);
    deliver(r, inbox.at(r), pattern().sent(number, me), signal, next(me));
    waitForSignal(signal, static_cast<S>(number));
    ASSERT_EQ(inbox.check(r, prev(me)), "") << "from PE " << prev(me);
    inbox.prepare(round(number + 1), prev(me));
    sh::signal_op<std::int64_t>(checked, number, sh::SignalOp::Set, prev(me));
  }
  sh::quiet();
  sh::barrier_all();
  deallocate(checked);
  deallocate(signal);
  deallocate(buffer);
}

TEST(Ordering, PutSignalDeliversItsDataFirst) {
  ringOfRounds<std::int32_t>([](const Round &r, void *dest, const void *source, std::int32_t *sig, int pe) {
    aclshmem_putmem_signal(dest, source, r.bytes, sig, r.signal<std::int32_t>(), static_cast<int>(r.op), pe);
  });
  ringOfRounds<std::int64_t>([](const Round &r, void *dest, const void *source, std::int64_t *sig, int pe) {
    sh::putmem_signal(dest, source, r.bytes, sig, r.signal<std::int64_t>(), r.op, pe);
  });
  ringOfRounds<std::uint64_t>([](const Round &r, void *dest, const void *source, std::uint64_t *sig, int pe) {
    aclshmemx_putmem_signal64(dest, source, r.bytes, sig, r.signal<std::uint64_t>(), static_cast<int>(r.op), pe);
  });
}

// (The source, a window of the pattern, never changes: no quiet is needed before reusing it.)
TEST(Ordering, PutSignalNbiDeliversItsDataFirst) {
  ringOfRounds<std::int32_t>([](const Round &r, void *dest, const void *source, std::int32_t *sig, int pe) {
    aclshmem_putmem_signal_nbi(dest, source, r.bytes, sig, r.signal<std::int32_t>(), static_cast<int>(r.op), pe);
  });
  ringOfRounds<std::int64_t>([](const Round &r, void *dest, const void *source, std::int64_t *sig, int pe) {
    sh::putmem_signal_nbi(dest, source, r.bytes, sig, r.signal<std::int64_t>(), r.op, pe);
  });
  ringOfRounds<std::uint64_t>([](const Round &r, void *dest, const void *source, std::uint64_t *sig, int pe) {
    sh::putmem_signal_nbi(dest, source, r.bytes, sig, r.signal<std::uint64_t>(), r.op, pe);
  });
}

// The flag is a point put, a release store: SET only.
TEST(Ordering, FenceOrdersAPutBeforeTheNextPut) {
  ringOfRounds<std::int64_t>([](const Round &r, void *dest, const void *source, std::int64_t *flag, int pe) {
    aclshmem_putmem_nbi(dest, source, r.bytes, pe);
    aclshmem_fence();
    aclshmem_int64_p(flag, r.number, pe);
  });
}

TEST(Ordering, QuietCompletesNonBlockingPuts) {
  ringOfRounds<std::int32_t>([](const Round &r, void *dest, const void *source, std::int32_t *sig, int pe) {
    sh::putmem_nbi(dest, source, r.bytes, pe);
    sh::quiet();
    sh::signal_op(sig, r.signal<std::int32_t>(), r.op, pe);
  });
}

// Every PE exposes round after round in a symmetric buffer; the next PE gets it with getmem_nbi
// into private memory and checks it after quiet.
TEST(Ordering, QuietCompletesNonBlockingGets) {
  auto *exposed = static_cast<std::uint8_t *>(allocate(64 + kMaxBytes));
  auto *ready = static_cast<std::int64_t *>(allocateZeroed(1, sizeof(std::int64_t)));    // by prev(me)
  auto *checked = static_cast<std::int64_t *>(allocateZeroed(1, sizeof(std::int64_t)));  // by next(me)
  std::vector<std::uint8_t> buffer(kBufferBytes);
  const Inbox inbox(buffer.data());
  const int me = sh::my_pe();
  inbox.prepare(round(1), prev(me));
  sh::barrier_all();
  for (std::int64_t number = 1; number <= kRounds; ++number) {
    const Round r = round(number);
    sh::signal_wait_until<std::int64_t>(checked, sh::Cmp::GE, number - 1);
    testing::heapWriteBytes(exposed + r.source_offset, pattern().sent(number, me), r.bytes);
    sh::signal_op<std::int64_t>(ready, number, sh::SignalOp::Set, next(me));
    sh::signal_wait_until<std::int64_t>(ready, sh::Cmp::EQ, number);
    aclshmem_getmem_nbi(inbox.at(r), exposed + r.source_offset, r.bytes, prev(me));
    aclshmem_quiet();
    ASSERT_EQ(inbox.check(r, prev(me)), "") << "from PE " << prev(me);
    inbox.prepare(round(number + 1), prev(me));
    sh::signal_op<std::int64_t>(checked, number, sh::SignalOp::Set, prev(me));
  }
  sh::barrier_all();
  deallocate(checked);
  deallocate(ready);
  deallocate(exposed);
}

// More non-blocking puts with signals than the network engine keeps in flight before it waits
// for them all (4,096): every one lands, each ADD counted once, and quiet completes them.
TEST(Ordering, ThousandsOfNonBlockingPutsWithSignalsLand) {
  constexpr int kPuts = 5000;
  const int me = sh::my_pe();
  auto *slots = static_cast<std::int64_t *>(allocateZeroed(kPuts, sizeof(std::int64_t)));
  auto *values = static_cast<std::int64_t *>(allocateZeroed(kPuts, sizeof(std::int64_t)));
  auto *count = static_cast<std::uint64_t *>(allocateZeroed(1, sizeof(std::uint64_t)));
  std::vector<std::int64_t> mine(kPuts);
  for (int i = 0; i < kPuts; ++i) mine[i] = 1000000LL * me + i;
  testing::heapWriteBytes(values, mine.data(), kPuts * sizeof(std::int64_t));
  sh::barrier_all();
  for (int i = 0; i < kPuts; ++i) {
    sh::putmem_signal_nbi<std::uint64_t>(slots + i, values + i, sizeof(std::int64_t), count, 1, sh::SignalOp::Add,
                                         next(me));
  }
  sh::quiet();
  sh::signal_wait_until<std::uint64_t>(count, sh::Cmp::GE, kPuts);
  EXPECT_EQ(testing::heapRead(count), std::uint64_t{kPuts});
  const std::vector<std::int64_t> landed = testing::heapReadArray(slots, kPuts);
  for (int i = 0; i < kPuts; ++i) {
    ASSERT_EQ(landed[i], 1000000LL * prev(me) + i) << "put " << i << " from PE " << prev(me);
  }
  sh::barrier_all();
  deallocate(count);
  deallocate(values);
  deallocate(slots);
}

// Quiet completes puts with signals for every PE that looks, not only for their target: PE 0
// sends megabytes in puts with signals to the last PE, quiets, then tells the PE before it, which
// reads them all from the last PE's copy (at 2 nodes of 2 PEs: a PE of the target's node, which
// loads the target's copy where it is, so nothing of the target's worker runs before it looks).
// Across nodes the puts travel as messages that the target's worker applies, and quiet returns
// only once the target says that it applied them; a quiet that waited for the sends alone
// returned while megabytes were still in the sockets and the target's queue.
TEST(Ordering, QuietCompletesPutsWithSignalsForEveryPe) {
  const int n = sh::n_pes(), me = sh::my_pe();
  if (n < 3) GTEST_SKIP() << "needs a writer, a target and a third PE that reads";
  constexpr std::size_t kChunk = 16 << 10, kChunks = 500, kBytes = kChunk * kChunks;  // within the pattern
  const int writer = 0, reader = n - 2, target = n - 1;
  auto *data = static_cast<std::uint8_t *>(allocate(kBytes));
  auto *arrived = static_cast<std::uint64_t *>(allocateZeroed(1, sizeof(std::uint64_t)));
  auto *told = static_cast<std::int64_t *>(allocateZeroed(1, sizeof(std::int64_t)));
  if (me == target) testing::heapWriteBytes(data, pattern().notSent(1, writer), kBytes);
  sh::barrier_all();
  if (me == writer) {
    const std::uint8_t *source = pattern().sent(1, writer);
    for (std::size_t c = 0; c < kChunks; ++c) {
      sh::putmem_signal_nbi<std::uint64_t>(data + c * kChunk, source + c * kChunk, kChunk, arrived, 1,
                                           sh::SignalOp::Add, target);
    }
    sh::quiet();
    sh::signal_op<std::int64_t>(told, 1, sh::SignalOp::Set, reader);
  } else if (me == reader) {
    sh::signal_wait_until<std::int64_t>(told, sh::Cmp::EQ, 1);
    std::vector<std::uint8_t> seen(kBytes);
    for (std::size_t c = kChunks; c-- > 0;) {  // the last sent first
      sh::getmem(seen.data() + c * kChunk, data + c * kChunk, kChunk, target);
    }
    const std::uint8_t *expected = pattern().sent(1, writer);
    for (std::size_t at = 0; at < kBytes; ++at) {
      ASSERT_EQ(seen[at], expected[at]) << "byte " << at << " (chunk " << at / kChunk << ") of PE " << target
                                        << "'s copy after PE " << writer << "'s quiet";
    }
  }
  sh::barrier_all();
  if (me == target) {
    EXPECT_EQ(testing::heapRead(arrived), std::uint64_t{kChunks});
  }
  sh::barrier_all();
  deallocate(told);
  deallocate(arrived);
  deallocate(data);
}

// A point put or a signal (p, signal_op) may be delivered as late as the next quiet (across
// nodes it is a message), but an atomic or a get of the same PE's word after it sees it, with no
// quiet between; and atomic adds are there for the fetch after them.
TEST(Ordering, AFetchSeesThisPesEarlierStoresAndAdds) {
  constexpr int kAdds = 1000;
  const int me = sh::my_pe();
  auto *count = static_cast<std::int64_t *>(allocateZeroed(1, sizeof(std::int64_t)));
  auto *word = static_cast<std::int64_t *>(allocateZeroed(1, sizeof(std::int64_t)));
  auto *sig = static_cast<std::uint64_t *>(allocateZeroed(1, sizeof(std::uint64_t)));
  sh::barrier_all();
  for (int i = 1; i <= kAdds; ++i) sh::atomic_add<std::int64_t>(count, 1, next(me));
  EXPECT_EQ(sh::atomic_fetch<std::int64_t>(count, next(me)), kAdds) << "on PE " << next(me);
  for (std::int64_t v = 1; v <= 64; ++v) {
    sh::p<std::int64_t>(word, 1000 * me + v, next(me));
    ASSERT_EQ(sh::g<std::int64_t>(word, next(me)), 1000 * me + v) << "on PE " << next(me);
    sh::signal_op<std::uint64_t>(sig, 2, sh::SignalOp::Add, next(me));
    std::uint64_t seen = 0;
    sh::getmem(&seen, sig, sizeof seen, next(me));
    ASSERT_EQ(seen, static_cast<std::uint64_t>(2 * v)) << "on PE " << next(me);
  }
  sh::barrier_all();
  deallocate(sig);
  deallocate(word);
  deallocate(count);
}

}  // namespace
}  // namespace tdist
