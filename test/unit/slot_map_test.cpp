// The cuda bodies' slot map (kernels/cuda/slot_map.h), on the host: for every configuration that
// the checks accept, the slots one call uses lie in the context and never overlap; and the check
// itself names an overlap.
#include <gtest/gtest.h>

#include <string>

#include "kernels/cuda/slot_map.h"
#include "tdist/error.h"

namespace tdist::kernels::cuda::detail {
namespace {

constexpr int kPes[] = {1, 2, 3, 4, 5, 6, 7, 8, 16, 64};

TEST(SlotMap, EveryAcceptedCollectiveConfigurationUsesDisjointSlots) {
  for (int n : kPes) {
    for (int max_signals = 1; max_signals <= 4096; ++max_signals) {
      const int blocks = dataBlocksFor(max_signals, n);
      if (blocks < 1) {
        EXPECT_LT(max_signals, fewestSlotsForCollectives(n)) << "n " << n;
        continue;
      }
      EXPECT_GE(max_signals, fewestSlotsForCollectives(n));
      EXPECT_LE(blocks, kMaxBlocks);
      const SlotMap map{n, blocks};
      EXPECT_LE(map.collectiveSlots(), max_signals) << "n " << n << ", max_signals " << max_signals;
      EXPECT_NO_THROW(checkDisjoint(slotRangesOf(CallKind::Collective, max_signals, n, 0), max_signals, "test"))
          << "n " << n << ", max_signals " << max_signals;
      if (blocks >= 2) {
        EXPECT_GE(max_signals, fewestSlotsForRing(n));
      }
    }
  }
}

TEST(SlotMap, EveryAcceptedMoeConfigurationUsesDisjointSlots) {
  for (int n : kPes) {
    for (int max_signals = 1; max_signals <= 2048; ++max_signals) {
      const int blocks = dataBlocksFor(max_signals, n);
      if (blocks < 1) continue;
      const SlotMap map{n, blocks};
      for (int experts = n; experts <= 8 * n; experts += n) {
        if (map.moeSlots(experts) > max_signals) continue;  // refused (requireSlots)
        EXPECT_NO_THROW(checkDisjoint(slotRangesOf(CallKind::Moe, max_signals, n, experts), max_signals, "test"))
            << "n " << n << ", max_signals " << max_signals << ", experts " << experts;
      }
    }
  }
}

TEST(SlotMap, EveryAcceptedGemmConfigurationUsesDisjointSlots) {
  for (int n : kPes) {
    for (int chunks = 1; chunks <= 64; ++chunks) {
      for (int max_signals = 1; max_signals <= 4200; max_signals += (max_signals < 600 ? 1 : 37)) {
        if (slotsForGemm(n, chunks) > max_signals) continue;  // refused (requireSignals)
        EXPECT_NO_THROW(checkDisjoint(slotRangesOf(CallKind::Gemm, max_signals, n, chunks), max_signals, "test"))
            << "n " << n << ", chunks " << chunks << ", max_signals " << max_signals;
        // The arrival slots are the top n * chunks ones, each (src, chunk) its own.
        EXPECT_EQ(arrivalSlotIndex(max_signals, chunks, 0, 0), max_signals - 1);
        EXPECT_EQ(arrivalSlotIndex(max_signals, chunks, n - 1, chunks - 1), max_signals - n * chunks);
      }
    }
  }
}

TEST(SlotMap, TheCheckNamesAnOverlapAndARangeOutsideTheContext) {
  try {
    checkDisjoint({{"entry", 7, 10}, {"data", 9, 20}}, 64, "all_reduce");
    ADD_FAILURE() << "no error for overlapping ranges";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::Internal);
    EXPECT_NE(std::string(e.what()).find("all_reduce: the slots data [9, 20) overlap entry [7, 10)"),
              std::string::npos)
        << e.what();
  }
  try {
    checkDisjoint({{"gemm arrivals", 60, 70}}, 64, "all_gather_gemm");
    ADD_FAILURE() << "no error for a range past the context";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("outside the context's 64"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(checkDisjoint({{"a", 0, 7}, {"b", 7, 9}, {"empty", 3, 3}}, 9, "test"));
}

}  // namespace
}  // namespace tdist::kernels::cuda::detail
