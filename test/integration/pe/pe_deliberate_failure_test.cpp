// Tests that fail on purpose, disabled by default: pe_suite_failure_test.cpp runs each alone
// (--gtest_also_run_disabled_tests) and checks that a failure on one PE ends the whole job at
// once, naming the PE and the test, long before its peers' waits would pass their deadline.
// Each leaves the other PEs waiting for a PE that has stopped taking part.
#include <gtest/gtest.h>

#include <cstdint>

#include "tdist/dl.h"
#include "tdist/launch.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/ring.h"

namespace tdist {
namespace {

namespace sh = tdist::shmem;

using testing::next;

// The last PE leaves the test in round 3; the others wait for it in the barrier.
TEST(DeliberateFailure, DISABLED_FatalInABarrierLoop) {
  const bool failing_pe = sh::my_pe() == sh::n_pes() - 1;
  for (int round = 0; round < 10; ++round) {
    ASSERT_FALSE(failing_pe && round == 3) << "fails on purpose in round " << round;
    sh::barrier_all();
  }
}

// A token goes round the ring; PE 1 fails non-fatally in lap 3 and does not pass the token on.
TEST(DeliberateFailure, DISABLED_NonFatalInASignalRing) {
  auto *token = static_cast<std::int64_t *>(allocateZeroed(1, sizeof(std::int64_t)));
  const int me = sh::my_pe();
  for (std::int64_t lap = 1; lap <= 10; ++lap) {
    if (me != 0) sh::signal_wait_until<std::int64_t>(token, sh::Cmp::GE, lap);
    const bool broken = me == 1 && lap == 3;
    EXPECT_FALSE(broken) << "fails on purpose in lap " << lap;
    if (!broken) sh::signal_op<std::int64_t>(token, lap, sh::SignalOp::Set, next(me));
    if (me == 0) sh::signal_wait_until<std::int64_t>(token, sh::Cmp::GE, lap);
  }
  sh::barrier_all();
  deallocate(token);
}

// Program 2 of the last PE fails and notifies nobody; its peer's program 2 waits for it.
TEST(DeliberateFailure, DISABLED_InAProgramOfALaunch) {
  constexpr int kPrograms = 4;
  constexpr int kStride = dl::kSignalSlotStride<std::int32_t>;
  auto *slots = static_cast<std::int32_t *>(allocateZeroed(kPrograms * kStride, sizeof(std::int32_t)));
  const int me = sh::my_pe();
  launch(Grid{kPrograms}, [&] {
    const int program = dl::program_id();
    const bool broken = me == sh::n_pes() - 1 && program == 2;
    EXPECT_FALSE(broken) << "fails on purpose in program " << program;
    if (!broken) dl::notify(slots + program * kStride, next(me), std::int32_t{1});
    dl::wait(slots + program * kStride, 1, std::int32_t{1});
  });
  sh::barrier_all();
  deallocate(slots);
}

}  // namespace
}  // namespace tdist
