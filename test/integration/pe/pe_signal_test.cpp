// Signal SET and ADD, the six wait predicates, typed waits and tests, atomics across PEs.
#include <gtest/gtest.h>

#include <atomic>

#include "aclshmem.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/heap_access.h"

namespace tdist {
namespace {

namespace sh = tdist::shmem;

using testing::heapRead;
using testing::heapWrite;

TEST(Signal, AddAccumulatesAndSetReplaces) {
  auto *sig = static_cast<std::int32_t *>(allocateZeroed(1, sizeof(std::int32_t)));
  const int n = sh::n_pes();
  // Every PE adds its pe + 1 to PE 0's signal: the sum is exact only if ADD is atomic.
  for (int i = 0; i < 100; ++i) aclshmemx_signal_op(sig, sh::my_pe() + 1, ACLSHMEM_SIGNAL_ADD, 0);
  if (sh::my_pe() == 0) {
    EXPECT_EQ(aclshmem_signal_wait_until(sig, ACLSHMEM_CMP_EQ, 100 * n * (n + 1) / 2), 100 * n * (n + 1) / 2);
  }
  sh::barrier_all();
  // SET replaces whatever was there.
  if (sh::my_pe() == n - 1) aclshmemx_signal_op(sig, -7, ACLSHMEM_SIGNAL_SET, 0);
  if (sh::my_pe() == 0) {
    EXPECT_EQ(aclshmem_signal_wait_until(sig, ACLSHMEM_CMP_EQ, -7), -7);
  }
  sh::barrier_all();
  // An unknown operation is an error and changes nothing.
  aclshmemx_signal_op(sig, 1, 5, 0);
  EXPECT_NE(std::string(aclshmemx_last_error()).find("neither SET"), std::string::npos);
  sh::barrier_all();
  if (sh::my_pe() == 0) {
    EXPECT_EQ(heapRead(sig), -7);
  }
  sh::barrier_all();
  deallocate(sig);
}

// PE 0 drives a signal on every other PE through a sequence of values; each predicate must
// hold exactly when it should. The waiter acknowledges each step so the driver moves on.
TEST(Signal, AllSixPredicates) {
  auto *sig = static_cast<std::int32_t *>(allocateZeroed(1, sizeof(std::int32_t)));
  auto *ack = static_cast<std::int64_t *>(allocateZeroed(1, sizeof(std::int64_t)));
  struct Step {
    int cmp;
    std::int32_t set;
    std::int32_t compare;
  };
  const Step steps[] = {{ACLSHMEM_CMP_EQ, 5, 5},  {ACLSHMEM_CMP_NE, 9, 5},  {ACLSHMEM_CMP_GT, 12, 11},
                        {ACLSHMEM_CMP_GE, 12, 12}, {ACLSHMEM_CMP_LT, -3, 0}, {ACLSHMEM_CMP_LE, -3, -3}};
  const int n = sh::n_pes();
  std::int64_t step_no = 0;
  for (const Step &step : steps) {
    ++step_no;
    if (sh::my_pe() == 0) {
      for (int pe = 1; pe < n; ++pe) aclshmemx_signal_op(sig, step.set, ACLSHMEM_SIGNAL_SET, pe);
      // GE: a waiter whose next predicate already holds acknowledges early.
      aclshmem_int64_wait_until(ack, ACLSHMEM_CMP_GE, step_no * (n - 1));
    } else {
      EXPECT_EQ(aclshmem_signal_wait_until(sig, step.cmp, step.compare), step.set) << step.cmp;
      EXPECT_EQ(aclshmem_int32_test(sig, step.cmp, step.compare), 1);
      aclshmem_int64_atomic_add(ack, 1, 0);
    }
  }
  // test() is false when the predicate does not hold. (A waiter may pass a step whose value is
  // already there before PE 0 stores it again: the barrier puts PE 0's last store behind us.)
  sh::barrier_all();
  heapWrite(sig, 4);
  EXPECT_EQ(aclshmem_int32_test(sig, ACLSHMEM_CMP_EQ, 5), 0);
  EXPECT_EQ(aclshmem_int32_test(sig, ACLSHMEM_CMP_NE, 4), 0);
  EXPECT_EQ(aclshmem_int32_test(sig, ACLSHMEM_CMP_GT, 4), 0);
  EXPECT_EQ(aclshmem_int32_test(sig, ACLSHMEM_CMP_GE, 5), 0);
  EXPECT_EQ(aclshmem_int32_test(sig, ACLSHMEM_CMP_LT, 4), 0);
  EXPECT_EQ(aclshmem_int32_test(sig, ACLSHMEM_CMP_LE, 3), 0);
  sh::barrier_all();
  deallocate(ack);
  deallocate(sig);
}

template <class S>
void signalRing() {
  auto *sig = static_cast<S *>(allocateZeroed(1, sizeof(S)));
  const int n = sh::n_pes();
  const int me = sh::my_pe();
  // A token travels the ring 20 times; every hop adds 1 with ADD.
  for (S lap = 0; lap < 20; ++lap) {
    if (me == 0) {
      sh::signal_op<S>(sig, S{1}, sh::SignalOp::Add, 1 % n);
      sh::signal_wait_until<S>(sig, sh::Cmp::GE, static_cast<S>(lap + 1));
    } else {
      sh::signal_wait_until<S>(sig, sh::Cmp::GE, static_cast<S>(lap + 1));
      sh::signal_op<S>(sig, S{1}, sh::SignalOp::Add, (me + 1) % n);
    }
  }
  EXPECT_EQ(heapRead(sig), static_cast<S>(20));
  sh::barrier_all();
  deallocate(sig);
}

TEST(Signal, RingOfSignalsInEveryWidth) {
  signalRing<std::int32_t>();
  signalRing<std::int64_t>();
  signalRing<std::uint64_t>();
}

TEST(Signal, TypedWaitUntil) {
  auto *ivars = static_cast<long long *>(allocateZeroed(8, sizeof(long long)));
  auto *uvars = static_cast<unsigned *>(allocateZeroed(16, sizeof(unsigned)));
  if (sh::my_pe() == 0) {
    for (int pe = 0; pe < sh::n_pes(); ++pe) {
      aclshmem_longlong_atomic_set(ivars, 1LL << 40, pe);
      aclshmem_uint_atomic_set(uvars, 4000000000u, pe);
    }
  }
  aclshmem_longlong_wait_until(ivars, ACLSHMEM_CMP_GE, 1LL << 40);
  aclshmem_uint_wait_until(uvars, ACLSHMEM_CMP_GT, 3999999999u);
  EXPECT_EQ(aclshmem_uint_test(uvars, ACLSHMEM_CMP_EQ, 4000000000u), 1);
  sh::barrier_all();
  deallocate(uvars);
  deallocate(ivars);
}

TEST(Atomic, FetchAddFromEveryPeIsExact) {
  auto *counter = static_cast<std::int64_t *>(allocateZeroed(1, sizeof(std::int64_t)));
  const int n = sh::n_pes();
  std::int64_t last = -1;
  for (int i = 0; i < 1000; ++i) {
    std::int64_t before = sh::atomic_fetch_add<std::int64_t>(counter, 2, 0);
    EXPECT_GT(before, last);  // PE 0's counter only grows
    last = before;
    sh::atomic_inc<std::int64_t>(counter, 0);
  }
  sh::barrier_all();
  EXPECT_EQ(sh::atomic_fetch<std::int64_t>(counter, 0), 3000 * n);
  sh::barrier_all();
  EXPECT_GE(aclshmem_int64_atomic_fetch_inc(counter, 0), 3000 * n);
  sh::barrier_all();
  deallocate(counter);
}

TEST(Atomic, CompareSwapElectsExactlyOneWinner) {
  auto *owner = static_cast<int *>(allocateZeroed(1, sizeof(int)));
  auto *wins = static_cast<int *>(allocateZeroed(1, sizeof(int)));
  for (int round = 1; round <= 50; ++round) {
    int old = aclshmem_int_atomic_compare_swap(owner, round - 1, round * 100 + sh::my_pe(), 0);
    if (old == round - 1) aclshmem_int_atomic_add(wins, 1, 0);
    sh::barrier_all();
    if (sh::my_pe() == 0) {
      EXPECT_EQ(heapRead(wins), 1) << "round " << round;
      heapWrite(wins, 0);
      heapWrite(owner, round);
    }
    sh::barrier_all();
  }
  deallocate(wins);
  deallocate(owner);
}

TEST(Atomic, SwapSetFetchAndFloats) {
  auto *word = static_cast<unsigned long *>(allocateZeroed(1, sizeof(unsigned long)));
  auto *real = static_cast<double *>(allocateZeroed(1, sizeof(double)));
  const int n = sh::n_pes();
  const int target = n - 1;
  // Swaps form a chain: each returns a distinct earlier value, none is lost.
  unsigned long got = aclshmem_ulong_atomic_swap(word, sh::my_pe() + 1, target);
  aclshmem_ulong_atomic_add(word, 0, target);
  unsigned long *seen = static_cast<unsigned long *>(allocateZeroed(n, sizeof(unsigned long)));
  for (int pe = 0; pe < n; ++pe) aclshmem_ulong_p(seen + sh::my_pe(), got, pe);
  sh::barrier_all();
  unsigned long sum = aclshmem_ulong_atomic_fetch(word, target);
  for (unsigned long value : testing::heapReadArray(seen, n)) sum += value;
  EXPECT_EQ(sum, static_cast<unsigned long>(n * (n + 1) / 2));  // 0 + every value exactly once
  sh::barrier_all();
  if (sh::my_pe() == 0) aclshmem_double_atomic_set(real, 1.25, target);
  sh::barrier_all();
  EXPECT_EQ(aclshmem_double_atomic_fetch(real, target), 1.25);
  sh::barrier_all();
  if (sh::my_pe() == 0) {
    EXPECT_EQ(aclshmem_double_atomic_swap(real, 2.5, target), 1.25);
  }
  sh::barrier_all();
  EXPECT_EQ(aclshmem_double_atomic_fetch(real, target), 2.5);
  sh::barrier_all();
  deallocate(seen);
  deallocate(real);
  deallocate(word);
}

}  // namespace
}  // namespace tdist
