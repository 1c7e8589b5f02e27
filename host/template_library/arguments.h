// host/template_library/arguments.h - what an entry point's arguments address.
//
// A symbol has a pointer form and memref forms; both reach the same implementation through these
// overloads. A memref argument is checked against what its descriptor knows (its size and
// stride), a check that callers get for free; a pointer is taken as it is.
#pragma once

#include <cstddef>
#include <cstdint>

#include "host/template_library/memref.h"

namespace tdist::host::template_library {

// Throw tdist::Error(InvalidParam) with the message their names promise.
[[noreturn]] void throwNoElement(const char *what);
[[noreturn]] void throwOutOfBounds(const char *count_name, std::int64_t count, std::int64_t size,
                                   const char *what);
[[noreturn]] void throwNotContiguous(std::int64_t stride, const char *what);

// The element that a pointer, a rank-0 memref or a rank-1 memref (its first element) stands for.
template <class T>
T *firstElement(T *pointer, const char *) {
  return pointer;
}
template <class T>
T *firstElement(StridedMemRef<T, 0> *memref, const char *) {
  return memref->aligned + memref->offset;
}
template <class T>
T *firstElement(StridedMemRef<T, 1> *memref, const char *what) {
  if (memref->sizes[0] < 1) [[unlikely]] throwNoElement(what);
  return memref->aligned + memref->offset;
}

// The first of count contiguous elements. A memref must hold them all at stride 1 (any stride
// when at most one element moves).
template <class T>
T *elementRange(T *pointer, std::int64_t, const char *, const char *) {
  return pointer;
}
template <class T>
T *elementRange(void *pointer, std::int64_t, const char *, const char *) {
  return static_cast<T *>(pointer);
}
template <class T>
T *elementRange(const StridedMemRef<T, 1> *memref, std::int64_t count, const char *count_name,
                const char *what) {
  if (count > memref->sizes[0]) [[unlikely]] throwOutOfBounds(count_name, count, memref->sizes[0], what);
  if (count > 1 && memref->strides[0] != 1) [[unlikely]] throwNotContiguous(memref->strides[0], what);
  return memref->aligned + memref->offset;
}

// count elements of element_bytes each, in bytes; a negative or overflowing count is an error.
std::size_t byteCount(std::int64_t count, std::size_t element_bytes, const char *count_name);

}  // namespace tdist::host::template_library
