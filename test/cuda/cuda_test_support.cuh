// test/cuda/cuda_test_support.cuh - what the cuda device tests share: symmetric buffers that free
// themselves, a stream per test, a record of the first mismatch a kernel saw, and the data
// patterns that kernels write and host references recompute.
//
// Kernels check what they receive on the device and count mismatches; the host then compares
// the count with 0 (and the first mismatch with its own reference), so that a failure names the
// element, the expected and the observed value. Heap memory is GPU memory on this backend: the
// host reads and writes it with cudaMemcpy, never by dereferencing.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tdist/wait_description.h"
#include "tdist/cuda.h"
#include "tdist/device/shmem.cuh"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::cuda_test {

namespace dev = tdist::device;
namespace sh = tdist::shmem;

#define TDIST_ASSERT_CUDA(expr)                                                              \
  do {                                                                                       \
    cudaError_t tdist_status_ = (expr);                                                      \
    ASSERT_EQ(tdist_status_, cudaSuccess) << #expr << ": " << cudaGetErrorString(tdist_status_); \
  } while (0)

// ---- patterns ----------------------------------------------------------------------------------

// A well-mixed 32-bit hash of (a, b, c): every PE, iteration and byte gets its own value, so a
// byte that arrives from the wrong PE, iteration or place is caught.
__host__ __device__ inline std::uint32_t mix(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  std::uint32_t x = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^ (c + 1u) * 0xC2B2AE3Du;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  x *= 0x297A2D39u;
  x ^= x >> 15;
  return x;
}

__host__ __device__ inline std::uint8_t pattern(int pe, int iteration, std::size_t i) {
  return static_cast<std::uint8_t>(mix(static_cast<std::uint32_t>(pe), static_cast<std::uint32_t>(iteration),
                                       static_cast<std::uint32_t>(i)));
}

// ---- mismatches a kernel saw -------------------------------------------------------------------

struct Mismatches {
  unsigned long long count;
  long long where;     // what the kernel names the first mismatch by (an index, an iteration)
  long long expected;
  long long observed;
};

// Records one mismatch; the first one keeps its details.
__device__ inline void mismatch(Mismatches *m, long long where, long long expected, long long observed) {
  if (atomicAdd(&m->count, 1ull) == 0) {
    m->where = where;
    m->expected = expected;
    m->observed = observed;
  }
}

__device__ inline void expectEqual(Mismatches *m, long long where, long long expected, long long observed) {
  if (expected != observed) mismatch(m, where, expected, observed);
}

// A Mismatches record in device memory.
class DeviceMismatches {
 public:
  DeviceMismatches() {
    cudaMalloc(&record_, sizeof(Mismatches));
    cudaMemset(record_, 0, sizeof(Mismatches));
  }
  ~DeviceMismatches() { cudaFree(record_); }
  DeviceMismatches(const DeviceMismatches &) = delete;
  DeviceMismatches &operator=(const DeviceMismatches &) = delete;

  Mismatches *get() const { return record_; }
  Mismatches read() const {
    Mismatches host{};
    cudaMemcpy(&host, record_, sizeof host, cudaMemcpyDeviceToHost);
    return host;
  }
  void reset() { cudaMemset(record_, 0, sizeof(Mismatches)); }

 private:
  Mismatches *record_ = nullptr;
};

// Expects that the kernels behind `record` saw nothing wrong; `what` names the check.
#define TDIST_EXPECT_NO_MISMATCH(record, what)                                                      \
  do {                                                                                           \
    ::tdist::cuda_test::Mismatches seen_ = (record).read();                                      \
    EXPECT_EQ(seen_.count, 0u) << (what) << " on PE " << ::tdist::myPe() << ": first at "        \
                               << seen_.where << ", expected " << seen_.expected << ", observed " \
                               << seen_.observed;                                                \
  } while (0)

// ---- symmetric buffers and streams -------------------------------------------------------------

// count zeroed elements of T on every PE's heap (collective), freed when it goes out of scope:
// every PE frees in the same order because every PE runs the same test code.
template <class T>
class Symmetric {
 public:
  explicit Symmetric(std::size_t count)
      : count_(count), data_(static_cast<T *>(allocateZeroed(count, sizeof(T)))) {}
  ~Symmetric() { deallocate(data_); }
  Symmetric(const Symmetric &) = delete;
  Symmetric &operator=(const Symmetric &) = delete;

  T *get() const { return data_; }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  // This PE's copy, through cudaMemcpy (heap memory is GPU memory).
  std::vector<T> read() const {
    std::vector<T> host(count_);
    cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDefault);
    return host;
  }
  // Done when it returns: cudaMemcpy from pageable memory may return before the bytes land, and a
  // peer's kernel may read them right after the next host barrier.
  void write(const std::vector<T> &host) {
    cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyDefault);
    cudaDeviceSynchronize();
  }

 private:
  std::size_t count_;
  T *data_;
};

class Stream {
 public:
  Stream() { cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  operator cudaStream_t() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Every cuda test: its own stream and mismatch record, and the two steps between phases.
class CudaTest : public ::testing::Test {
 protected:
  int me() const { return tdist::myPe(); }
  int n() const { return tdist::nPes(); }
  int next() const { return (me() + 1) % n(); }
  int prev() const { return (me() + n() - 1) % n(); }

  // The kernels launched so far on the stream ran and ended without an error.
  void finish() {
    TDIST_ASSERT_CUDA(cudaGetLastError());
    TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream_));
  }
  // finish(), then the host barrier: every PE's kernels have ended and their writes are visible.
  void finishAll() {
    finish();
    sh::barrier_all();
  }

  Stream stream_;
  DeviceMismatches mismatches_;
};

// The cooperative forms of the device library: one thread, one warp (all 32 lanes with the same
// arguments) or the whole block.
enum class Form { Thread, Warp, Block };

inline const char *formName(Form form) {
  switch (form) {
    case Form::Thread: return "thread";
    case Form::Warp: return "warp";
    case Form::Block: return "block";
  }
  return "?";
}

// True on the threads of the block that take part in a call of `form`.
template <Form form>
__device__ inline bool takesPart() {
  if constexpr (form == Form::Thread) return threadIdx.x == 0;
  else if constexpr (form == Form::Warp) return threadIdx.x < 32;
  else return true;
}

// The host's predicate, the reference for every wait and test.
template <class T>
__host__ __device__ inline bool holds(sh::Cmp cmp, T value, T operand) {
  switch (cmp) {
    case sh::Cmp::EQ: return value == operand;
    case sh::Cmp::NE: return value != operand;
    case sh::Cmp::GT: return value > operand;
    case sh::Cmp::GE: return value >= operand;
    case sh::Cmp::LT: return value < operand;
    case sh::Cmp::LE: return value <= operand;
  }
  return false;
}

inline const char *cmpName(sh::Cmp cmp) { return tdist::waitPredicateName(static_cast<std::int32_t>(cmp)); }

constexpr sh::Cmp kAllCmps[] = {sh::Cmp::EQ, sh::Cmp::NE, sh::Cmp::GT,
                                sh::Cmp::GE, sh::Cmp::LT, sh::Cmp::LE};

// One signal slot per 64-byte line.
template <class S>
constexpr std::size_t kSlotStride = dev::kSignalLineBytes / sizeof(S);

}  // namespace tdist::cuda_test
