// Collective calls that differ between PEs: every PE fails alike, naming every PE's call, and the
// heap stays symmetric. Teams whose index is reused keep their barriers sound.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aclshmem.h"
#include "tdist/dl.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/heap_access.h"

namespace tdist {
namespace {

namespace sh = tdist::shmem;

std::ptrdiff_t offsetOf(const void *p) {
  return static_cast<const char *>(p) - static_cast<const char *>(heapBase());
}

// Every PE gets the same offset for p.
void expectSymmetric(const void *p) {
  auto *offsets = static_cast<std::int64_t *>(aclshmem_calloc(sh::n_pes(), sizeof(std::int64_t)));
  ASSERT_NE(offsets, nullptr);
  for (int pe = 0; pe < sh::n_pes(); ++pe) sh::p<std::int64_t>(offsets + sh::my_pe(), offsetOf(p), pe);
  aclshmem_barrier_all();
  const std::vector<std::int64_t> published = testing::heapReadArray(offsets, sh::n_pes());
  for (int pe = 0; pe < sh::n_pes(); ++pe) EXPECT_EQ(published[pe], offsetOf(p)) << "PE " << pe;
  aclshmem_barrier_all();
  aclshmem_free(offsets);
}

// PE 0 allocates while the others are in barrier_all: both calls fail everywhere, and the next
// allocation is symmetric again.
TEST(Collective, MallocAgainstBarrierAllFailsOnEveryPe) {
  if (sh::n_pes() == 1) GTEST_SKIP() << "needs two PEs";
  void *probe = aclshmem_malloc(64);
  ASSERT_NE(probe, nullptr);
  aclshmem_free(probe);
  if (sh::my_pe() == 0) {
    EXPECT_EQ(aclshmem_malloc(64), nullptr);
  } else {
    aclshmem_barrier_all();
  }
  const std::string error = aclshmemx_last_error();
  EXPECT_NE(error.find("differs between PEs"), std::string::npos) << error;
  EXPECT_NE(error.find("PE 0 called aclshmem_malloc(64)"), std::string::npos) << error;
  for (int pe = 1; pe < sh::n_pes(); ++pe) {
    EXPECT_NE(error.find("PE " + std::to_string(pe) + " called aclshmem_barrier_all()"), std::string::npos) << error;
  }
  void *next = aclshmem_malloc(64);
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next, probe);  // nothing was allocated by the failed call
  expectSymmetric(next);
  aclshmem_free(next);
}

TEST(Collective, AlignIsNamedAsCalled) {
  if (sh::n_pes() == 1) GTEST_SKIP() << "needs two PEs";
  void *p = aclshmem_align(64, sh::my_pe() == 0 ? 128 : 256);
  EXPECT_EQ(p, nullptr);
  const std::string error = aclshmemx_last_error();
  EXPECT_NE(error.find("PE 0 called aclshmem_align(64, 128)"), std::string::npos) << error;
  EXPECT_NE(error.find("PE 1 called aclshmem_align(64, 256)"), std::string::npos) << error;
  EXPECT_EQ(error.find("aclshmem_malloc"), std::string::npos) << error;
}

// aclshmem_malloc(n) and aclshmem_align(64, n) are the same operation: they agree.
TEST(Collective, MallocAndAlignOfTheDefaultAlignmentAgree) {
  void *p = sh::my_pe() % 2 == 0 ? aclshmem_malloc(96) : aclshmem_align(64, 96);
  ASSERT_NE(p, nullptr) << aclshmemx_last_error();
  expectSymmetric(p);
  aclshmem_free(p);
}

TEST(Collective, TeamBarriersMismatchedWithAllocationFail) {
  if (sh::n_pes() == 1) GTEST_SKIP() << "needs two PEs";
  if (sh::my_pe() == 0) {
    aclshmem_barrier(ACLSHMEM_TEAM_WORLD);
  } else {
    EXPECT_EQ(aclshmem_calloc(2, 8), nullptr);
  }
  const std::string error = aclshmemx_last_error();
  EXPECT_NE(error.find("PE 0 called aclshmem_barrier()"), std::string::npos) << error;
  EXPECT_NE(error.find("PE 1 called aclshmem_calloc(2, 8)"), std::string::npos) << error;
}

// Team indices are reused by teams split from other parents; barriers on them stay sound however
// far ahead a member ran on the previous team of the index.
TEST(Collective, ReusedTeamIndicesKeepTheirBarriers) {
  const int n = sh::n_pes();
  for (int round = 0; round < 20; ++round) {
    // A team of every PE but the last, many barriers, then destroyed ...
    const int size = n > 1 ? n - 1 : 1;
    aclshmem_team_t team = ACLSHMEM_TEAM_INVALID;
    ASSERT_EQ(aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 1, size, &team), 0);
    if (team != ACLSHMEM_TEAM_INVALID) {
      for (int b = 0; b < round + 1; ++b) aclshmem_barrier(team);
      aclshmem_team_destroy(team);
    }
    // ... then the same index for a team of the odd PEs, split from a team of all PEs.
    aclshmem_team_t all = ACLSHMEM_TEAM_INVALID;
    ASSERT_EQ(aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 1, n, &all), 0);
    aclshmem_team_t odd = ACLSHMEM_TEAM_INVALID;
    if (n > 1) {
      ASSERT_EQ(aclshmem_team_split_strided(all, 1, 2, n / 2, &odd), 0);
      if (odd != ACLSHMEM_TEAM_INVALID) {
        for (int b = 0; b < 3; ++b) aclshmem_barrier(odd);
        aclshmem_team_destroy(odd);
      }
    }
    aclshmem_team_destroy(all);
    aclshmem_barrier_all();
  }
  // (A member left polling a passed step would end the job at its wait deadline instead.)
}

TEST(Collective, AWaitOverTooManySlotsIsRefused) {
  auto *sig = static_cast<std::int64_t *>(aclshmem_calloc(8, sizeof(std::int64_t)));
  for (int n : {0, -1, dl::kMaxWaitSlots + 1}) {
    try {
      dl::wait(sig, n, std::int64_t{0});
      ADD_FAILURE() << n << " slots were accepted";
    } catch (const Error &error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidParam);
      EXPECT_NE(std::string(error.what()).find("must be in 1..65536"), std::string::npos) << error.what();
    }
  }
  aclshmem_free(sig);
}

TEST(Collective, AWaitOnAMisalignedSlotIsRefused) {
  auto *sig = static_cast<std::int64_t *>(aclshmem_calloc(16, sizeof(std::int64_t)));
  auto *misaligned = reinterpret_cast<std::int64_t *>(reinterpret_cast<char *>(sig) + 4);
  try {
    dl::wait(misaligned, 1, std::int64_t{0});
    ADD_FAILURE() << "a misaligned slot was accepted";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidParam);
    EXPECT_NE(std::string(error.what()).find("is not aligned to 8 bytes"), std::string::npos) << error.what();
  }
  aclshmem_free(sig);
}

}  // namespace
}  // namespace tdist
