// The dl primitives across PEs: a tile-wise AllGather with per-tile signals, run as a grid of
// programs on every PE (producer and consumer programs in one launch).
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "tdist/dl.h"
#include "tdist/launch.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist {
namespace {

TEST(Dl, RankAndSymmAt) {
  EXPECT_EQ(dl::rank(), shmem::my_pe());
  EXPECT_EQ(dl::num_ranks(), shmem::n_pes());
  auto *x = static_cast<int *>(allocate(sizeof(int)));
  for (int r = 0; r < dl::num_ranks(); ++r) {
    EXPECT_EQ(dl::symm_at(x, r), static_cast<int *>(shmem::ptr(x, r)));
  }
  shmem::barrier_all();
  deallocate(x);
}

// Every PE owns kTiles tiles; program t of PE r pushes tile t to every peer and notifies that
// tile's slot there; programs kTiles.. consume: each waits for one source PE's tiles (all
// kTiles slots in one wait) and checks them. The epoch makes the signals monotone across
// iterations, so nobody resets them. The tiles move by put and get, not by loads and stores
// through symm_at: on some backends the host cannot load the heap.
TEST(Dl, TileAllGatherWithPerTileSignals) {
  constexpr int kTiles = 4;
  constexpr int kTileInts = 1024;
  constexpr int kIterations = 5;
  const int n = dl::num_ranks();
  const int me = dl::rank();
  auto *gathered = static_cast<std::int32_t *>(allocate(sizeof(std::int32_t) * n * kTiles * kTileInts));
  auto *signals = static_cast<std::int64_t *>(
      allocateZeroed(static_cast<std::size_t>(n) * kTiles * dl::kSignalSlotStride<std::int64_t>, sizeof(std::int64_t)));
  std::vector<std::int32_t> mine(kTiles * kTileInts);
  std::atomic<int> bad{0};

  for (std::int64_t epoch = 1; epoch <= kIterations; ++epoch) {
    for (int i = 0; i < kTiles * kTileInts; ++i) mine[i] = static_cast<std::int32_t>(epoch * 1'000'000 + me * 10'000 + i);
    LaunchOptions options;
    options.workers = 1;
    launch(Grid{kTiles + n}, [&] {
      const int pid = dl::program_id();
      if (pid < kTiles) {
        const int tile = pid;
        for (int step = 0; step < n; ++step) {
          const int peer = (me + step) % n;  // start with the local copy, as the seeds swizzle
          shmem::putmem(gathered + (me * kTiles + tile) * kTileInts, mine.data() + tile * kTileInts,
                        kTileInts * sizeof(std::int32_t), peer);
          dl::notify(signals + (me * kTiles + tile) * dl::kSignalSlotStride<std::int64_t>, peer, epoch);
        }
      } else {
        const int src = (me + pid - kTiles) % n;
        dl::Token token = dl::wait(signals + src * kTiles * dl::kSignalSlotStride<std::int64_t>, kTiles, epoch);
        std::vector<std::int32_t> data(kTiles * kTileInts);
        shmem::getmem(data.data(), dl::consume_token(gathered + src * kTiles * kTileInts, token),
                      data.size() * sizeof(std::int32_t), me);
        for (int i = 0; i < kTiles * kTileInts; i += 97) {
          if (data[i] != epoch * 1'000'000 + src * 10'000 + i) ++bad;
        }
      }
    }, options);
    // Next epoch overwrites `gathered`: everybody must be done reading.
    shmem::barrier_all();
  }
  EXPECT_EQ(bad.load(), 0);
  deallocate(signals);
  deallocate(gathered);
}

TEST(Dl, NotifyAddCountsArrivals) {
  auto *counter = static_cast<std::int32_t *>(allocateZeroed(1, sizeof(std::int32_t)));
  const int n = dl::num_ranks();
  launch(Grid{8}, [&] { dl::notify(counter, 0, std::int32_t{1}, dl::SignalOp::Add); });
  if (dl::rank() == 0) dl::wait(counter, 1, static_cast<std::int32_t>(8 * n));
  shmem::barrier_all();
  deallocate(counter);
}

}  // namespace
}  // namespace tdist
