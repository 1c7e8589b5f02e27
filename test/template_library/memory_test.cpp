// symm_at (aclshmem_ptr on memrefs) and consume_token, called by name with hand-built
// descriptors on symmetric memory.
#include <gtest/gtest.h>

#include <cstring>

#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/ring.h"
#include "test/template_library/ciface.h"

namespace tdist {
namespace {

using testing::ciface;
using testing::entry;
using testing::MemRef;

template <class T, int N>
using SymmAt = void(MemRef<T, N> *, MemRef<T, N> *, std::int32_t);
template <class T, int N>
using ConsumeToken = void(MemRef<T, N> *, MemRef<T, N> *, std::int32_t);

// A 3x4 window at row 2, column 3 of an 8x8 matrix: PE r writes r*100 + 10*i + j into the
// window of the next PE through the translated descriptor, and finds its own window written by
// the previous PE, the rest of its matrix untouched.
TEST(SymmAt, Rank2SubviewThenRemoteStore) {
  constexpr int kDim = 8;
  const int me = shmem::my_pe();
  auto *matrix = static_cast<float *>(allocateZeroed(kDim * kDim, sizeof(float)));
  MemRef<float, 2> window{matrix, matrix, 2 * kDim + 3, {3, 4}, {kDim, 1}};
  MemRef<float, 2> remote{};
  entry<SymmAt<float, 2>>(ciface("aclshmem_ptr_float_m2_m2"))(&remote, &window, testing::next(me));

  EXPECT_EQ(remote.aligned, shmem::ptr(matrix, testing::next(me)));
  EXPECT_EQ(remote.allocated, shmem::ptr(matrix, testing::next(me)));
  EXPECT_EQ(remote.offset, window.offset);
  EXPECT_EQ(remote.sizes[0], 3);
  EXPECT_EQ(remote.sizes[1], 4);
  EXPECT_EQ(remote.strides[0], kDim);
  EXPECT_EQ(remote.strides[1], 1);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      remote.aligned[remote.offset + i * remote.strides[0] + j * remote.strides[1]] =
          static_cast<float>(me * 100 + 10 * i + j);
    }
  }
  shmem::barrier_all();
  const int prev = testing::prev(me);
  for (int row = 0; row < kDim; ++row) {
    for (int col = 0; col < kDim; ++col) {
      const bool inside = row >= 2 && row < 5 && col >= 3 && col < 7;
      const float expected = inside ? static_cast<float>(prev * 100 + 10 * (row - 2) + (col - 3)) : 0.0f;
      EXPECT_EQ(matrix[row * kDim + col], expected) << row << ", " << col;
    }
  }
  shmem::barrier_all();
  deallocate(matrix);
}

// Every type and rank translates both pointers to the PE's mapping and keeps the rest.
template <class T, int N>
void expectTranslated(const char *type, T *base, int pe) {
  MemRef<T, N> in{};
  in.allocated = base;
  in.aligned = base + 1;
  in.offset = 5;
  if constexpr (N > 0) {
    for (int d = 0; d < N; ++d) {
      in.sizes[d] = d + 2;
      in.strides[d] = 7 - d;
    }
  }
  MemRef<T, N> out{};
  const std::string name = ciface("aclshmem_ptr_" + std::string(type) + "_m" + std::to_string(N) + "_m" + std::to_string(N));
  entry<SymmAt<T, N>>(name)(&out, &in, pe);
  EXPECT_EQ(out.allocated, shmem::ptr(base, pe)) << name;
  EXPECT_EQ(out.aligned, shmem::ptr(base + 1, pe)) << name;
  EXPECT_EQ(out.offset, in.offset) << name;
  if constexpr (N > 0) {
    EXPECT_EQ(std::memcmp(out.sizes, in.sizes, sizeof in.sizes), 0) << name;
    EXPECT_EQ(std::memcmp(out.strides, in.strides, sizeof in.strides), 0) << name;
  }
}

TEST(SymmAt, EveryTypeAndRank) {
  void *block = allocate(256);
  for (int pe = 0; pe < shmem::n_pes(); ++pe) {
    testing::forEachElement([&](auto element) {
      using T = typename decltype(element)::type;
      auto *base = static_cast<T *>(block);
      expectTranslated<T, 0>(element.name, base, pe);
      expectTranslated<T, 1>(element.name, base, pe);
      expectTranslated<T, 2>(element.name, base, pe);
      expectTranslated<T, 3>(element.name, base, pe);
      expectTranslated<T, 4>(element.name, base, pe);
    });
  }
  // The own PE's mapping is the address itself.
  MemRef<float, 1> in = testing::vectorOf(static_cast<float *>(block), 0, 4);
  MemRef<float, 1> out{};
  entry<SymmAt<float, 1>>(ciface("aclshmem_ptr_float_m1_m1"))(&out, &in, shmem::my_pe());
  EXPECT_EQ(out.aligned, block);
  shmem::barrier_all();
  deallocate(block);
}

template <class T, int N>
void expectIdentity(const std::string &name) {
  T storage[4] = {};
  MemRef<T, N> in{};
  in.allocated = storage;
  in.aligned = storage + 1;
  in.offset = 2;
  if constexpr (N > 0) {
    for (int d = 0; d < N; ++d) {
      in.sizes[d] = 3 + d;
      in.strides[d] = 11 * (d + 1);
    }
  }
  MemRef<T, N> out;
  std::memset(&out, 0xA5, sizeof out);
  entry<ConsumeToken<T, N>>(name)(&out, &in, 12345);
  EXPECT_EQ(std::memcmp(&out, &in, sizeof in), 0) << name;
}

TEST(ConsumeToken, ReturnsItsMemRefUnchanged) {
  testing::forEachElement([](auto element) {
    using T = typename decltype(element)::type;
    const std::string prefix = ciface("aclshmem_consume_token_" + std::string(element.name) + "_ptr_");
    expectIdentity<T, 1>(prefix + "1d_m1_m1");
    expectIdentity<T, 2>(prefix + "2d_m2_m2");
    expectIdentity<T, 3>(prefix + "3d_m3_m3");
    expectIdentity<T, 4>(prefix + "4d_m4_m4");
    expectIdentity<T, 0>(prefix + "1d_m0_m0");
  });
}

}  // namespace
}  // namespace tdist
