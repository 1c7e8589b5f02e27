// Collective allocation across PEs: symmetric offsets, and errors that every PE reports alike.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aclshmem.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/heap_access.h"

namespace tdist {
namespace {

namespace sh = tdist::shmem;

std::ptrdiff_t offsetOf(const void *p) {
  return static_cast<const char *>(p) - static_cast<const char *>(heapBase());
}

// Every PE publishes the offset it got; all must agree.
void expectSameOffsetEverywhere(const void *p) {
  auto *offsets = static_cast<std::int64_t *>(allocateZeroed(sh::n_pes(), sizeof(std::int64_t)));
  for (int pe = 0; pe < sh::n_pes(); ++pe) sh::p<std::int64_t>(offsets + sh::my_pe(), offsetOf(p), pe);
  sh::barrier_all();
  const std::vector<std::int64_t> published = testing::heapReadArray(offsets, sh::n_pes());
  for (int pe = 0; pe < sh::n_pes(); ++pe) EXPECT_EQ(published[pe], offsetOf(p)) << "PE " << pe;
  sh::barrier_all();
  deallocate(offsets);
}

TEST(Heap, AllocationsAreSymmetric) {
  std::vector<void *> blocks;
  for (std::size_t bytes : {1, 64, 1000, 4096, 65536}) blocks.push_back(aclshmem_malloc(bytes));
  blocks.push_back(aclshmem_align(4096, 10));
  aclshmem_free(blocks[1]);
  aclshmem_free(blocks[3]);
  blocks.push_back(aclshmem_calloc(10, 100));
  for (std::size_t i : {0, 2, 4, 5, 6}) {
    ASSERT_NE(blocks[i], nullptr);
    expectSameOffsetEverywhere(blocks[i]);
  }
  for (std::size_t i : {0, 2, 4, 5, 6}) aclshmem_free(blocks[i]);
}

TEST(Heap, SizeMismatchIsReportedOnEveryPe) {
  const std::size_t mine = 4096 * (sh::my_pe() + 1);
  void *p = aclshmem_malloc(mine);
  if (sh::n_pes() == 1) {
    EXPECT_NE(p, nullptr);
    aclshmem_free(p);
    return;
  }
  EXPECT_EQ(p, nullptr);
  std::string error = aclshmemx_last_error();
  EXPECT_NE(error.find("aclshmem_malloc"), std::string::npos) << error;
  for (int pe = 0; pe < sh::n_pes(); ++pe) {
    std::string asked = "PE " + std::to_string(pe) + " called aclshmem_malloc(" + std::to_string(4096 * (pe + 1)) + ")";
    EXPECT_NE(error.find(asked), std::string::npos) << error;
  }
  // The heap is unchanged and still works.
  void *q = aclshmem_malloc(128);
  ASSERT_NE(q, nullptr);
  expectSameOffsetEverywhere(q);
  aclshmem_free(q);
}

TEST(Heap, OrderMismatchIsReportedOnEveryPe) {
  void *a = aclshmem_malloc(256);
  ASSERT_NE(a, nullptr);
  if (sh::n_pes() == 1) {
    aclshmem_free(a);
    return;
  }
  // PE 0 frees while the others allocate: the calls differ.
  if (sh::my_pe() == 0) {
    aclshmem_free(a);
  } else {
    EXPECT_EQ(aclshmem_malloc(256), nullptr);
  }
  std::string error = aclshmemx_last_error();
  EXPECT_NE(error.find("PE 0 called aclshmem_free"), std::string::npos) << error;
  EXPECT_NE(error.find("PE 1 called aclshmem_malloc(256)"), std::string::npos) << error;
  // Nothing happened: a is still allocated on every PE.
  aclshmem_free(a);
  EXPECT_EQ(std::string(aclshmemx_last_error()), error);  // no new error
}

TEST(Heap, DoubleFreeOnOnePeFailsOnAll) {
  void *a = aclshmem_malloc(512);
  void *b = aclshmem_malloc(512);
  aclshmem_free(a);
  // PE n-1 frees a again; the others free b: PE n-1's record differs, and its own check fails.
  aclshmem_free(sh::my_pe() == sh::n_pes() - 1 ? a : b);
  std::string error = aclshmemx_last_error();
  if (sh::my_pe() == sh::n_pes() - 1) {
    EXPECT_NE(error.find("double free"), std::string::npos) << error;
  } else {
    EXPECT_NE(error.find("aclshmem_free: collective call"), std::string::npos) << error;
    EXPECT_NE(error.find("differs between PEs"), std::string::npos) << error;
  }
  aclshmem_free(b);  // b is still allocated everywhere
  void *c = aclshmem_malloc(1024);  // a and b coalesced again
  EXPECT_EQ(c, a);
  aclshmem_free(c);
}

TEST(Heap, ForeignPointerFreeFailsOnAll) {
  int local = 0;
  void *a = aclshmem_malloc(64);
  aclshmem_free(sh::my_pe() == 0 ? static_cast<void *>(&local) : a);
  std::string error = aclshmemx_last_error();
  if (sh::my_pe() == 0) {
    EXPECT_NE(error.find("not on the symmetric heap"), std::string::npos) << error;
  }
  else EXPECT_NE(error.find("aclshmem_free"), std::string::npos) << error;
  aclshmem_free(a);
}

TEST(Heap, ExhaustionIsCollective) {
  void *too_big = aclshmem_malloc(std::size_t{1} << 40);
  EXPECT_EQ(too_big, nullptr);
  EXPECT_NE(std::string(aclshmemx_last_error()).find("cannot allocate"), std::string::npos);
  void *fine = aclshmem_malloc(1 << 20);
  ASSERT_NE(fine, nullptr);
  expectSameOffsetEverywhere(fine);
  aclshmem_free(fine);
}

TEST(Heap, TensorsAreSymmetric) {
  Tensor t = createTensor({16, 16}, DType::BF16);
  EXPECT_EQ(t.nbytes(), 512u);
  expectSameOffsetEverywhere(t.data);
  freeTensor(t);
}

}  // namespace
}  // namespace tdist
