// The template library called from the programs of a launch: program coordinates, and
// barrier_all called by every program of the grid, as compiled kernels call it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <tuple>

#include "tdist/dl.h"
#include "tdist/launch.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/ring.h"
#include "test/template_library/ciface.h"

namespace tdist {
namespace {

using testing::entry;

using Query = std::int32_t();
using AxisQuery = std::int32_t(std::int32_t);

TEST(TemplateLaunch, PeAndProgramCoordinates) {
  EXPECT_EQ(entry<Query>("_mlir_ciface_aclshmem_my_pe")(), shmem::my_pe());
  EXPECT_EQ(entry<Query>("_mlir_ciface_aclshmem_n_pes")(), shmem::n_pes());
  auto programId = entry<AxisQuery>("_mlir_ciface_tdist_program_id");
  auto numPrograms = entry<AxisQuery>("_mlir_ciface_tdist_num_programs");
  for (int axis = 0; axis < 3; ++axis) {  // outside a launch
    EXPECT_EQ(programId(axis), 0);
    EXPECT_EQ(numPrograms(axis), 1);
  }
  const Grid grid{3, 2, 2};
  const int dims[3] = {grid.x, grid.y, grid.z};
  std::mutex mutex;
  std::set<std::tuple<int, int, int>> seen;
  std::atomic<int> bad{0};
  launch(grid, [&] {
    for (int axis = 0; axis < 3; ++axis) {
      if (programId(axis) != dl::program_id(axis) || numPrograms(axis) != dims[axis]) ++bad;
    }
    std::lock_guard<std::mutex> lock(mutex);
    seen.emplace(programId(0), programId(1), programId(2));
  });
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(seen.size(), 12u);
}

// Every program of a grid of 4 on every PE adds 1 to the next PE's counter, then calls the
// barrier; after it, this PE's counter must hold the additions of all 4 programs of the
// previous PE for every round so far (no program left before all arrived), and at most those
// of one round more (none is past the next barrier). The rounds rotate over barrier_all,
// barrier_all_vec and sync_all; launches repeat with 1, 2 and 4 workers.
TEST(TemplateLaunch, BarrierAllFromEveryProgramOfTheGrid) {
  constexpr int kPrograms = 4;
  constexpr int kRounds = 6;
  const char *barriers[] = {"_mlir_ciface_aclshmem_barrier_all", "_mlir_ciface_aclshmemx_barrier_all_vec",
                            "_mlir_ciface_aclshmem_sync_all"};
  auto *counter = static_cast<std::int64_t *>(allocateZeroed(1, sizeof(std::int64_t)));
  auto read = entry<std::int64_t(std::int64_t *, std::int32_t)>("_mlir_ciface_aclshmem_int64_g");
  const int me = shmem::my_pe();
  std::int64_t base = 0;
  std::atomic<int> early{0}, late{0};
  for (int workers : {1, 2, 4}) {
    LaunchOptions options;
    options.workers = workers;
    launch(Grid{kPrograms}, [&] {
      for (int round = 1; round <= kRounds; ++round) {
        shmem::atomic_add(counter, std::int64_t{1}, testing::next(me));
        entry<void()>(barriers[round % 3])();
        const std::int64_t seen = read(counter, me);
        if (seen < base + kPrograms * round) ++early;
        if (seen > base + kPrograms * (round + 1)) ++late;
      }
    }, options);
    base += kPrograms * kRounds;
  }
  EXPECT_EQ(early.load(), 0);
  EXPECT_EQ(late.load(), 0);
  shmem::barrier_all();
  EXPECT_EQ(*counter, base);
  deallocate(counter);
}

// A program that throws ends the launch: the programs waiting in the barrier unwind at once,
// without the PE barrier, so the PEs' barriers stay in step afterwards.
TEST(TemplateLaunch, ProgramsWaitingInTheBarrierUnwindWhenTheLaunchFails) {
  const auto started = std::chrono::steady_clock::now();
  LaunchOptions options;
  options.workers = 2;
  EXPECT_THROW(launch(Grid{4}, [] {
    if (dl::program_id() == 3) throw std::runtime_error("program 3 failed");
    entry<void()>("_mlir_ciface_aclshmem_barrier_all")();
  }, options), std::runtime_error);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  for (int i = 0; i < 3; ++i) shmem::barrier_all();
}

// Launches that call no barrier, and barriers outside launches, are unchanged around them.
TEST(TemplateLaunch, BarrierOutsideALaunchAfterOne) {
  launch(Grid{3}, [] {});
  for (int i = 0; i < 10; ++i) entry<void()>("_mlir_ciface_aclshmem_barrier_all")();
  launch(Grid{2}, [] { entry<void()>("_mlir_ciface_aclshmem_barrier_all")(); });
  entry<void()>("_mlir_ciface_aclshmem_sync_all")();
}

}  // namespace
}  // namespace tdist
