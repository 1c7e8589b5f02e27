// test/kernels/tensor_io.h - host values in and out of this PE's heap tensors, on every backend.
//
// On some backends the host cannot load or store the heap (cuda: GPU memory), so a test never
// dereferences a tensor's data: it writes and reads its own copy with a put or get to my_pe
// (on cpu a memcpy), after the context's calls are complete (Context::synchronize).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cpu/bfloat16.h"
#include "tdist/kernels/context.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::kernels::testing {

// The dtype of a host storage type.
template <class T> constexpr DType kDtype = DType::F32;
template <> constexpr DType kDtype<BFloat16> = DType::BF16;
template <> constexpr DType kDtype<Float16> = DType::F16;
template <> constexpr DType kDtype<std::int32_t> = DType::I32;

// Writes values into this PE's copy of t (as many as t has elements).
template <class T>
void writeTensor(const Tensor &t, const std::vector<T> &values) {
  ASSERT_EQ(values.size() * sizeof(T), t.nbytes());
  if (t.nbytes() > 0) shmem::putmem(t.data, values.data(), t.nbytes(), shmem::my_pe());
}

// This PE's copy of t, once every call made on ctx is complete.
template <class T>
std::vector<T> readTensor(Context &ctx, const Tensor &t) {
  ctx.synchronize();
  std::vector<T> values(t.nbytes() / sizeof(T));
  if (t.nbytes() > 0) shmem::getmem(values.data(), t.data, t.nbytes(), shmem::my_pe());
  return values;
}

// The bits of a value, for comparisons that must be exact (0.0 != -0.0, NaN == NaN).
template <class T>
auto bitsOf(T value) {
  if constexpr (sizeof(T) == 2) {
    std::uint16_t bits;
    std::memcpy(&bits, &value, 2);
    return bits;
  } else {
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    return bits;
  }
}

// Index of the first element whose bits differ, or -1.
template <class T>
std::int64_t firstDifference(const std::vector<T> &actual, const std::vector<T> &expected) {
  if (actual.size() != expected.size()) return 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (bitsOf(actual[i]) != bitsOf(expected[i])) return static_cast<std::int64_t>(i);
  }
  return -1;
}

// A tensor on the heap for the length of a test (collective, as createTensor and freeTensor).
class HeapTensor {
 public:
  HeapTensor(const std::vector<std::int64_t> &shape, DType dtype) : tensor_(createTensor(shape, dtype)) {}
  ~HeapTensor() { freeTensor(tensor_); }
  HeapTensor(const HeapTensor &) = delete;
  HeapTensor &operator=(const HeapTensor &) = delete;
  Tensor &operator*() { return tensor_; }
  Tensor *operator->() { return &tensor_; }

 private:
  Tensor tensor_;
};

}  // namespace tdist::kernels::testing
