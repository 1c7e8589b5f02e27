// host/template_library/memref.h - MLIR's memref descriptor, as compiled IR passes it.
//
// Every memref reaches the library in the canonical strided layout of its rank (dynamic sizes,
// strides and offset), so one descriptor per rank serves every caller: element (i, j, ...) is at
// aligned + offset + i * strides[0] + j * strides[1] + ... The layout is MLIR's C interface;
// the runtime does not depend on MLIR, so it is spelled out here.
#pragma once

#include <cstdint>

namespace tdist::host::template_library {

template <class T, int N>
struct StridedMemRef {
  T *allocated;
  T *aligned;
  std::int64_t offset;
  std::int64_t sizes[N];
  std::int64_t strides[N];
};

template <class T>
struct StridedMemRef<T, 0> {
  T *allocated;
  T *aligned;
  std::int64_t offset;
};

// 16-bit floating-point elements are only moved, never computed on: their bits are enough.
using bfloat16 = std::uint16_t;
using half = std::uint16_t;

}  // namespace tdist::host::template_library
