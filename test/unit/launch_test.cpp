// tdist::launch: program ids, cooperative waiting without deadlock, errors.
#include "tdist/launch.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include "tdist/dl.h"
#include "tdist/runtime.h"
#include "test/support/single_pe.h"

namespace tdist {
namespace {

class Launch : public ::testing::Test {
 protected:
  void SetUp() override {
    InitAttr attr = testing::singlePeAttr(listener_);
    attr.wait_timeout = std::chrono::seconds(20);
    init(attr);
  }
  void TearDown() override { finalize(); }
  testing::Listener listener_;
};

TEST_F(Launch, EveryProgramRunsOnceWithItsCoordinates) {
  std::mutex mutex;
  std::set<std::tuple<int, int, int>> seen;
  std::atomic<int> bad_dims{0};
  launch(Grid{4, 3, 2}, [&] {
    if (dl::num_programs(0) != 4 || dl::num_programs(1) != 3 || dl::num_programs(2) != 2) ++bad_dims;
    std::lock_guard<std::mutex> lock(mutex);
    seen.emplace(dl::program_id(0), dl::program_id(1), dl::program_id(2));
  });
  EXPECT_EQ(seen.size(), 24u);
  EXPECT_EQ(bad_dims.load(), 0);
  EXPECT_EQ(dl::program_id(0), 0);  // outside a launch
  EXPECT_EQ(dl::num_programs(0), 1);
  EXPECT_THROW(dl::program_id(3), Error);
  EXPECT_THROW(dl::num_programs(-1), Error);
}

// Program i waits for program i + 1, so the last program must run before any other can end:
// with one worker this needs waiting programs to yield.
TEST_F(Launch, ChainedWaitsDoNotDeadlockOnOneWorker) {
  constexpr int kPrograms = 64;
  auto *flags = static_cast<std::int64_t *>(allocateZeroed(kPrograms * 8, sizeof(std::int64_t)));
  std::atomic<int> finished{0};
  for (int workers : {1, 2, 3}) {
    std::fill(flags, flags + kPrograms * 8, 0);
    LaunchOptions options;
    options.workers = workers;
    launch(Grid{kPrograms}, [&] {
      int id = dl::program_id();
      if (id + 1 < kPrograms) dl::wait(flags + (id + 1) * 8, 1, std::int64_t{1});
      dl::notify(flags + id * 8, dl::rank(), std::int64_t{1});
      ++finished;
    }, options);
  }
  EXPECT_EQ(finished.load(), 3 * kPrograms);
  deallocate(flags);
}

TEST_F(Launch, WaitCoversSlotsAtTheSignalStride) {
  constexpr int kSlots = 5;
  auto *signals = static_cast<std::int32_t *>(allocateZeroed(kSlots * 16, sizeof(std::int32_t)));
  std::atomic<int> consumer_done{0};
  LaunchOptions options;
  options.workers = 1;
  launch(Grid{kSlots + 1}, [&] {
    int id = dl::program_id();
    if (id == 0) {
      dl::Token token = dl::wait(signals, kSlots, std::int32_t{3});
      int *slots = dl::consume_token(reinterpret_cast<int *>(signals), token);
      for (int s = 0; s < kSlots; ++s) EXPECT_EQ(slots[s * dl::kSignalSlotStride<std::int32_t>], 3);
      ++consumer_done;
    } else {
      dl::notify(signals + (id - 1) * 16, 0, std::int32_t{1}, dl::SignalOp::Add);
      dl::notify(signals + (id - 1) * 16, 0, std::int32_t{2}, dl::SignalOp::Add);
    }
  }, options);
  EXPECT_EQ(consumer_done.load(), 1);
  deallocate(signals);
}

TEST_F(Launch, FirstErrorIsRethrownAndWaitersUnwind) {
  auto *flag = static_cast<std::int64_t *>(allocateZeroed(8, sizeof(std::int64_t)));
  std::atomic<int> unwound{0};
  LaunchOptions options;
  options.workers = 1;
  try {
    launch(Grid{8}, [&] {
      struct Count {
        std::atomic<int> &n;
        ~Count() { ++n; }
      } count{unwound};
      if (dl::program_id() == 5) throw std::runtime_error("program 5 failed");
      dl::wait(flag, 1, std::int64_t{1});  // never notified: unwound by the failure
    }, options);
    FAIL() << "launch did not rethrow";
  } catch (const std::runtime_error &error) {
    EXPECT_STREQ(error.what(), "program 5 failed");
  }
  // Programs 0..5 started (one worker starts programs in order); 6 and 7 never start.
  EXPECT_EQ(unwound.load(), 6);
  deallocate(flag);
}

// Programs pass a token around a ring, lap after lap: each waits for its left neighbour, so no
// program can finish before all have run. With one worker (chosen by the option or by
// TDIST_WORKERS) this needs waiting programs to yield, many times each.
TEST_F(Launch, RingOfWaitsDoesNotDeadlockOnOneWorker) {
  constexpr int kPrograms = 16;
  constexpr std::int64_t kLaps = 50;
  auto *flags = static_cast<std::int64_t *>(allocateZeroed(kPrograms * 8, sizeof(std::int64_t)));
  auto ring = [&] {
    const int id = dl::program_id();
    const int next = (id + 1) % kPrograms;
    for (std::int64_t lap = 1; lap <= kLaps; ++lap) {
      if (id != 0) dl::wait(flags + id * 8, 1, lap);
      dl::notify(flags + next * 8, dl::rank(), lap);
      if (id == 0) dl::wait(flags, 1, lap);
    }
  };
  for (int workers : {1, 2}) {
    std::fill(flags, flags + kPrograms * 8, 0);
    LaunchOptions options;
    options.workers = workers;
    launch(Grid{kPrograms}, ring, options);
    for (int p = 0; p < kPrograms; ++p) EXPECT_EQ(flags[p * 8], kLaps) << "workers " << workers;
  }
  std::fill(flags, flags + kPrograms * 8, 0);
  ASSERT_EQ(setenv("TDIST_WORKERS", "1", 1), 0);
  launch(Grid{kPrograms}, ring);
  unsetenv("TDIST_WORKERS");
  for (int p = 0; p < kPrograms; ++p) EXPECT_EQ(flags[p * 8], kLaps) << "TDIST_WORKERS=1";
  deallocate(flags);
}

// A program resumes on the thread it started on, so its thread-locals stay the same across the
// waits in which it yields.
TEST_F(Launch, ProgramsStayOnTheirWorkerThread) {
  constexpr int kPrograms = 24;
  static thread_local int t_marker = 0;
  auto *flags = static_cast<std::int64_t *>(allocateZeroed(kPrograms * 8, sizeof(std::int64_t)));
  std::atomic<int> moved{0};
  std::atomic<int> finished{0};
  LaunchOptions options;
  options.workers = 3;
  launch(Grid{kPrograms}, [&] {
    const int id = dl::program_id();
    const std::thread::id thread = std::this_thread::get_id();
    int *marker = &t_marker;
    *marker = id;
    // Chained as in ChainedWaitsDoNotDeadlockOnOneWorker: every program but the last yields.
    if (id + 1 < kPrograms) dl::wait(flags + (id + 1) * 8, 1, std::int64_t{1});
    if (std::this_thread::get_id() != thread || &t_marker != marker) ++moved;
    dl::notify(flags + id * 8, dl::rank(), std::int64_t{1});
    ++finished;
  }, options);
  EXPECT_EQ(finished.load(), kPrograms);
  EXPECT_EQ(moved.load(), 0);
  deallocate(flags);
}

// When one program throws, the programs blocked in waits unwind: the destructors of the objects
// on their stacks run, as part of an exception's unwinding, on every worker.
TEST_F(Launch, BlockedProgramsRunTheirDestructorsWhenTheLaunchFails) {
  constexpr int kPrograms = 12;
  auto *flags = static_cast<std::int64_t *>(allocateZeroed(2 * 8, sizeof(std::int64_t)));
  struct Guard {
    std::atomic<int> &unwound;
    std::atomic<int> &destroyed;
    ~Guard() {
      ++destroyed;
      if (std::uncaught_exceptions() > 0) ++unwound;
    }
  };
  for (int workers : {1, 3}) {
    flags[0] = flags[8] = 0;
    std::atomic<int> blocked{0}, unwound{0}, destroyed{0};
    LaunchOptions options;
    options.workers = workers;
    try {
      launch(Grid{kPrograms}, [&] {
        Guard outer{unwound, destroyed};
        if (dl::program_id() == kPrograms - 1) {
          // Fail once every other program sits in its wait.
          dl::wait(flags + 8, 1, std::int64_t{1});
          throw std::runtime_error("the last program failed");
        }
        auto blockedWait = [&] {
          Guard inner{unwound, destroyed};
          if (++blocked == kPrograms - 1) dl::notify(flags + 8, dl::rank(), std::int64_t{1});
          dl::wait(flags, 1, std::int64_t{1});  // never notified
        };
        blockedWait();
      }, options);
      ADD_FAILURE() << "launch did not rethrow";
    } catch (const std::runtime_error &error) {
      EXPECT_STREQ(error.what(), "the last program failed");
    }
    EXPECT_EQ(blocked.load(), kPrograms - 1) << "workers " << workers;
    // Each blocked program has two guards, the failing one its outer guard.
    EXPECT_EQ(destroyed.load(), 2 * (kPrograms - 1) + 1) << "workers " << workers;
    EXPECT_EQ(unwound.load(), 2 * (kPrograms - 1) + 1) << "workers " << workers;
  }
  deallocate(flags);
}

// A program that overflows its stack faults on the guard page below it: the fault is an access
// to a mapped page without permission (not a write to whatever lies below, nor a fault past it)
// at the bottom of the stack.
namespace overflow {

std::uintptr_t g_low = 0, g_high = 0;  // where the guard page must be

void onFault(int, siginfo_t *info, void *) {
  auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  _exit(info->si_code == SEGV_ACCERR && address >= g_low && address < g_high ? 42 : 43);
}

int recurse(int depth) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  if (depth > 1000000) return frame[0];
  return recurse(depth + 1) + frame[0];
}

void overflowInAProgram() {
  static std::vector<char> alternate(1 << 16);
  stack_t stack{};
  stack.ss_sp = alternate.data();
  stack.ss_size = alternate.size();
  sigaltstack(&stack, nullptr);
  struct sigaction action{};
  action.sa_sigaction = onFault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &action, nullptr);
  LaunchOptions options;
  options.workers = 1;  // the program runs on this thread, which has the alternate stack
  options.stack_bytes = 64 * 1024;
  launch(Grid{1}, [&] {
    const long page = sysconf(_SC_PAGESIZE);
    volatile char top;
    auto here = reinterpret_cast<std::uintptr_t>(&top);
    // The stack is at most stack_bytes rounded up to pages; the guard page is the one below.
    g_high = here - options.stack_bytes + 2 * page;
    g_low = here - options.stack_bytes - 2 * page;
    recurse(0);
  }, options);
  _exit(0);
}

}  // namespace overflow

TEST(LaunchDeathTest, StackOverflowFaultsOnTheGuardPage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(overflow::overflowInAProgram(), ::testing::ExitedWithCode(42), "");
}

TEST_F(Launch, RejectsBadGridsAndNestedLaunches) {
  EXPECT_THROW(launch(Grid{0}, [] {}), Error);
  EXPECT_THROW(launch(Grid{2, -1}, [] {}), Error);
  std::atomic<int> nested_errors{0};
  launch(Grid{2}, [&] {
    try {
      launch(Grid{1}, [] {});
    } catch (const Error &) {
      ++nested_errors;
    }
  });
  EXPECT_EQ(nested_errors.load(), 2);
}

}  // namespace
}  // namespace tdist
