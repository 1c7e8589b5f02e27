// common/memref_descriptor.h - MLIR's memref descriptor, as compiled IR passes it.
//
// Every memref reaches the device libraries (the cpu backend's template library, the cuda
// backend's device library) in the canonical strided layout of its rank (dynamic sizes, strides
// and offset), so one descriptor per rank serves every caller: element (i, j, ...) is at
// aligned + offset + i * strides[0] + j * strides[1] + ... The layout is MLIR's C interface;
// the runtime does not depend on MLIR, so it is spelled out here, once for both.
#pragma once

#include <cstdint>

namespace tdist::memref {

template <class T, int N>
struct Strided {
  T *allocated;
  T *aligned;
  std::int64_t offset;
  std::int64_t sizes[N];
  std::int64_t strides[N];
};

template <class T>
struct Strided<T, 0> {
  T *allocated;
  T *aligned;
  std::int64_t offset;
};

}  // namespace tdist::memref
