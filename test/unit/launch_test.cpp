// tdist::launch: program ids, cooperative waiting without deadlock, errors.
#include "tdist/launch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <tuple>

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
