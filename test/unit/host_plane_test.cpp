// The host calls on a backend whose heap the host cannot load: they must reach the heap through
// the backend's submit and word_op only, with the results and the errors of the cpu path.
//
// The fake backend's heap is what the host sees as a reserved range without access (PROT_NONE):
// a host load or store of a heap address faults, so a call that is not routed cannot pass. Its
// submit and word_op translate heap addresses to the memory behind it and count the calls. The
// same tests run on a fake that lets the host load the heap (the cpu path, no backend calls), so
// both paths are held to the same results and the same messages.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "backends/cpu/cpu_state.h"
#include "runtime/backend.h"
#include "runtime/runtime_state.h"
#include "tdist/dl.h"
#include "tdist/exit_codes.h"
#include "tdist/shmem.h"
#include "tdist/template_library.h"

namespace tdist {
namespace {

using runtime::WordOp;
using shmem::Cmp;
using shmem::SignalOp;

constexpr int kPes = 2;
constexpr std::size_t kSegmentBytes = std::size_t{1} << 16;

// The heap of the fake backend, and what its operations did.
struct FakeDevice {
  std::byte *view = nullptr;    // the heap as the host's addresses name it
  std::byte *memory = nullptr;  // what holds it (the view itself when the host may load it)
  bool host_loads = false;
  int submits = 0;
  int blocking_submits = 0;
  int quiets = 0;
  int word_ops[8] = {};
  runtime::Transfer last_transfer;
  unsigned last_word_bytes = 0;
  std::function<void()> on_fetch;  // runs at each FETCH: what another PE would do meanwhile

  int wordOps() const {
    int total = 0;
    for (int count : word_ops) total += count;
    return total;
  }
  int wordOps(WordOp op) const { return word_ops[static_cast<int>(op)]; }
  int backendCalls() const { return submits + wordOps(); }

