// test/integration/pe/heap_access.h - this PE's own heap, read and written through the API.
//
// The suite runs on every backend, and on some the host cannot load or store the heap (the cuda
// backend's is GPU memory). So a test never dereferences a symmetric address itself: it reads
// and writes its own copy with a get or put to my_pe, which on the cpu backend is the same load
// or store as before.
#pragma once

#include <cstddef>
#include <vector>

#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::testing {

// The word at address on this PE's heap (an acquire load, as g is).
template <class T>
T heapRead(const T *address) {
  return shmem::g(address, shmem::my_pe());
}

// Stores value at address on this PE's heap (a release store, as p is).
template <class T>
void heapWrite(T *address, T value) {
  shmem::p(address, value, shmem::my_pe());
}

// count elements from address on this PE's heap.
template <class T>
std::vector<T> heapReadArray(const T *address, std::size_t count) {
  std::vector<T> values(count);
  shmem::getmem(values.data(), address, count * sizeof(T), shmem::my_pe());
  return values;
}

// Copies bytes between this PE's heap and host memory.
inline void heapReadBytes(void *dest, const void *heap_source, std::size_t bytes) {
  shmem::getmem(dest, heap_source, bytes, shmem::my_pe());
}
inline void heapWriteBytes(void *heap_dest, const void *source, std::size_t bytes) {
  shmem::putmem(heap_dest, source, bytes, shmem::my_pe());
}

// True when address lies on this PE's heap (not host memory).
inline bool onHeap(const void *address) {
  auto *byte = static_cast<const std::byte *>(address);
  auto *base = static_cast<const std::byte *>(heapBase());
  return byte >= base && byte < base + heapSize();
}

}  // namespace tdist::testing
