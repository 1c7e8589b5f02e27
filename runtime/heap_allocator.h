// runtime/heap_allocator.h - best-fit allocator over the offsets of one symmetric heap.
//
// Deterministic: the same sequence of calls gives the same offsets on every PE, which is what
// makes collective allocation symmetric. Free blocks are kept by address (to coalesce) and by
// size (to find the best fit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace tdist::runtime {

class HeapAllocator {
 public:
  // Every block is a multiple of this and aligned to it: a signal never shares a line.
  static constexpr std::size_t kGranule = 64;

  HeapAllocator() = default;
  HeapAllocator(std::size_t begin, std::size_t end) { reset(begin, end); }

  void reset(std::size_t begin, std::size_t end);

  // Offset of a new block of at least bytes, or nullopt when no free block can hold it. The
  // offset is `phase` more than a multiple of alignment (a power of two; phase below it and a
  // multiple of kGranule): the phase that makes base + offset aligned where the heap's base is
  // not (HeapAllocator::phaseOf).
  std::optional<std::size_t> allocate(std::size_t bytes, std::size_t alignment, std::size_t phase = 0);

  // The phase for blocks aligned to `alignment` (a power of two) on a heap whose first byte is at
  // address `base`: the offsets o for which base + o is a multiple of max(alignment, kGranule).
  static std::size_t phaseOf(std::uintptr_t base, std::size_t alignment) {
    const std::size_t align = alignment < kGranule ? kGranule : alignment;
    return (align - base % align) % align;
  }

  // Why offset cannot be freed, or "" when it can.
  std::string checkFree(std::size_t offset) const;
  void free(std::size_t offset);

  std::size_t blockSize(std::size_t offset) const;  // 0 when offset starts no block
  std::size_t bytesFree() const { return bytes_free_; }
  std::size_t largestFree() const;
  std::size_t freeBlockCount() const { return free_by_addr_.size(); }
  std::size_t usedBlockCount() const { return used_.size(); }

 private:
  void insertFree(std::size_t offset, std::size_t size);
  void eraseFree(std::map<std::size_t, std::size_t>::iterator it);

  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::size_t bytes_free_ = 0;
  std::map<std::size_t, std::size_t> free_by_addr_;       // offset -> size
  std::multimap<std::size_t, std::size_t> free_by_size_;  // size -> offset
  std::map<std::size_t, std::size_t> used_;               // offset -> size
};

}  // namespace tdist::runtime
