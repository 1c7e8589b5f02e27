// Puts and gets of the template library, called by name: typed memref and pointer forms of
// every element type, put-with-signal, and the byte forms.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tdist/dl.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/ring.h"
#include "test/template_library/ciface.h"

namespace tdist {
namespace {

using testing::ciface;
using testing::entry;
using testing::MemRef;
using testing::vectorOf;

template <class T>
using TransferMemRef = void(MemRef<T, 1> *, MemRef<T, 1> *, std::int64_t, std::int32_t);
template <class T>
using TransferPointer = void(T *, T *, std::int64_t, std::int32_t);
template <class T>
using PutSignalMemRef = void(MemRef<T, 1> *, MemRef<T, 1> *, std::int64_t, MemRef<std::int32_t, 1> *,
                             std::int32_t, std::int32_t, std::int32_t);
template <class T>
using PutSignalPointer = void(T *, T *, std::int64_t, std::int32_t *, std::int32_t, std::int32_t, std::int32_t);

constexpr std::int32_t kAdd = 1;
constexpr int kElements = 64;

void barrierAll() { entry<void()>("_mlir_ciface_aclshmem_barrier_all")(); }
void quiet() { entry<void()>("_mlir_ciface_aclshmem_quiet")(); }

// Distinct bit patterns per PE, call and element, of any element type.
template <class T>
T pattern(int pe, int call, int i) {
  return static_cast<T>((pe + 1) * 37 + call * 11 + i);
}

// Each type: a put of 40 elements into a window [8, 48) of the next PE's array (memref form:
// the window's descriptor is sized exactly, so the bounds check sees nelems == size), a get of the
// previous PE's window back (pointer form), then the non-blocking forms the same way.
TEST(TemplateRma, TypedPutAndGetOfEveryType) {
  const int me = shmem::my_pe();
  const int next = testing::next(me);
  const int prev = testing::prev(me);
  auto *block = static_cast<std::byte *>(allocate(kElements * sizeof(double)));
  testing::forEachElement([&](auto element) {
    using T = typename decltype(element)::type;
    const std::string type = element.name;
    for (bool nbi : {false, true}) {
      T *symmetric = reinterpret_cast<T *>(block);
      std::vector<T> source(kElements), fetched(kElements, T{0});
      for (int i = 0; i < kElements; ++i) source[i] = pattern<T>(me, nbi, i);
      std::memset(block, 0, kElements * sizeof(T));
      barrierAll();

      MemRef<T, 1> window = vectorOf(symmetric, 8, 40);
      MemRef<T, 1> from = vectorOf(source.data(), 0, kElements);
      entry<TransferMemRef<T>>(ciface("aclshmem_" + type + (nbi ? "_put_nbi_m1_m1" : "_put_m1_m1")))(&window, &from, 40, next);
      if (nbi) quiet();
      barrierAll();
      for (int i = 0; i < kElements; ++i) {
        const T expected = i >= 8 && i < 48 ? pattern<T>(prev, nbi, i - 8) : T{0};
        EXPECT_EQ(symmetric[i], expected) << type << " nbi " << nbi << " at " << i;
      }

      entry<TransferPointer<T>>(ciface("aclshmem_" + type + (nbi ? "_get_nbi" : "_get")))(fetched.data(), symmetric + 8, 40, prev);
      if (nbi) quiet();
      for (int i = 0; i < 40; ++i) EXPECT_EQ(fetched[i], pattern<T>(testing::prev(prev), nbi, i)) << type << " at " << i;
      barrierAll();
    }
  });
  deallocate(block);
}

// The other halves: pointer put, memref get (into a strided-free local window).
TEST(TemplateRma, PointerPutAndMemRefGet) {
  const int me = shmem::my_pe();
  auto *symmetric = static_cast<double *>(allocateZeroed(kElements, sizeof(double)));
  std::vector<double> source(kElements);
  for (int i = 0; i < kElements; ++i) source[i] = pattern<double>(me, 5, i);
  entry<TransferPointer<double>>("_mlir_ciface_aclshmem_double_put")(symmetric, source.data(), kElements, testing::next(me));
  barrierAll();
  std::vector<double> local(kElements + 4, -1.0);
  MemRef<double, 1> into = vectorOf(local.data(), 4, kElements);
  MemRef<double, 1> from = vectorOf(symmetric, 0, kElements);
  entry<TransferMemRef<double>>("_mlir_ciface_aclshmem_double_get_m1_m1")(&into, &from, kElements, testing::next(me));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(local[i], -1.0);
  for (int i = 0; i < kElements; ++i) EXPECT_EQ(local[4 + i], pattern<double>(me, 5, i)) << i;
  // Zero elements: no transfer, no error.
  entry<TransferMemRef<double>>("_mlir_ciface_aclshmem_double_get_m1_m1")(&into, &from, 0, testing::next(me));
  barrierAll();
  deallocate(symmetric);
}

// put_signal_nbi: the data of the call arrives before its signal. Each round, every PE puts its
// round's data into the next PE and ADDs 1 to its signal; the receiver waits for the round count
// and must then see the round's data.
TEST(TemplateRma, PutSignalDeliversDataBeforeItsSignal) {
  constexpr int kRounds = 6;
  const int me = shmem::my_pe();
  const int next = testing::next(me);
  auto *data = static_cast<float *>(allocateZeroed(kElements, sizeof(float)));
  auto *sig = static_cast<std::int32_t *>(allocateZeroed(2 * dl::kSignalSlotStride<std::int32_t>, sizeof(std::int32_t)));
  auto putSignalNbi = entry<PutSignalMemRef<float>>("_mlir_ciface_aclshmem_float_put_signal_nbi_m1_m1_m1");
  auto putSignal = entry<PutSignalPointer<std::int16_t>>("_mlir_ciface_aclshmem_int16_put_signal");
  auto wait = entry<std::int64_t(std::int32_t *, std::int32_t, std::int32_t)>("_mlir_ciface_aclshmem_wait_int32");
  std::vector<float> source(kElements);
  for (int round = 1; round <= kRounds; ++round) {
    for (int i = 0; i < kElements; ++i) source[i] = static_cast<float>(round * 1000 + me * 100 + i);
    MemRef<float, 1> to = vectorOf(data, 0, kElements);
    MemRef<float, 1> from = vectorOf(source.data(), 0, kElements);
    MemRef<std::int32_t, 1> signal = vectorOf(sig, 0, 1);
    putSignalNbi(&to, &from, kElements, &signal, 1, kAdd, next);
    wait(sig, 1, round);
    const int prev = testing::prev(me);
    for (int i = 0; i < kElements; ++i) EXPECT_EQ(data[i], static_cast<float>(round * 1000 + prev * 100 + i)) << round;
    quiet();  // the source buffer is reused
    barrierAll();
  }
  // The blocking pointer form, a SET of the second slot.
  std::int32_t *second = sig + dl::kSignalSlotStride<std::int32_t>;
  std::int16_t halves[4] = {1, -2, 3, -4};
  putSignal(reinterpret_cast<std::int16_t *>(data), halves, 4, second, 77, 0, next);
  wait(second, 1, 77);
  EXPECT_EQ(std::memcmp(data, halves, sizeof halves), 0);
  barrierAll();
  deallocate(sig);
  deallocate(data);
}

TEST(TemplateRma, ByteForms) {
  const int me = shmem::my_pe();
  const int next = testing::next(me);
  constexpr std::int64_t kBytes = 96;
  auto *heap = static_cast<unsigned char *>(allocateZeroed(2 * kBytes, 1));
  auto *sig = static_cast<std::int32_t *>(allocateZeroed(dl::kSignalSlotStride<std::int32_t>, sizeof(std::int32_t)));
  unsigned char local[kBytes];
  for (int i = 0; i < kBytes; ++i) local[i] = static_cast<unsigned char>(me * 7 + i);
  using Bytes = void(void *, void *, std::int64_t, std::int32_t);
  using BytesSignal = void(void *, void *, std::int64_t, std::int32_t *, std::int32_t, std::int32_t, std::int32_t);
  entry<Bytes>("_mlir_ciface_aclshmem_putmem")(heap, local, kBytes, next);
  entry<Bytes>("_mlir_ciface_aclshmem_putmem_nbi")(heap + kBytes, local, kBytes / 2, next);
  quiet();
  barrierAll();
  const int prev = testing::prev(me);
  for (int i = 0; i < kBytes; ++i) EXPECT_EQ(heap[i], static_cast<unsigned char>(prev * 7 + i)) << i;
  for (int i = 0; i < kBytes; ++i) {
    EXPECT_EQ(heap[kBytes + i], i < kBytes / 2 ? static_cast<unsigned char>(prev * 7 + i) : 0) << i;
  }
  unsigned char back[kBytes] = {};
  entry<Bytes>("_mlir_ciface_aclshmem_getmem")(back, heap, kBytes, next);  // next holds my bytes
  EXPECT_EQ(std::memcmp(back, local, kBytes), 0);
  std::memset(back, 0, kBytes);
  entry<Bytes>("_mlir_ciface_aclshmem_getmem_nbi")(back, heap, kBytes, next);
  quiet();
  EXPECT_EQ(std::memcmp(back, local, kBytes), 0);
  barrierAll();

  entry<BytesSignal>("_mlir_ciface_aclshmem_putmem_signal")(heap + kBytes, local, kBytes, sig, 1, kAdd, next);
  entry<BytesSignal>("_mlir_ciface_aclshmem_putmem_signal_nbi")(heap, local, kBytes, sig, 1, kAdd, next);
  entry<std::int64_t(std::int32_t *, std::int32_t, std::int32_t)>("_mlir_ciface_aclshmem_wait_int32")(sig, 1, 2);
  EXPECT_EQ(std::memcmp(heap, heap + kBytes, kBytes), 0);
  EXPECT_EQ(heap[5], static_cast<unsigned char>(prev * 7 + 5));
  quiet();
  barrierAll();
  deallocate(sig);
  deallocate(heap);
}

}  // namespace
}  // namespace tdist
