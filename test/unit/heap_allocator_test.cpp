// Best fit, alignment, coalescing and the free checks of the symmetric heap's allocator.
#include "runtime/heap_allocator.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace tdist::runtime {
namespace {

constexpr std::size_t kBegin = 4096;
constexpr std::size_t kEnd = kBegin + 64 * 1024;

TEST(HeapAllocator, RoundsToGranuleAndAligns) {
  HeapAllocator heap(kBegin, kEnd);
  auto a = heap.allocate(1, 64);
  auto b = heap.allocate(100, 64);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, kBegin);
  EXPECT_EQ(*b, kBegin + 64);  // 1 byte took a whole granule
  EXPECT_EQ(heap.blockSize(*b), 128u);
  auto c = heap.allocate(64, 4096);
  ASSERT_TRUE(c);
  EXPECT_EQ(*c % 4096, 0u);
  // The padding in front of the aligned block stays allocatable.
  auto d = heap.allocate(64, 64);
  ASSERT_TRUE(d);
  EXPECT_LT(*d, *c);
}

TEST(HeapAllocator, RejectsZeroAndBadAlignment) {
  HeapAllocator heap(kBegin, kEnd);
  EXPECT_FALSE(heap.allocate(0, 64));
  EXPECT_FALSE(heap.allocate(64, 0));
  EXPECT_FALSE(heap.allocate(64, 48));
  EXPECT_EQ(heap.bytesFree(), kEnd - kBegin);
}

// A heap whose base is aligned to less than the alignment asked: the offset makes base + offset
// aligned (its phase), and the padding before it stays allocatable.
TEST(HeapAllocator, PhaseAlignsTheAddressOfAHeapWithALessAlignedBase) {
  constexpr std::uintptr_t base = (std::uintptr_t{7} << 20) + (std::uintptr_t{1} << 12);  // 7 MiB + 4 KiB
  constexpr std::size_t alignment = std::size_t{1} << 15;                                    // 32 KiB
  const std::size_t phase = HeapAllocator::phaseOf(base, alignment);
  EXPECT_EQ(phase, alignment - 4096);
  EXPECT_EQ(HeapAllocator::phaseOf(base, 4096), 0u);
  EXPECT_EQ(HeapAllocator::phaseOf(base, 16), 0u);  // below the granule: the granule's phase
  HeapAllocator heap(0, 256 * 1024);
  auto a = heap.allocate(100, alignment, phase);
  ASSERT_TRUE(a);
  EXPECT_EQ((base + *a) % alignment, 0u);
  EXPECT_EQ(*a, phase);
  auto b = heap.allocate(alignment, alignment, phase);
  ASSERT_TRUE(b);
  EXPECT_EQ((base + *b) % alignment, 0u);
  auto front = heap.allocate(64, 64);
  ASSERT_TRUE(front);
  EXPECT_LT(*front, *a);
  // A phase that is not below the alignment, or not a multiple of the granule, is refused.
  EXPECT_FALSE(heap.allocate(64, alignment, alignment));
  EXPECT_FALSE(heap.allocate(64, alignment, 32));
}

TEST(HeapAllocator, BestFitPicksTheSmallestHole) {
  HeapAllocator heap(kBegin, kEnd);
  auto big = heap.allocate(1024, 64);
  auto sep1 = heap.allocate(64, 64);
  auto small = heap.allocate(256, 64);
  auto sep2 = heap.allocate(64, 64);
  ASSERT_TRUE(big && sep1 && small && sep2);
  heap.free(*big);
  heap.free(*small);
  // 200 bytes fit both holes; the 256-byte one is the best fit.
  auto fit = heap.allocate(200, 64);
  ASSERT_TRUE(fit);
  EXPECT_EQ(*fit, *small);
}

TEST(HeapAllocator, CoalescesNeighbours) {
  HeapAllocator heap(kBegin, kEnd);
  std::vector<std::size_t> blocks;
  for (int i = 0; i < 16; ++i) blocks.push_back(*heap.allocate(4096, 64));
  EXPECT_FALSE(heap.allocate(64, 64));  // full
  // Free in an order that needs merges on both sides.
  for (int i : {1, 3, 2, 0, 5, 4, 15, 14, 6, 8, 7, 9, 11, 10, 13, 12}) heap.free(blocks[i]);
  EXPECT_EQ(heap.freeBlockCount(), 1u);
  EXPECT_EQ(heap.largestFree(), kEnd - kBegin);
  EXPECT_TRUE(heap.allocate(kEnd - kBegin, 64));
}

TEST(HeapAllocator, ExhaustionLeavesStateUnchanged) {
  HeapAllocator heap(kBegin, kEnd);
  auto a = heap.allocate(32 * 1024, 64);
  ASSERT_TRUE(a);
  std::size_t free_before = heap.bytesFree();
  EXPECT_FALSE(heap.allocate(48 * 1024, 64));
  EXPECT_EQ(heap.bytesFree(), free_before);
  EXPECT_EQ(heap.usedBlockCount(), 1u);
}

TEST(HeapAllocator, ExplainsWhyAFreeIsWrong) {
  HeapAllocator heap(kBegin, kEnd);
  auto a = *heap.allocate(256, 64);
  EXPECT_EQ(heap.checkFree(a), "");
  EXPECT_NE(heap.checkFree(a + 64).find("inside the block of 256 bytes"), std::string::npos);
  heap.free(a);
  EXPECT_NE(heap.checkFree(a).find("double free"), std::string::npos);
  EXPECT_NE(heap.checkFree(kEnd + 64).find("outside"), std::string::npos);
}

TEST(HeapAllocator, RandomWorkloadKeepsAccounting) {
  HeapAllocator heap(kBegin, kEnd);
  std::mt19937 rng(7);
  std::vector<std::pair<std::size_t, std::size_t>> live;
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      std::size_t bytes = 1 + rng() % 3000;
      std::size_t align = std::size_t{64} << (rng() % 4);
      if (auto off = heap.allocate(bytes, align)) {
        EXPECT_EQ(*off % align, 0u);
        for (auto [o, s] : live) EXPECT_TRUE(*off + bytes <= o || o + s <= *off);
        live.emplace_back(*off, heap.blockSize(*off));
      }
    } else {
      std::size_t i = rng() % live.size();
      heap.free(live[i].first);
      live.erase(live.begin() + static_cast<long>(i));
    }
    std::size_t used = 0;
    for (auto [o, s] : live) used += s;
    ASSERT_EQ(used + heap.bytesFree(), kEnd - kBegin);
  }
  for (auto [o, s] : live) heap.free(o);
  EXPECT_EQ(heap.freeBlockCount(), 1u);
}

}  // namespace
}  // namespace tdist::runtime
