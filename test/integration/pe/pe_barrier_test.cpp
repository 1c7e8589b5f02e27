// barrier_all under random per-PE delays and stragglers; sync_all; teams.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "aclshmem.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/heap_access.h"

namespace tdist {
namespace {

namespace sh = tdist::shmem;

void busyDelay(std::chrono::nanoseconds delay) {
  auto until = std::chrono::steady_clock::now() + delay;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// Round r: every PE adds 1 to PE 0's counter r % 2, passes the barrier, and then must see all
// n additions. Counter r % 2 is next touched in round r + 2, which nobody can enter before
// everybody left round r: so the count is exact, and wrong if the barrier lets anybody through
// early. Random delays stagger the arrivals; every 1000 rounds one PE straggles for 2 ms.
TEST(Barrier, TenThousandRoundsWithRandomDelays) {
  constexpr int kRounds = 10000;
  auto *counters = static_cast<std::int64_t *>(allocateZeroed(16, sizeof(std::int64_t)));
  const int n = sh::n_pes();
  const int me = sh::my_pe();
  std::mt19937 rng(1234 + me);
  int failures = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::int64_t *counter = counters + (round % 2) * 8;
    busyDelay(std::chrono::nanoseconds(rng() % 3000));
    sh::atomic_add<std::int64_t>(counter, 1, 0);
    if (round % 1000 == 500 && me == (round / 1000) % n) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // straggler inside the round
    }
    sh::barrier_all();
    std::int64_t seen = sh::atomic_fetch<std::int64_t>(counter, 0);
    if (seen != static_cast<std::int64_t>(n) * (round / 2 + 1) && ++failures < 5) {
      ADD_FAILURE() << "round " << round << ": counter " << seen << ", expected "
                    << n * (round / 2 + 1);
    }
  }
  EXPECT_EQ(failures, 0);
  sh::barrier_all();
  deallocate(counters);
}

TEST(Barrier, BarrierCompletesEarlierPuts) {
  auto *slots = static_cast<std::int32_t *>(allocateZeroed(sh::n_pes(), sizeof(std::int32_t)));
  for (int round = 1; round <= 200; ++round) {
    // The source of a non-blocking put must live until the barrier has completed it.
    const std::int32_t value = round * 10 + sh::my_pe();
    for (int pe = 0; pe < sh::n_pes(); ++pe) aclshmem_putmem_nbi(slots + sh::my_pe(), &value, sizeof value, pe);
    aclshmem_barrier_all();
    const std::vector<std::int32_t> seen = testing::heapReadArray(slots, sh::n_pes());
    for (int pe = 0; pe < sh::n_pes(); ++pe) ASSERT_EQ(seen[pe], round * 10 + pe);
    aclshmemx_barrier_all_vec();
  }
  aclshmem_sync_all();
  deallocate(slots);
}

TEST(Teams, WorldTeam) {
  EXPECT_EQ(aclshmem_team_my_pe(ACLSHMEM_TEAM_WORLD), sh::my_pe());
  EXPECT_EQ(aclshmem_team_n_pes(ACLSHMEM_TEAM_WORLD), sh::n_pes());
  EXPECT_EQ(aclshmem_team_n_pes(17), -1);
  EXPECT_EQ(aclshmem_team_translate_pe(ACLSHMEM_TEAM_WORLD, sh::n_pes(), ACLSHMEM_TEAM_WORLD), -1);
}

TEST(Teams, SplitStridedTranslatesAndSynchronizes) {
  const int n = sh::n_pes();
  const int me = sh::my_pe();
  const int evens = (n + 1) / 2;
  aclshmem_team_t team = 12345;
  ASSERT_EQ(aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 2, evens, &team), 0);
  if (me % 2 == 0) {
    ASSERT_NE(team, ACLSHMEM_TEAM_INVALID);
    EXPECT_EQ(aclshmem_team_my_pe(team), me / 2);
    EXPECT_EQ(aclshmem_team_n_pes(team), evens);
    EXPECT_EQ(aclshmem_team_translate_pe(team, evens - 1, ACLSHMEM_TEAM_WORLD), 2 * (evens - 1));
    EXPECT_EQ(aclshmem_team_translate_pe(ACLSHMEM_TEAM_WORLD, me, team), me / 2);
    if (n > 1) {
      EXPECT_EQ(aclshmem_team_translate_pe(ACLSHMEM_TEAM_WORLD, 1, team), -1);
    }
    // The team's barrier works without the odd PEs.
    for (int i = 0; i < 100; ++i) aclshmem_barrier(team);
    aclshmem_team_destroy(team);
  } else {
    EXPECT_EQ(team, ACLSHMEM_TEAM_INVALID);
  }
  sh::barrier_all();
  // Splitting again reuses the index; barriers start clean.
  ASSERT_EQ(aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, n - 1, 1, 1, &team), 0);
  if (me == n - 1) {
    EXPECT_EQ(aclshmem_team_n_pes(team), 1);
    aclshmem_barrier(team);
    aclshmem_team_destroy(team);
  } else {
    EXPECT_EQ(team, ACLSHMEM_TEAM_INVALID);
  }
  sh::barrier_all();
}

TEST(Teams, BadSplitFailsOnEveryPe) {
  aclshmem_team_t team = 0;
  EXPECT_EQ(aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 1, sh::n_pes() + 1, &team), ACLSHMEM_INVALID_PARAM);
  EXPECT_EQ(team, ACLSHMEM_TEAM_INVALID);
  EXPECT_EQ(aclshmem_team_split_strided(42, 0, 1, 1, &team), ACLSHMEM_INVALID_PARAM);
  sh::barrier_all();
}

}  // namespace
}  // namespace tdist
