// host/template_library/memref.h - MLIR's memref descriptor (common/memref_descriptor.h), by
// the name the template library uses, and the element types it only moves.
#pragma once

#include <cstdint>

#include "common/memref_descriptor.h"

namespace tdist::host::template_library {

template <class T, int N>
using StridedMemRef = memref::Strided<T, N>;

// 16-bit floating-point elements are only moved, never computed on: their bits are enough.
using bfloat16 = std::uint16_t;
using half = std::uint16_t;

}  // namespace tdist::host::template_library
