// wait, notify (signal_op) and the point put/get, called by name: each PE signals its ring
// neighbour and waits for what its other neighbour signalled.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>

#include "tdist/dl.h"
#include "tdist/launch.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/ring.h"
#include "test/template_library/ciface.h"

namespace tdist {
namespace {

using testing::ciface;
using testing::entry;
using testing::MemRef;
using testing::scalarOf;
using testing::vectorOf;

constexpr std::int32_t kSet = 0;
constexpr std::int32_t kAdd = 1;
constexpr int kSlots = 3;
constexpr std::size_t kSlotBytes = 64;

template <class T>
using WaitMemRef1 = std::int64_t(MemRef<T, 1> *, std::int32_t, T);
template <class T>
using WaitMemRef0 = std::int64_t(MemRef<T, 0> *, std::int32_t, T);
template <class T>
using WaitPointer = std::int64_t(T *, std::int32_t, T);
using SignalOpMemRef1 = void(MemRef<std::int32_t, 1> *, std::int32_t, std::int32_t, std::int32_t);
using SignalOpMemRef0 = void(MemRef<std::int32_t, 0> *, std::int32_t, std::int32_t, std::int32_t);
using SignalOpPointer = void(std::int32_t *, std::int32_t, std::int32_t, std::int32_t);
using Barrier = void();

void barrierAll() { entry<Barrier>("_mlir_ciface_aclshmem_barrier_all")(); }

// Each round, every PE SETs the round into its next PE's first three slots (one through each
// form of notify) and ADDs 1 twice into its next three; then waits on its own slots, at the
// signal stride, for the round and twice the round. Values only grow: nobody resets a slot.
TEST(TemplateSignal, WaitOnSlotsNotifiedByTheRingNeighbour) {
  constexpr std::size_t kStride = dl::kSignalSlotStride<std::int32_t>;
  auto *signals = static_cast<std::int32_t *>(allocateZeroed(2 * kSlots * kStride, sizeof(std::int32_t)));
  std::int32_t *set_slots = signals;
  std::int32_t *add_slots = signals + kSlots * kStride;
  auto notifyM1 = entry<SignalOpMemRef1>("_mlir_ciface_aclshmemx_signal_op_m1");
  auto notifyM0 = entry<SignalOpMemRef0>("_mlir_ciface_aclshmemx_signal_op_m0");
  auto notify = entry<SignalOpPointer>("_mlir_ciface_aclshmemx_signal_op");
  auto waitM1 = entry<WaitMemRef1<std::int32_t>>("_mlir_ciface_aclshmem_wait_int32_m1");
  auto waitM0 = entry<WaitMemRef0<std::int32_t>>("_mlir_ciface_aclshmem_wait_int32_m0");
  auto wait = entry<WaitPointer<std::int32_t>>("_mlir_ciface_aclshmem_wait_int32");
  const int next = testing::next(shmem::my_pe());

  for (std::int32_t round = 1; round <= 5; ++round) {
    for (std::int32_t *slots : {set_slots, add_slots}) {
      const std::int32_t op = slots == set_slots ? kSet : kAdd;
      for (int times = 0; times < (op == kAdd ? 2 : 1); ++times) {
        MemRef<std::int32_t, 1> first = vectorOf(slots, 0, 1);
        MemRef<std::int32_t, 0> second = scalarOf(slots + kStride);
        notifyM1(&first, op == kSet ? round : 1, op, next);
        notifyM0(&second, op == kSet ? round : 1, op, next);
        notify(slots + 2 * kStride, op == kSet ? round : 1, op, next);
      }
    }
    MemRef<std::int32_t, 1> set_view = vectorOf(set_slots, 0, 1);
    const std::int64_t token = waitM1(&set_view, kSlots, round);
    EXPECT_EQ(token, static_cast<std::int64_t>(dl::wait(set_slots, kSlots, round).value));
    EXPECT_EQ(wait(add_slots, kSlots, 2 * round), static_cast<std::int64_t>(dl::wait(add_slots, kSlots, 2 * round).value));
    MemRef<std::int32_t, 0> last_add = scalarOf(add_slots + 2 * kStride);
    waitM0(&last_add, 1, 2 * round);
    for (int slot = 0; slot < kSlots; ++slot) {
      EXPECT_EQ(set_slots[slot * kStride], round);
      EXPECT_EQ(add_slots[slot * kStride], 2 * round);
    }
    // The next round's values must not arrive before this round's waits saw theirs.
    barrierAll();
  }
  deallocate(signals);
}

// One worker, two programs: program 0 waits on three slots of which two are set; program 1
// runs only once program 0 yielded, finds it still waiting, and sets the third.
TEST(TemplateSignal, WaitCoversEverySlotAtTheStride) {
  constexpr std::size_t kStride = dl::kSignalSlotStride<std::int32_t>;
  auto *slots = static_cast<std::int32_t *>(allocateZeroed(kSlots * kStride, sizeof(std::int32_t)));
  slots[0] = 9;
  slots[kStride] = 9;
  auto waitM1 = entry<WaitMemRef1<std::int32_t>>("_mlir_ciface_aclshmem_wait_int32_m1");
  auto notify = entry<SignalOpPointer>("_mlir_ciface_aclshmemx_signal_op");
  std::atomic<bool> returned{false};
  std::atomic<bool> returned_early{false};
  LaunchOptions options;
  options.workers = 1;
  launch(Grid{2}, [&] {
    if (dl::program_id() == 0) {
      MemRef<std::int32_t, 1> view = vectorOf(slots, 0, 1);
      waitM1(&view, kSlots, 9);
      returned = true;
    } else {
      returned_early = returned.load();
      notify(slots + 2 * kStride, 9, kSet, shmem::my_pe());
    }
  }, options);
  EXPECT_FALSE(returned_early.load());
  EXPECT_TRUE(returned.load());
  barrierAll();
  deallocate(slots);
}

template <class T>
T valueFrom(int pe) {
  return static_cast<T>(pe + 3) + (std::is_floating_point_v<T> ? static_cast<T>(0.5) : T{0});
}

// Every scalar type: point puts into the next PE's slots through the three forms, waits on the
// own slots for the previous PE's value, point gets of what this PE put on the next.
TEST(TemplateSignal, PointPutGetAndWaitOfEveryScalarType) {
  auto *block = static_cast<std::byte *>(allocate(kSlots * kSlotBytes));
  const int me = shmem::my_pe();
  const int next = testing::next(me);
  testing::forEachScalarElement([&](auto element) {
    using T = typename decltype(element)::type;
    const std::string type = element.name;
    std::memset(block, 0, kSlots * kSlotBytes);
    barrierAll();
    T *slots = reinterpret_cast<T *>(block);
    constexpr std::size_t kStride = dl::kSignalSlotStride<T>;
    MemRef<T, 1> first = vectorOf(slots, 0, 1);
    MemRef<T, 0> second = scalarOf(slots + kStride);
    entry<void(MemRef<T, 1> *, T, std::int32_t)>(ciface("aclshmem_" + type + "_p_m1"))(&first, valueFrom<T>(me), next);
    entry<void(MemRef<T, 0> *, T, std::int32_t)>(ciface("aclshmem_" + type + "_p_m0"))(&second, valueFrom<T>(me), next);
    entry<void(T *, T, std::int32_t)>(ciface("aclshmem_" + type + "_p"))(slots + 2 * kStride, valueFrom<T>(me), next);

    const T expected = valueFrom<T>(testing::prev(me));
    entry<WaitMemRef1<T>>(ciface("aclshmem_wait_" + type + "_m1"))(&first, kSlots, expected);
    entry<WaitMemRef0<T>>(ciface("aclshmem_wait_" + type + "_m0"))(&second, 1, expected);
    entry<WaitPointer<T>>(ciface("aclshmem_wait_" + type))(slots + 2 * kStride, 1, expected);
    for (int slot = 0; slot < kSlots; ++slot) EXPECT_EQ(slots[slot * kStride], expected) << type;

    EXPECT_EQ(entry<T(MemRef<T, 1> *, std::int32_t)>(ciface("aclshmem_" + type + "_g_m1"))(&first, next), valueFrom<T>(me)) << type;
    EXPECT_EQ(entry<T(MemRef<T, 0> *, std::int32_t)>(ciface("aclshmem_" + type + "_g_m0"))(&second, next), valueFrom<T>(me)) << type;
    EXPECT_EQ(entry<T(T *, std::int32_t)>(ciface("aclshmem_" + type + "_g"))(slots + 2 * kStride, next), valueFrom<T>(me)) << type;
    barrierAll();
  });
  deallocate(block);
}

// A 64-bit distributed.notify is lowered to aclshmem_int64_p / aclshmem_uint64_p: a release
// store that the receiver's wait sees, epoch after epoch.
TEST(TemplateSignal, Int64PointPutNotifiesAWait) {
  auto *slots = static_cast<std::int64_t *>(allocateZeroed(2 * dl::kSignalSlotStride<std::int64_t>, sizeof(std::int64_t)));
  auto *unsigned_slot = reinterpret_cast<std::uint64_t *>(slots + dl::kSignalSlotStride<std::int64_t>);
  auto notify = entry<void(std::int64_t *, std::int64_t, std::int32_t)>("_mlir_ciface_aclshmem_int64_p");
  auto notifyUnsigned = entry<void(std::uint64_t *, std::uint64_t, std::int32_t)>("_mlir_ciface_aclshmem_uint64_p");
  auto wait = entry<WaitPointer<std::int64_t>>("_mlir_ciface_aclshmem_wait_int64");
  auto waitUnsigned = entry<WaitPointer<std::uint64_t>>("_mlir_ciface_aclshmem_wait_uint64");
  const int next = testing::next(shmem::my_pe());
  for (std::int64_t epoch = 1; epoch <= 20; ++epoch) {
    const std::int64_t big = epoch << 40;  // past 32 bits
    notify(slots, big, next);
    notifyUnsigned(unsigned_slot, static_cast<std::uint64_t>(big) | (std::uint64_t{1} << 63), next);
    EXPECT_EQ(wait(slots, 1, big), big);
    waitUnsigned(unsigned_slot, 1, static_cast<std::uint64_t>(big) | (std::uint64_t{1} << 63));
    barrierAll();
  }
  deallocate(slots);
}

}  // namespace
}  // namespace tdist