  void *translate(const void *address) const {
    auto *byte = static_cast<const std::byte *>(address);
    if (byte >= view && byte < view + kPes * kSegmentBytes) return memory + (byte - view);
    return const_cast<void *>(address);  // host memory
  }
  // pe's copy of the word at offset, as another PE (or the test) reads and writes it.
  template <class T>
  T &at(int pe, std::size_t offset) const {
    return *reinterpret_cast<T *>(memory + pe * kSegmentBytes + offset);
  }
};

FakeDevice g_device;

template <class W>
std::uint64_t applyWord(void *address, WordOp op, std::uint64_t operand, std::uint64_t compare) {
  std::atomic_ref<W> word(*static_cast<W *>(address));
  const W value = static_cast<W>(operand);
  switch (op) {
    case WordOp::Fetch: return word.load(std::memory_order_acquire);
    case WordOp::Set:
    case WordOp::PutSet: word.store(value, std::memory_order_release); return 0;
    case WordOp::Swap: return word.exchange(value, std::memory_order_acq_rel);
    case WordOp::CompareSwap: {
      W expected = static_cast<W>(compare);
      word.compare_exchange_strong(expected, value, std::memory_order_acq_rel);
      return expected;
    }
    case WordOp::Add:
    case WordOp::PutAdd:
    case WordOp::FetchAdd: return word.fetch_add(value, std::memory_order_acq_rel);
  }
  return 0;
}

std::uint64_t fakeWordOp(runtime::RuntimeState &, WordOp op, void *address, unsigned bytes,
                         std::uint64_t operand, std::uint64_t compare, const char *) {
  ++g_device.word_ops[static_cast<int>(op)];
  g_device.last_word_bytes = bytes;
  if (op == WordOp::Fetch && g_device.on_fetch) g_device.on_fetch();
  void *word = g_device.translate(address);
  return bytes == 4 ? applyWord<std::uint32_t>(word, op, operand, compare)
                    : applyWord<std::uint64_t>(word, op, operand, compare);
}

void fakeSubmit(runtime::RuntimeState &, const runtime::Transfer &transfer, bool blocking, const char *) {
  ++g_device.submits;
  if (blocking) ++g_device.blocking_submits;
  g_device.last_transfer = transfer;
  if (transfer.bytes != 0) {
    std::memcpy(g_device.translate(transfer.dest), g_device.translate(transfer.source), transfer.bytes);
  }
  if (transfer.signal != nullptr) {
    const WordOp op = transfer.signal_op == SignalOp::Set ? WordOp::Set : WordOp::Add;
    void *word = g_device.translate(transfer.signal);
    if (transfer.signal_bytes == 4) applyWord<std::uint32_t>(word, op, transfer.signal_value, 0);
    else applyWord<std::uint64_t>(word, op, transfer.signal_value, 0);
  }
}

void fakeQuiet(runtime::RuntimeState &, const char *) { ++g_device.quiets; }
bool notInProgram() { return false; }
bool noOtherWork(std::uint32_t) { return false; }
void waitDone(std::uint32_t) {}
void fakeZero(runtime::RuntimeState &, void *address, std::size_t bytes) {
  std::memset(g_device.translate(address), 0, bytes);
}

bool runsHere(std::string *) { return true; }
trace_format::Engine fakeEngine(const runtime::RuntimeState &, bool) { return trace_format::Engine::Backend; }
void *noHostView(runtime::RuntimeState &, const void *, std::size_t) { return nullptr; }
void *hostViewsAll(runtime::RuntimeState &, const void *address, std::size_t) { return const_cast<void *>(address); }

// Only what the host calls reach: no heap to create, no engines, no programs. Where the host
// loads the heap, transfers are the cpu backend's (its submit, on the fixture's CpuState).
constexpr runtime::Backend fakeBackend(const char *name, bool host_loads) {
  return {
      .name = name,
      .can_run = runsHere,
      .engines = kEngineMte | kEngineSdma,
      .attach = nullptr,
      .detach = nullptr,
      .heap_create = nullptr,
      .heap_map = nullptr,
      .engines_start = nullptr,
      .submit = host_loads ? cpu::submit : fakeSubmit,
      .submit_engine = host_loads ? cpu::submitEngine : fakeEngine,
      .quiet = fakeQuiet,
      .launch = nullptr,
      .in_program = notInProgram,
      .wait_yield = noOtherWork,
      .wait_done = waitDone,
      .host_view = host_loads ? hostViewsAll : noHostView,
      .word_op = fakeWordOp,
      .zero = fakeZero,
      .shares_static_data = false,
      .team_created = nullptr,
  };
}

const runtime::Backend kHostlessBackend = fakeBackend("fake-device", false);
// The cpu path: the host loads the heap, and the backend is never asked.
const runtime::Backend kHostLoadsBackend = fakeBackend("fake-host", true);

// PE 0 of a two-PE job, installed by hand as init would (heap, world team, backend).
class HostPlane : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    const bool host_loads = GetParam();
    const std::size_t bytes = kPes * kSegmentBytes;
    void *view = mmap(nullptr, bytes, host_loads ? PROT_READ | PROT_WRITE : PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(view, MAP_FAILED);
    g_device = FakeDevice{};
    g_device.view = static_cast<std::byte *>(view);
    g_device.host_loads = host_loads;
    if (host_loads) {
      g_device.memory = g_device.view;
    } else {
      g_device.memory = static_cast<std::byte *>(std::aligned_alloc(4096, bytes));
      std::memset(g_device.memory, 0, bytes);
    }

    saved_ = runtime::g_state;
    state_ = new runtime::RuntimeState;
    state_->my_pe = 0;
    state_->n_pes = kPes;
    state_->attr.engines = kEngineMte;
    state_->backend = host_loads ? &kHostLoadsBackend : &kHostlessBackend;
    state_->backend_state = new cpu::CpuState;  // the cpu path carries transfers itself
    state_->wait_timeout = std::chrono::seconds(30);
    runtime::PeerTable peers;
    peers.reset(kPes);
    for (int pe = 0; pe < kPes; ++pe) peers.p2p_base[pe] = g_device.view + pe * kSegmentBytes;
    state_->heap.assign(g_device.view, kSegmentBytes, peers);
    runtime::TeamInfo &world = state_->teams.teams[shmem::kTeamWorld];
    world.active = true;
    world.start = 0;
    world.stride = 1;
    world.size = kPes;
    world.my_pe = 0;
    runtime::g_state = state_;
  }

