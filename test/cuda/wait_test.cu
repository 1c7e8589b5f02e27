// The six predicates of signal_wait_until, wait_until and test, in every type, from kernels:
// each wait returns once its predicate holds, with the value that satisfied it, and test() is
// false exactly when the predicate does not hold.
#include <cstdint>
#include <limits>

#include "test/cuda/cuda_test_support.cuh"

namespace tdist::cuda_test {
namespace {

// One step: the driver stores `set`, the waiter waits for `cmp` against `operand`.
template <class T>
struct Step {
  sh::Cmp cmp;
  T set;
  T operand;
};

template <class T>
struct Steps {
  Step<T> step[6];
};

// Steps whose values need the whole type: negative for signed types (LT/LE below zero), past
// 2^31 for uint32 (a signed compare would get GT wrong), past 2^32 for the 64-bit types.
template <class T>
Steps<T> stepsFor() {
  constexpr bool is_signed = std::numeric_limits<T>::is_signed;
  const T big = sizeof(T) == 8 ? static_cast<T>(std::uint64_t{1} << 40)
                               : static_cast<T>(is_signed ? (1 << 20) : 4000000000u);
  const T low = is_signed ? static_cast<T>(-3) : T{3};
  const T zero = is_signed ? T{0} : T{4};
  return {{{sh::Cmp::EQ, static_cast<T>(big + 5), static_cast<T>(big + 5)},
           {sh::Cmp::NE, static_cast<T>(big + 9), static_cast<T>(big + 5)},
           {sh::Cmp::GT, static_cast<T>(big + 12), static_cast<T>(big + 11)},
           {sh::Cmp::GE, static_cast<T>(big + 12), static_cast<T>(big + 12)},
           {sh::Cmp::LT, low, zero},
           {sh::Cmp::LE, low, low}}};
}

enum class Waiter { SignalWaitUntil, WaitUntil };

// The waits under test, on this PE's own word.
template <Waiter waiter, class T>
__device__ T waitFor(T *word, sh::Cmp cmp, T operand) {
  if constexpr (waiter == Waiter::SignalWaitUntil) return dev::signal_wait_until(word, cmp, operand);
  else {
    dev::wait_until(word, cmp, operand);
    return dev::atomic_fetch(word, dev::rank());
  }
}

// The ring: every PE drives the next PE's word through the steps and waits on its own, which the
// previous PE drives. After each step the waiter acknowledges to its driver (ack counts steps on
// the driver), and a driver stores the next value only once the previous step was acknowledged,
// so the value a wait returns is that step's. With one PE the thread drives itself.
// Nothing is reset: each run allocates fresh words.
template <Waiter waiter, class T>
__global__ void predicateRing(T *word, std::int64_t *ack, Steps<T> steps, Mismatches *m) {
  const int me = dev::rank();
  const int n = dev::num_ranks();
  const int next = (me + 1) % n;
  const int prev = (me + n - 1) % n;
  for (int k = 0; k < 6; ++k) {
    const Step<T> step = steps.step[k];
    dev::wait_until(ack, sh::Cmp::GE, std::int64_t{k});  // the next PE is done with step k-1
    if constexpr (waiter == Waiter::SignalWaitUntil) dev::signal_op(word, step.set, sh::SignalOp::Set, next);
    else dev::atomic_set(word, step.set, next);
    const T seen = waitFor<waiter>(word, step.cmp, step.operand);
    expectEqual(m, k, static_cast<long long>(step.set), static_cast<long long>(seen));
    expectEqual(m, 10 + k, 1, dev::test(word, step.cmp, step.operand));
    dev::atomic_add(ack, std::int64_t{1}, prev);
  }
  // The word now keeps the last step's value (its driver is done): test() is false for every
  // predicate that does not hold for it.
  const T v = steps.step[5].set;
  const Step<T> never[] = {{sh::Cmp::EQ, v, static_cast<T>(v + 1)}, {sh::Cmp::NE, v, v},
                           {sh::Cmp::GT, v, v},                     {sh::Cmp::GE, v, static_cast<T>(v + 1)},
                           {sh::Cmp::LT, v, v},                     {sh::Cmp::LE, v, static_cast<T>(v - 1)}};
  for (int k = 0; k < 6; ++k) expectEqual(m, 20 + k, 0, dev::test(word, never[k].cmp, never[k].operand));
}

template <Waiter waiter, class T>
void predicatesOf(cudaStream_t stream) {
  const Steps<T> steps = stepsFor<T>();
  // The table itself is right: each step's predicate holds for its value (host reference).
  for (const Step<T> &step : steps.step) ASSERT_TRUE(holds(step.cmp, step.set, step.operand)) << cmpName(step.cmp);
  Symmetric<T> word(kSlotStride<T>);
  Symmetric<std::int64_t> ack(kSlotStride<std::int64_t>);
  DeviceMismatches mismatches;
  predicateRing<waiter, T><<<1, 1, 0, stream>>>(word.get(), ack.get(), steps, mismatches.get());
  TDIST_ASSERT_CUDA(cudaGetLastError());
  TDIST_ASSERT_CUDA(cudaStreamSynchronize(stream));
  // Where: the step (0..5: value returned, 10..15: test true, 20..25: test false) in EQ..LE order.
  TDIST_EXPECT_NO_MISMATCH(mismatches, std::string(waiter == Waiter::SignalWaitUntil ? "signal_wait_until"
                                                                                      : "wait_until") +
                                           ", sizeof(T) " + std::to_string(sizeof(T)) +
                                           (std::numeric_limits<T>::is_signed ? " signed" : " unsigned"));
  sh::barrier_all();  // the last acknowledgement has landed before anyone frees
}

TEST_F(CudaTest, SignalWaitUntilAllSixPredicates) {
  predicatesOf<Waiter::SignalWaitUntil, std::int32_t>(stream_);
  predicatesOf<Waiter::SignalWaitUntil, std::int64_t>(stream_);
  predicatesOf<Waiter::SignalWaitUntil, std::uint64_t>(stream_);
}

TEST_F(CudaTest, WaitUntilAndTestAllSixPredicates) {
  predicatesOf<Waiter::WaitUntil, std::int32_t>(stream_);
  predicatesOf<Waiter::WaitUntil, std::uint32_t>(stream_);
  predicatesOf<Waiter::WaitUntil, std::int64_t>(stream_);
  predicatesOf<Waiter::WaitUntil, std::uint64_t>(stream_);
}

}  // namespace
}  // namespace tdist::cuda_test
