// The remaining C entry points, and shmem calls made from the programs of a launch.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "aclshmem.h"
#include "tdist/dl.h"
#include "tdist/launch.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/ring.h"

namespace tdist {
namespace {

namespace sh = tdist::shmem;

using testing::next;
using testing::prev;

TEST(Coverage, SignedSixtyFourBitSignals) {
  auto *sig = static_cast<int64_t *>(aclshmem_calloc(1, sizeof(int64_t)));
  aclshmemx_signal_op_i64(sig, -(int64_t{1} << 40), ACLSHMEM_SIGNAL_SET, next(aclshmem_my_pe()));
  EXPECT_EQ(aclshmemx_signal_wait_until_i64(sig, ACLSHMEM_CMP_LT, 0), -(int64_t{1} << 40));
  aclshmem_barrier_all();
  aclshmemx_signal_op_i64(sig, 5, ACLSHMEM_SIGNAL_ADD, next(aclshmem_my_pe()));
  EXPECT_EQ(aclshmemx_signal_wait_until_i64(sig, ACLSHMEM_CMP_EQ, -(int64_t{1} << 40) + 5),
            -(int64_t{1} << 40) + 5);
  aclshmem_barrier_all();
  aclshmem_free(sig);
}

TEST(Coverage, TeamSyncAndAtomicsOfEveryWidth) {
  aclshmem_team_sync(ACLSHMEM_TEAM_WORLD);
  auto *u32 = static_cast<uint32_t *>(aclshmem_calloc(1, sizeof(uint32_t)));
  auto *sz = static_cast<size_t *>(aclshmem_calloc(1, sizeof(size_t)));
  auto *pd = static_cast<ptrdiff_t *>(aclshmem_calloc(1, sizeof(ptrdiff_t)));
  aclshmem_uint32_atomic_fetch_inc(u32, 0);
  aclshmem_size_atomic_fetch_add(sz, 3, 0);
  aclshmem_ptrdiff_atomic_add(pd, -2, 0);
  aclshmem_team_sync(ACLSHMEM_TEAM_WORLD);
  const int n = aclshmem_n_pes();
  EXPECT_EQ(aclshmem_uint32_atomic_fetch(u32, 0), static_cast<uint32_t>(n));
  EXPECT_EQ(aclshmem_size_g(sz, 0), static_cast<size_t>(3 * n));
  EXPECT_EQ(aclshmem_ptrdiff_g(pd, 0), -2 * n);
  aclshmem_barrier_all();
  aclshmem_free(pd);
  aclshmem_free(sz);
  aclshmem_free(u32);
}

// Programs of a launch use the device functions directly: each program puts its tile to the
// next PE with a signal, then waits for the tile from the previous PE.
TEST(Coverage, DeviceFunctionsFromPrograms) {
  constexpr int kPrograms = 8;
  constexpr int kTile = 256;
  auto *inbox = static_cast<std::int32_t *>(allocate(sizeof(std::int32_t) * kPrograms * kTile));
  auto *sigs = static_cast<std::int32_t *>(allocateZeroed(kPrograms * 16, sizeof(std::int32_t)));
  std::vector<std::int32_t> outbox(kPrograms * kTile);
  for (int i = 0; i < kPrograms * kTile; ++i) outbox[i] = sh::my_pe() * 100000 + i;
  std::atomic<int> bad{0};
  LaunchOptions options;
  options.workers = 1;
  launch(Grid{kPrograms}, [&] {
    const int p = dl::program_id();
    sh::putmem_signal(inbox + p * kTile, outbox.data() + p * kTile, kTile * sizeof(std::int32_t),
                      sigs + p * 16, 1, sh::SignalOp::Set, next(sh::my_pe()));
    sh::signal_wait_until(sigs + p * 16, sh::Cmp::EQ, 1);
    std::vector<std::int32_t> tile(kTile);
    sh::getmem(tile.data(), inbox + p * kTile, kTile * sizeof(std::int32_t), sh::my_pe());
    for (int i = 0; i < kTile; ++i) {
      if (tile[i] != prev(sh::my_pe()) * 100000 + p * kTile + i) ++bad;
    }
  }, options);
  EXPECT_EQ(bad.load(), 0);
  sh::barrier_all();
  deallocate(sigs);
  deallocate(inbox);
}

}  // namespace
}  // namespace tdist