  void TearDown() override {
    runtime::g_state = saved_;
    if (state_ != nullptr) {
      delete static_cast<cpu::CpuState *>(state_->backend_state);
      delete state_;
    }
    if (!g_device.host_loads) std::free(g_device.memory);
    if (g_device.view != nullptr) munmap(g_device.view, kPes * kSegmentBytes);
    g_device = FakeDevice{};
  }

  bool hostless() const { return !GetParam(); }
  // The symmetric address of offset on this PE's heap.
  template <class T>
  T *heap(std::size_t offset) const {
    return reinterpret_cast<T *>(g_device.view + offset);
  }
  // What the backend was asked, on the path that asks it; nothing on the cpu path.
  void expectCalls(int submits, int word_ops) const {
    EXPECT_EQ(g_device.submits, hostless() ? submits : 0);
    EXPECT_EQ(g_device.wordOps(), hostless() ? word_ops : 0);
  }

  runtime::RuntimeState *state_ = nullptr;
  runtime::RuntimeState *saved_ = nullptr;
};

TEST_P(HostPlane, PointPutsAndGetsOfWordsAreWordOpsAndNarrowerOnesTransfers) {
  shmem::p(heap<std::int32_t>(0), -5, 1);
  EXPECT_EQ(g_device.at<std::int32_t>(1, 0), -5);
  expectCalls(0, 1);
  if (hostless()) {
    EXPECT_EQ(g_device.wordOps(WordOp::PutSet), 1);
    EXPECT_EQ(g_device.last_word_bytes, 4u);
  }

  g_device.at<double>(1, 8) = 2.5;
  EXPECT_EQ(shmem::g(heap<double>(8), 1), 2.5);
  expectCalls(0, 2);
  if (hostless()) {
    EXPECT_EQ(g_device.wordOps(WordOp::Fetch), 1);
  }

  shmem::p(heap<std::int16_t>(16), std::int16_t{-300}, 1);
  shmem::p(heap<unsigned char>(18), static_cast<unsigned char>(200), 0);
  EXPECT_EQ(g_device.at<std::int16_t>(1, 16), -300);
  EXPECT_EQ(g_device.at<unsigned char>(0, 18), 200);
  g_device.at<std::int16_t>(1, 20) = 1234;
  EXPECT_EQ(shmem::g(heap<std::int16_t>(20), 1), 1234);
  expectCalls(3, 2);
  if (hostless()) {
    EXPECT_EQ(g_device.blocking_submits, 3);
    EXPECT_EQ(g_device.last_transfer.bytes, 2u);
  }

  g_device.at<std::int64_t>(1, 24) = -(std::int64_t{1} << 40);
  EXPECT_EQ(shmem::g(heap<std::int64_t>(24), 1), -(std::int64_t{1} << 40));
  expectCalls(3, 3);
}

TEST_P(HostPlane, PutsAndGetsAreTransfersOfTheBackend) {
  const char text[] = "symmetric bytes";
  shmem::putmem(heap<char>(64), text, sizeof text, 1);
  EXPECT_STREQ(&g_device.at<char>(1, 64), text);
  char back[sizeof text] = {};
  shmem::getmem(back, heap<char>(64), sizeof text, 1);
  EXPECT_STREQ(back, text);
  expectCalls(2, 0);

  shmem::putmem_nbi(heap<char>(128), text, sizeof text, 0);
  shmem::quiet();
  std::memset(back, 0, sizeof back);
  shmem::getmem_nbi(back, heap<char>(128), sizeof text, 0);
  shmem::quiet();
  EXPECT_STREQ(back, text);
  expectCalls(4, 0);
  if (hostless()) {
    EXPECT_EQ(g_device.blocking_submits, 2);  // the _nbi forms are not blocking
    EXPECT_EQ(g_device.quiets, 2);
  }
}

TEST_P(HostPlane, APutWithSignalIsOneTransferThatCarriesTheSignal) {
  const std::uint64_t data[4] = {1, 2, 3, 4};
  auto *sig = heap<std::int64_t>(256);
  g_device.at<std::int64_t>(1, 256) = 10;
  shmem::putmem_signal(heap<std::uint64_t>(192), data, sizeof data, sig, std::int64_t{5}, SignalOp::Add, 1);
  EXPECT_EQ(g_device.at<std::uint64_t>(1, 192 + 24), 4u);
  EXPECT_EQ(g_device.at<std::int64_t>(1, 256), 15);
  expectCalls(1, 0);
  if (hostless()) {
    EXPECT_EQ(g_device.last_transfer.signal, g_device.view + kSegmentBytes + 256);
    EXPECT_EQ(g_device.last_transfer.signal_bytes, 8);
    EXPECT_EQ(g_device.last_transfer.signal_op, SignalOp::Add);
  }

  auto *sig32 = heap<std::int32_t>(260);
  shmem::putmem_signal_nbi(heap<std::uint64_t>(192), data, 0, sig32, std::int32_t{-1}, SignalOp::Set, 1);
  shmem::quiet();
  EXPECT_EQ(g_device.at<std::int32_t>(1, 260), -1);
  expectCalls(2, 0);
  if (hostless()) {
    EXPECT_EQ(g_device.last_transfer.bytes, 0u);
  }
}

TEST_P(HostPlane, SignalOperationsAreWordOps) {
  auto *sig = heap<std::uint64_t>(320);
  shmem::signal_op(sig, std::uint64_t{7}, SignalOp::Set, 1);
  shmem::signal_op(sig, std::uint64_t{3}, SignalOp::Add, 1);
  EXPECT_EQ(g_device.at<std::uint64_t>(1, 320), 10u);
  auto *sig32 = heap<std::int32_t>(328);
  shmem::signal_op(sig32, std::int32_t{-2}, SignalOp::Add, 0);
  EXPECT_EQ(g_device.at<std::int32_t>(0, 328), -2);
  expectCalls(0, 3);
  if (hostless()) {
    EXPECT_EQ(g_device.wordOps(WordOp::PutSet), 1);
    EXPECT_EQ(g_device.wordOps(WordOp::PutAdd), 2);
  }
}

TEST_P(HostPlane, AtomicsAreTheWordOpsOfTheirNames) {
  auto *word = heap<std::int64_t>(384);
  shmem::atomic_set(word, std::int64_t{-10}, 1);
  EXPECT_EQ(shmem::atomic_fetch(word, 1), -10);
  EXPECT_EQ(shmem::atomic_swap(word, std::int64_t{4}, 1), -10);
  EXPECT_EQ(shmem::atomic_compare_swap(word, std::int64_t{3}, std::int64_t{9}, 1), 4);  // not swapped
  EXPECT_EQ(shmem::atomic_compare_swap(word, std::int64_t{4}, std::int64_t{9}, 1), 4);  // swapped
  shmem::atomic_add(word, std::int64_t{-20}, 1);
  shmem::atomic_inc(word, 1);
  EXPECT_EQ(shmem::atomic_fetch_add(word, std::int64_t{100}, 1), -10);
  EXPECT_EQ(shmem::atomic_fetch_inc(word, 1), 90);
  EXPECT_EQ(g_device.at<std::int64_t>(1, 384), 91);
  expectCalls(0, 9);
  if (hostless()) {
    EXPECT_EQ(g_device.wordOps(WordOp::Set), 1);
    EXPECT_EQ(g_device.wordOps(WordOp::Fetch), 1);
    EXPECT_EQ(g_device.wordOps(WordOp::Swap), 1);
    EXPECT_EQ(g_device.wordOps(WordOp::CompareSwap), 2);
    EXPECT_EQ(g_device.wordOps(WordOp::Add), 2);
    EXPECT_EQ(g_device.wordOps(WordOp::FetchAdd), 2);
  }

  // Narrow signed words keep their bits: -1 + 1 wraps to 0 in 32 bits, not in 64.
  auto *narrow = heap<int>(392);
  g_device.at<int>(0, 396) = 77;  // the next word must not change
  shmem::atomic_set(narrow, -1, 0);
  shmem::atomic_add(narrow, 1, 0);
  EXPECT_EQ(shmem::atomic_fetch_add(narrow, -3, 0), 0);
  EXPECT_EQ(g_device.at<int>(0, 392), -3);
  EXPECT_EQ(g_device.at<int>(0, 396), 77);
  EXPECT_EQ(shmem::atomic_compare_swap(heap<unsigned>(392), 0xFFFFFFFDu, 5u, 0), 0xFFFFFFFDu);
  EXPECT_EQ(g_device.at<unsigned>(0, 392), 5u);

  // Floating point by its bits.
  auto *real = heap<double>(400);
  shmem::atomic_set(real, -0.75, 1);
  EXPECT_EQ(shmem::atomic_swap(real, 1.5, 1), -0.75);
  EXPECT_EQ(shmem::atomic_fetch(real, 1), 1.5);
  auto *single = heap<float>(408);
  shmem::atomic_set(single, 3.25f, 1);
  EXPECT_EQ(shmem::atomic_fetch(single, 1), 3.25f);
  EXPECT_EQ(g_device.at<float>(1, 408), 3.25f);
}

TEST_P(HostPlane, WaitsPollThroughTheBackendUntilThePredicateHolds) {
  auto *ivar = heap<std::int32_t>(448);
  g_device.at<std::int32_t>(0, 448) = 3;
  shmem::wait_until(ivar, Cmp::GE, 3);  // satisfied at the first poll
  EXPECT_TRUE(shmem::test(ivar, Cmp::EQ, 3));
  EXPECT_FALSE(shmem::test(ivar, Cmp::LT, 3));
  expectCalls(0, 3);

  // Another PE stores 8 after a few polls: the wait sees it through the backend.
  if (hostless()) {
    int polls = 0;
    g_device.on_fetch = [&] {
      if (++polls == 5) g_device.at<std::int32_t>(0, 448) = 8;
    };
    shmem::wait_until(ivar, Cmp::GT, 7);
    EXPECT_EQ(polls, 5);
    g_device.on_fetch = nullptr;

    auto *sig = heap<std::uint64_t>(456);
    polls = 0;
    g_device.on_fetch = [&] {
      if (++polls == 3) g_device.at<std::uint64_t>(0, 456) = 42;
    };
    EXPECT_EQ(shmem::signal_wait_until(sig, Cmp::NE, std::uint64_t{0}), 42u);
    EXPECT_EQ(polls, 3);
    g_device.on_fetch = nullptr;
  } else {
    g_device.at<std::int32_t>(0, 448) = 8;
    shmem::wait_until(ivar, Cmp::GT, 7);
    g_device.at<std::uint64_t>(0, 456) = 42;
    EXPECT_EQ(shmem::signal_wait_until(heap<std::uint64_t>(456), Cmp::NE, std::uint64_t{0}), 42u);
  }
  EXPECT_EQ(g_device.submits, 0);
}

TEST_P(HostPlane, DlNotifyAndWaitGoThroughTheBackend) {
  // Two slots, one signal stride apart.
  auto *slots = heap<std::int64_t>(512);
  constexpr std::size_t stride = dl::kSignalSlotStride<std::int64_t>;
  dl::notify(slots, 0, std::int64_t{6}, dl::SignalOp::Set);
  dl::notify(slots + stride, 0, std::int64_t{2}, dl::SignalOp::Set);
  dl::notify(slots + stride, 0, std::int64_t{4}, dl::SignalOp::Add);
  EXPECT_EQ(g_device.at<std::int64_t>(0, 512), 6);
  EXPECT_EQ(g_device.at<std::int64_t>(0, 512 + 64), 6);
  const dl::Token token = dl::wait(slots, 2, std::int64_t{6});
  EXPECT_EQ(token.value, 0u);  // 6 ^ 6
  expectCalls(0, 5);
  if (hostless()) {
    EXPECT_EQ(g_device.wordOps(WordOp::PutSet), 2);
    EXPECT_EQ(g_device.wordOps(WordOp::PutAdd), 1);
    EXPECT_EQ(g_device.wordOps(WordOp::Fetch), 2);
  }
}

// The message and code of what fn throws, and that it threw before asking the backend.
std::string errorOf(const std::function<void()> &fn, ErrorCode *code = nullptr) {
  const int calls = g_device.backendCalls();
  try {
    fn();
  } catch (const Error &error) {
    if (code != nullptr) *code = error.code();
    EXPECT_EQ(g_device.backendCalls(), calls) << error.what();
    return error.what();
  }
  return "(no error)";
}

std::string formatted(const char *format, const void *address) {
  char text[256];
  std::snprintf(text, sizeof text, format, address);
  return text;
}

TEST_P(HostPlane, BadArgumentsFailWithTheMessagesOfTheCpuPath) {
  ErrorCode code{};
  std::int32_t host_word = 0;
  char buffer[8] = {};
  EXPECT_EQ(errorOf([&] { shmem::putmem(heap<char>(0), buffer, sizeof buffer, 2); }, &code),
            "tdist::shmem::putmem: PE 2 is out of range 0..1");
  EXPECT_EQ(code, ErrorCode::InvalidParam);
  EXPECT_EQ(errorOf([&] { shmem::getmem(buffer, heap<char>(0), sizeof buffer, -1); }),
            "tdist::shmem::getmem: PE -1 is out of range 0..1");
  EXPECT_EQ(errorOf([&] { shmem::p(heap<std::int32_t>(0), 1, 5); }), "tdist::shmem::p: PE 5 is out of range 0..1");
  EXPECT_EQ(errorOf([&] { shmem::atomic_fetch_add(heap<std::int64_t>(0), std::int64_t{1}, 2); }),
            "tdist::shmem::atomic_fetch_add: PE 2 is out of range 0..1");

  EXPECT_EQ(errorOf([&] { shmem::p(&host_word, 1, 1); }),
            formatted("tdist::shmem::p: dest %p (+4 bytes) is not on the symmetric heap", &host_word));
  EXPECT_EQ(errorOf([&] { shmem::g(&host_word, 0); }),
            formatted("tdist::shmem::g: source %p (+4 bytes) is not on the symmetric heap", &host_word));
  EXPECT_EQ(errorOf([&] { shmem::putmem(buffer, buffer, sizeof buffer, 1); }),
            formatted("tdist::shmem::putmem: dest %p (+8 bytes) is not on the symmetric heap", buffer));
  EXPECT_EQ(errorOf([&] { shmem::atomic_add(&host_word, 1, 1); }),
            formatted("tdist::shmem::atomic_add: dest %p (+4 bytes) is not on the symmetric heap", &host_word));
  const char *past_end = reinterpret_cast<const char *>(g_device.view) + kSegmentBytes - 4;
  EXPECT_EQ(errorOf([&] { shmem::getmem(buffer, past_end, sizeof buffer, 1); }),
            formatted("tdist::shmem::getmem: source %p (+8 bytes) is not on the symmetric heap", past_end));

  auto *misaligned = reinterpret_cast<std::uint64_t *>(g_device.view + 4);
  EXPECT_EQ(errorOf([&] { shmem::signal_op(misaligned, std::uint64_t{1}, SignalOp::Set, 1); }),
            formatted("tdist::shmem::signal_op: sig_addr %p is not aligned to 8 bytes, which atomic access "
                      "to a word of 8 bytes requires",
                      misaligned));
  EXPECT_EQ(errorOf([&] {
              shmem::putmem_signal(heap<char>(0), buffer, sizeof buffer, misaligned, std::uint64_t{1},
                                   SignalOp::Set, 1);
            }),
            formatted("tdist::shmem::putmem_signal: sig_addr %p is not aligned to 8 bytes, which atomic "
                      "access to a word of 8 bytes requires",
                      misaligned));
  EXPECT_EQ(errorOf([&] { shmem::wait_until(misaligned, Cmp::EQ, std::uint64_t{0}); }),
            formatted("tdist::shmem::wait_until: ivar %p is not aligned to 8 bytes, which atomic access to "
                      "a word of 8 bytes requires",
                      misaligned));
  EXPECT_EQ(errorOf([&] { dl::wait(reinterpret_cast<std::int64_t *>(misaligned), 1, std::int64_t{0}); }),
            formatted("dl.wait: sig %p is not aligned to 8 bytes, which atomic access to a word of 8 bytes "
                      "requires",
                      misaligned));

  EXPECT_EQ(errorOf([&] { shmem::signal_op(heap<std::uint64_t>(0), std::uint64_t{1}, static_cast<SignalOp>(3), 1); }),
            "tdist::shmem::signal_op: signal operation 3 is neither SET (0) nor ADD (1)");
  EXPECT_EQ(errorOf([&] { shmem::test(heap<std::int32_t>(0), static_cast<Cmp>(9), 0); }),
            "tdist::shmem::test: comparison 9 is not one of EQ, NE, GT, GE, LT, LE");
  EXPECT_EQ(errorOf([&] { dl::wait(heap<std::int32_t>(0), 0, 0); }),
            "dl.wait: the number of signal slots must be in 1..65536, got 0");
  expectCalls(0, 0);
}

// Past its deadline a wait reports the value it observed, read the way it polls: through the
// backend here (a host load of the fake heap would fault instead of exiting).
TEST_P(HostPlane, AWaitPastItsDeadlineReportsTheValueItObservedThroughTheBackend) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  state_->wait_timeout = std::chrono::milliseconds(200);
  g_device.at<std::int64_t>(0, 576) = 7;
  auto *sig = heap<std::int64_t>(576);
  EXPECT_EXIT(shmem::signal_wait_until(sig, Cmp::EQ, std::int64_t{1}), ::testing::ExitedWithCode(kExitWaitTimeout),
              "tdist: PE 0: tdist::shmem::signal_wait_until: wait passed its deadline of 0.200 s: value at "
              "symmetric offset 0x240 of PE 0, waiting for EQ 1, observed 7");
  g_device.at<std::int32_t>(0, 640 + 64) = 3;
  EXPECT_EXIT(dl::wait(heap<std::int32_t>(640), 2, 0), ::testing::ExitedWithCode(kExitWaitTimeout),
              "tdist: PE 0: dl.wait: wait passed its deadline of 0.200 s: value at symmetric offset 0x2c0 of "
              "PE 0 \\(slot 1 of 2\\), waiting for EQ 0, observed 3");
}

TEST_P(HostPlane, TheTemplateLibraryRunsWhereTheHostLoadsTheHeapOnly) {
  const auto *symbol = tdist::template_library::find("_mlir_ciface_aclshmem_my_pe");
  ASSERT_NE(symbol, nullptr);
  auto my_pe = reinterpret_cast<std::int32_t (*)()>(symbol->address);
  if (!hostless()) {
    EXPECT_EQ(my_pe(), 0);
    return;
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(my_pe(), ::testing::ExitedWithCode(kExitFatalError),
              "tdist: PE 0: _mlir_ciface_aclshmem_my_pe: the template library runs on the cpu backend only "
              "\\(this job runs on the fake-device backend, whose heap the host cannot load\\)");
}

INSTANTIATE_TEST_SUITE_P(Paths, HostPlane, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "HostLoadsHeap" : "ThroughTheBackend";
                         });

}  // namespace
}  // namespace tdist
