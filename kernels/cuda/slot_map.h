// kernels/cuda/slot_map.h - where the cuda bodies keep their signals in a context's slots (uint64
// slots, 64 bytes apart, from ctx.slot(0)), which configurations a context of `max_signals` slots
// on n PEs accepts, and the ranges of slots each kind of call uses. Plain C++ (the host checks and
// their tests need no CUDA); common.cuh says how the kernels use the slots.
//
//   kSlotEpoch .. +3 (kMaxBlocks packed words), kSlotArrivals (+ the GEMMs' stage word),
//   kSlotLastOneShot + {0, 1}: this PE's own words, never written by a peer;
//   entry[src]                  : from src, every body's entry handshake;
//   data[src][block]            : from src, the collectives (blocks = the map's data slots per source);
//   moe_counts[src], moe_done[src], moe_rows[src][local expert]: from src, the MoE all-to-all;
//   arrival(src, chunk), counted down from the top slot: from src, the decomposed GEMMs and the
//                                 fused AllGather + GEMM.
// Every peer-written slot is SET to the epoch of the call that writes it and never reset, and its
// receiver waits for it within that call, after the entry handshake (common.cuh): a write of a
// later call reaches a PE only once that PE has finished this one. So a slot may serve several
// kinds of call, with other writers (the MoE slots lie over the collectives' data slots, the GEMMs'
// arrivals over their top), but the ranges one call uses must be disjoint (checkDisjoint).
#pragma once

#include <string>
#include <vector>

#if defined(__CUDACC__)
#define TDIST_SLOT_MAP_HD __host__ __device__
#else
#define TDIST_SLOT_MAP_HD
#endif

namespace tdist::kernels::cuda::detail {

constexpr int kMaxBlocks = 32;  // blocks of one collective kernel (data slots per source)

constexpr int kSlotEpoch = 0;        // kMaxBlocks words, packed: slots 0 .. 3
constexpr int kSlotArrivals = 4;
constexpr int kSlotLastOneShot = 5;  // two slots: parity 0 and 1
constexpr int kSlotEntry = 7;
static_assert(kMaxBlocks * 8 <= (kSlotArrivals - kSlotEpoch) * 64);

struct SlotMap {
  int n = 1;
  int blocks = kMaxBlocks;  // data slots per source: the most blocks of one collective kernel
  TDIST_SLOT_MAP_HD int entry(int src) const { return kSlotEntry + src; }
  TDIST_SLOT_MAP_HD int data(int src, int block) const { return kSlotEntry + n + src * blocks + block; }
  // The MoE all-to-all's slots share the range of the collectives' data slots (no call uses both).
  TDIST_SLOT_MAP_HD int moeCounts(int src) const { return kSlotEntry + n + src; }
  TDIST_SLOT_MAP_HD int moeDone(int src) const { return kSlotEntry + 2 * n + src; }
  TDIST_SLOT_MAP_HD int moeRows(int src, int local_expert, int local_experts) const {
    return kSlotEntry + 3 * n + src * local_experts + local_expert;
  }
  // Slots the collectives need, and the MoE kernels with E experts.
  TDIST_SLOT_MAP_HD int collectiveSlots() const { return kSlotEntry + n * (1 + blocks); }
  TDIST_SLOT_MAP_HD int moeSlots(int experts) const { return kSlotEntry + 3 * n + experts; }
};

// The data slots per source a context of max_signals slots gives the collectives on n PEs (as
// many as fit, at most kMaxBlocks): a function of (max_signals, n) only, so that every call on a
// context sees the same map; 0 when not even one fits.
constexpr int dataBlocksFor(int max_signals, int n) {
  const int blocks = (max_signals - kSlotEntry - n) / n;
  return blocks < 1 ? 0 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);
}

// The fewest slots of each kind of call on n PEs (the ring takes two data slots per source).
constexpr int fewestSlotsForCollectives(int n) { return kSlotEntry + 2 * n; }
constexpr int fewestSlotsForRing(int n) { return kSlotEntry + 3 * n; }
constexpr long long slotsForGemm(int n, int chunks) { return kSlotEntry + static_cast<long long>(n) * (chunks + 1); }
// The arrival slot of (src, chunk): counted down from the top.
constexpr int arrivalSlotIndex(int max_signals, int chunks, int src, int chunk) {
  return max_signals - 1 - (src * chunks + chunk);
}

// A range [lo, hi) of slots and what it holds.
struct SlotRange {
  std::string name;
  long long lo = 0;
  long long hi = 0;
};

// The ranges of slots one call uses: the own words, and what peers write into.
enum class CallKind { Collective, Moe, Gemm };
std::vector<SlotRange> slotRangesOf(CallKind kind, int max_signals, int n, int chunks_or_experts);

// Throws Error(Internal) naming both ranges unless every range lies in [0, max_signals) and no
// two overlap.
void checkDisjoint(const std::vector<SlotRange> &ranges, int max_signals, const char *kernel);

}  // namespace tdist::kernels::cuda::detail
