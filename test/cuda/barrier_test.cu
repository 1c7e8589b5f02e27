// Device barriers: no PE leaves a barrier before every member arrived. Before barrier `it` each
// member stores `it` into its own slot of every member's arrival array; after it, each member
// reads its array: every slot must be at least `it` (everyone arrived) and at most `it + 1`
// (a member can be one barrier ahead, never two: that would need this PE's next arrival).
// Members arrive after a pseudo-random delay, different per PE and iteration, so that every PE
// is sometimes the last.
#include <cstdint>

#include "test/cuda/cuda_test_support.cuh"

namespace tdist::cuda_test {
namespace {

enum class Barrier { BarrierAll, SyncAll, BarrierAllBlock, Team, TeamSync };

__device__ void randomDelay(int pe, int iteration) {
  __nanosleep(mix(static_cast<std::uint32_t>(pe), static_cast<std::uint32_t>(iteration), 17u) % 4096u);
}

// The members of the barrier are world PEs start + k * stride, k < size; this PE is member
// `mine`. One thread runs the loop, except for the block form, where the whole block calls the
// barrier (thread 0 does the stores and the checks).
template <Barrier barrier>
__global__ void barrierLoop(std::int64_t *arrivals, int iterations, int team, int start, int stride, int size,
                            int mine, Mismatches *m) {
  const bool leader = threadIdx.x == 0;
  for (int it = 0; it < iterations; ++it) {
    if (leader) {
      randomDelay(dev::rank(), it);
      for (int k = 0; k < size; ++k) dev::p(arrivals + mine, std::int64_t{it}, start + k * stride);
    }
    if constexpr (barrier == Barrier::BarrierAll) dev::barrier_all();
    else if constexpr (barrier == Barrier::SyncAll) dev::sync_all();
    else if constexpr (barrier == Barrier::BarrierAllBlock) {
      __syncthreads();  // block form: every thread of the block calls it
      dev::barrier_all_block();
    } else if constexpr (barrier == Barrier::Team) dev::barrier(team);
    else dev::sync(team);
    if (leader) {
      for (int k = 0; k < size; ++k) {
        const std::int64_t seen = dev::atomic_fetch(arrivals + k, dev::rank());
        if (seen < it || seen > it + 1) mismatch(m, static_cast<long long>(it) * 1000 + k, it, seen);
      }
    }
  }
}

template <Barrier barrier>
void worldBarriers(cudaStream_t stream, int iterations, int threads) {
  const int n = tdist::nPes();
  Symmetric<std::int64_t> arrivals(n);
  DeviceMismatches mismatches;
  barrierLoop<barrier><<<1, threads, 0, stream>>>(arrivals.get(), iterations, sh::kTeamWorld, 0, 1, n,
                                                  tdist::myPe(), mismatches.get());
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  // Where = iteration * 1000 + the member whose slot was out of range.
  TDIST_EXPECT_NO_MISMATCH(mismatches, "world barrier");
  sh::barrier_all();
}

TEST_F(CudaTest, TenThousandBarrierAllWithRandomArrivals) {
  worldBarriers<Barrier::BarrierAll>(stream_, 10000, 1);
}

TEST_F(CudaTest, SyncAllWithRandomArrivals) { worldBarriers<Barrier::SyncAll>(stream_, 2000, 1); }

TEST_F(CudaTest, BarrierAllBlockWithRandomArrivals) {
  worldBarriers<Barrier::BarrierAllBlock>(stream_, 2000, 128);
}

// The even PEs form a strided team; they barrier on it from the device while the odd PEs run
// nothing at all: a team barrier that waited for a non-member would pass its deadline.
template <Barrier barrier>
void strideTwoTeam(cudaStream_t stream) {
  const int n = tdist::nPes();
  const int size = (n + 1) / 2;
  sh::Team team = sh::team_split_strided(sh::kTeamWorld, 0, 2, size);
  Symmetric<std::int64_t> arrivals(size);
  DeviceMismatches mismatches;
  if (tdist::myPe() % 2 == 0) {
    ASSERT_NE(team, sh::kTeamInvalid);
    ASSERT_EQ(sh::team_my_pe(team), tdist::myPe() / 2);
    ASSERT_EQ(sh::team_n_pes(team), size);
    barrierLoop<barrier><<<1, 1, 0, stream>>>(arrivals.get(), 2000, team, 0, 2, size, tdist::myPe() / 2,
                                              mismatches.get());
    TDIST_ASSERT_CUDA(cudaGetLastError());
    TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
    TDIST_EXPECT_NO_MISMATCH(mismatches, "barrier of the stride-2 team");
  } else {
    EXPECT_EQ(team, sh::kTeamInvalid);
  }
  sh::barrier_all();
  if (team != sh::kTeamInvalid) sh::team_destroy(team);
}

TEST_F(CudaTest, TeamBarrierOnAStridedTeam) { strideTwoTeam<Barrier::Team>(stream_); }
TEST_F(CudaTest, TeamSyncOnAStridedTeam) { strideTwoTeam<Barrier::TeamSync>(stream_); }

}  // namespace
}  // namespace tdist::cuda_test
