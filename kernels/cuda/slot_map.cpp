// kernels/cuda/slot_map.cpp - the slot ranges of each kind of cuda call, and their check.
#include "kernels/cuda/slot_map.h"

#include <cstddef>

#include "tdist/error.h"

namespace tdist::kernels::cuda::detail {

std::vector<SlotRange> slotRangesOf(CallKind kind, int max_signals, int n, int chunks_or_experts) {
  std::vector<SlotRange> ranges;
  ranges.push_back({"own words", kSlotEpoch, kSlotEntry});
  ranges.push_back({"entry", kSlotEntry, kSlotEntry + n});
  switch (kind) {
    case CallKind::Collective: {
      const SlotMap map{n, dataBlocksFor(max_signals, n)};
      ranges.push_back({"data", map.data(0, 0), map.collectiveSlots()});
      break;
    }
    case CallKind::Moe: {
      const SlotMap map{n, dataBlocksFor(max_signals, n)};
      const int experts = chunks_or_experts;
      ranges.push_back({"moe_counts", map.moeCounts(0), map.moeCounts(0) + n});
      ranges.push_back({"moe_done", map.moeDone(0), map.moeDone(0) + n});
      ranges.push_back({"moe_rows", map.moeRows(0, 0, experts / n), map.moeSlots(experts)});
      break;
    }
    case CallKind::Gemm: {
      const int chunks = chunks_or_experts;
      ranges.push_back({"gemm arrivals", arrivalSlotIndex(max_signals, chunks, n - 1, chunks - 1), max_signals});
      break;
    }
  }
  return ranges;
}

void checkDisjoint(const std::vector<SlotRange> &ranges, int max_signals, const char *kernel) {
  auto text = [](const SlotRange &r) {
    return r.name + " [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + ")";
  };
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const SlotRange &a = ranges[i];
    if (a.lo < 0 || a.hi > max_signals || a.lo > a.hi) {
      throw Error(ErrorCode::Internal, std::string(kernel) + ": the slots " + text(a) + " are outside the context's " +
                                           std::to_string(max_signals));
    }
    for (std::size_t j = 0; j < i; ++j) {
      const SlotRange &b = ranges[j];
      if (a.lo < b.hi && b.lo < a.hi && a.lo < a.hi && b.lo < b.hi) {
        throw Error(ErrorCode::Internal, std::string(kernel) + ": the slots " + text(a) + " overlap " + text(b));
      }
    }
  }
}

}  // namespace tdist::kernels::cuda::detail
