// runtime/heap_allocator.cpp - best fit with coalescing.
#include "runtime/heap_allocator.h"

#include <cstdio>
#include <iterator>

namespace tdist::runtime {
namespace {

std::size_t roundUp(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The least offset at or after value that is phase more than a multiple of align (a power of two).
std::size_t roundUpToPhase(std::size_t value, std::size_t align, std::size_t phase) {
  return value + ((phase - value) & (align - 1));
}

}  // namespace

void HeapAllocator::reset(std::size_t begin, std::size_t end) {
  begin_ = roundUp(begin, kGranule);
  end_ = end / kGranule * kGranule;
  free_by_addr_.clear();
  free_by_size_.clear();
  used_.clear();
  bytes_free_ = 0;
  if (end_ > begin_) insertFree(begin_, end_ - begin_);
}

void HeapAllocator::insertFree(std::size_t offset, std::size_t size) {
  free_by_addr_.emplace(offset, size);
  free_by_size_.emplace(size, offset);
  bytes_free_ += size;
}

void HeapAllocator::eraseFree(std::map<std::size_t, std::size_t>::iterator it) {
  auto [lo, hi] = free_by_size_.equal_range(it->second);
  for (auto s = lo; s != hi; ++s) {
    if (s->second == it->first) {
      free_by_size_.erase(s);
      break;
    }
  }
  bytes_free_ -= it->second;
  free_by_addr_.erase(it);
}

std::optional<std::size_t> HeapAllocator::allocate(std::size_t bytes, std::size_t alignment, std::size_t phase) {
  if (bytes == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) return std::nullopt;
  if (bytes > end_ - begin_) return std::nullopt;
  const std::size_t size = roundUp(bytes, kGranule);
  const std::size_t align = alignment < kGranule ? kGranule : alignment;
  if (phase >= align || phase % kGranule != 0) return std::nullopt;

  // Smallest block that holds an aligned block of `size`; ties go to the lowest address
  // because equal sizes iterate in insertion order only, so compare explicitly.
  auto best = free_by_size_.end();
  for (auto it = free_by_size_.lower_bound(size); it != free_by_size_.end(); ++it) {
    if (best != free_by_size_.end() && it->first > best->first) break;
    const std::size_t start = roundUpToPhase(it->second, align, phase);
    if (start + size > it->second + it->first) continue;
    if (best == free_by_size_.end() || it->second < best->second) best = it;
  }
  if (best == free_by_size_.end()) return std::nullopt;

  const std::size_t block = best->second;
  const std::size_t block_size = best->first;
  const std::size_t start = roundUpToPhase(block, align, phase);
  eraseFree(free_by_addr_.find(block));
  if (start > block) insertFree(block, start - block);
  if (start + size < block + block_size) insertFree(start + size, block + block_size - start - size);
  used_.emplace(start, size);
  return start;
}

std::string HeapAllocator::checkFree(std::size_t offset) const {
  if (used_.count(offset) != 0) return "";
  char text[160];
  auto free_it = free_by_addr_.upper_bound(offset);
  if (free_it != free_by_addr_.begin()) {
    --free_it;
    if (offset < free_it->first + free_it->second) {
      std::snprintf(text, sizeof text, "offset 0x%zx is not allocated (double free?)", offset);
      return text;
    }
  }
  auto used_it = used_.upper_bound(offset);
  if (used_it != used_.begin()) {
    --used_it;
    if (offset < used_it->first + used_it->second) {
      std::snprintf(text, sizeof text,
                    "offset 0x%zx is inside the block of %zu bytes at offset 0x%zx, not its start",
                    offset, used_it->second, used_it->first);
      return text;
    }
  }
  std::snprintf(text, sizeof text, "offset 0x%zx is outside the allocatable heap", offset);
  return text;
}

void HeapAllocator::free(std::size_t offset) {
  auto used_it = used_.find(offset);
  if (used_it == used_.end()) return;
  std::size_t start = offset;
  std::size_t size = used_it->second;
  used_.erase(used_it);

  auto next = free_by_addr_.lower_bound(start);
  if (next != free_by_addr_.end() && next->first == start + size) {
    size += next->second;
    eraseFree(next);
  }
  auto prev = free_by_addr_.lower_bound(start);
  if (prev != free_by_addr_.begin()) {
    --prev;
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      eraseFree(prev);
    }
  }
  insertFree(start, size);
}

std::size_t HeapAllocator::blockSize(std::size_t offset) const {
  auto it = used_.find(offset);
  return it == used_.end() ? 0 : it->second;
}

std::size_t HeapAllocator::largestFree() const {
  return free_by_size_.empty() ? 0 : std::prev(free_by_size_.end())->first;
}

}  // namespace tdist::runtime
