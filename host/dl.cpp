// host/dl.cpp - the dl primitives, on top of the shmem implementations (one per
// primitive: notify is signal_op, wait is the runtime's wait on each slot).
#include "tdist/dl.h"

#include <bit>
#include <string>

#include "host/calls.h"
#include "host/type_lists.h"
#include "host/wait_slots.h"
#include "host/wait_value.h"
#include "runtime/call_checks.h"
#include "runtime/fiber_scheduler.h"
#include "runtime/runtime_state.h"

namespace tdist::dl {

int rank() { return shmem::my_pe(); }
int num_ranks() { return shmem::n_pes(); }
namespace {

void checkAxis(int axis) {
  if (axis < 0 || axis > 2) [[unlikely]] {
    throw Error(ErrorCode::InvalidParam, "axis " + std::to_string(axis) + " is not 0, 1 or 2");
  }
}

}  // namespace

int program_id(int axis) {
  checkAxis(axis);
  return runtime::programId(axis);
}
int num_programs(int axis) {
  checkAxis(axis);
  return runtime::numPrograms(axis);
}

template <class S>
void notify(S *sig, int rank, S value, SignalOp op, CommScope scope) {
  shmem::SignalOp shmem_op;
  switch (op) {
    case SignalOp::Set: shmem_op = shmem::SignalOp::Set; break;
    case SignalOp::Add: shmem_op = shmem::SignalOp::Add; break;
    default:
      throw Error(ErrorCode::InvalidParam, "dl.notify: signal operation " +
                                               std::to_string(static_cast<int>(op)) +
                                               " is neither SET (1) nor ADD (2)");
  }
  // Every scope is one host on the cpu backend: the release store reaches all of them.
  (void)scope;
  shmem::signal_op(sig, value, shmem_op, rank);
}

namespace {

// A token carries the values the wait saw; floating-point values by their bits.
template <class S>
std::uint64_t tokenBits(S value) {
  if constexpr (std::is_floating_point_v<S>) {
    using Bits = std::conditional_t<sizeof(S) == 4, std::uint32_t, std::uint64_t>;
    return std::bit_cast<Bits>(value);
  } else {
    return static_cast<std::uint64_t>(value);
  }
}

}  // namespace

namespace detail {

// One deadline for the whole call: the slots are polled in order with one wait loop, so a wait
// over n slots ends at its deadline, not at n of them.
template <class S>
Token waitSlots(S *sig, int n, S value, const char *call) {
  auto &state = runtime::requireState(call);
  if (n < 1 || n > kMaxWaitSlots) [[unlikely]] {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": the number of signal slots must be in 1.." +
                                             std::to_string(kMaxWaitSlots) + ", got " + std::to_string(n));
  }
  runtime::requireAtomicAlignment<S>(sig, call, "sig");
  std::uint64_t seen = 0;
  host::waitWords(state, sig, n, kSignalSlotStride<S>, shmem::Cmp::EQ, value, call,
                    [&](S ready) { seen ^= tokenBits(ready); });
  return Token{seen};
}

template Token waitSlots<std::int8_t>(std::int8_t *, int, std::int8_t, const char *);
template Token waitSlots<std::int16_t>(std::int16_t *, int, std::int16_t, const char *);
template Token waitSlots<std::int32_t>(std::int32_t *, int, std::int32_t, const char *);
template Token waitSlots<std::int64_t>(std::int64_t *, int, std::int64_t, const char *);
template Token waitSlots<std::uint8_t>(std::uint8_t *, int, std::uint8_t, const char *);
template Token waitSlots<std::uint16_t>(std::uint16_t *, int, std::uint16_t, const char *);
template Token waitSlots<std::uint32_t>(std::uint32_t *, int, std::uint32_t, const char *);
template Token waitSlots<std::uint64_t>(std::uint64_t *, int, std::uint64_t, const char *);
template Token waitSlots<float>(float *, int, float, const char *);
template Token waitSlots<double>(double *, int, double, const char *);

}  // namespace detail

template <class S>
Token wait(S *sig, int n, S value, MemScope scope, MemSemantic semantic) {
  // Relaxed waits are served with acquire loads too: stronger, and the same cost on x86.
  (void)scope;
  (void)semantic;
  return detail::waitSlots(sig, n, value, "dl.wait");
}

#define TDIST_INSTANTIATE_DL(NAME, S, A)                      \
  template void notify<S>(S *, int, S, SignalOp, CommScope);  \
  template Token wait<S>(S *, int, S, MemScope, MemSemantic);
TDIST_HOST_SIGNAL_TYPES(TDIST_INSTANTIATE_DL, _)
#undef TDIST_INSTANTIATE_DL

// The template library waits on every integer width and on float and double.
template Token wait<std::int8_t>(std::int8_t *, int, std::int8_t, MemScope, MemSemantic);
template Token wait<std::int16_t>(std::int16_t *, int, std::int16_t, MemScope, MemSemantic);
template Token wait<std::uint8_t>(std::uint8_t *, int, std::uint8_t, MemScope, MemSemantic);
template Token wait<std::uint16_t>(std::uint16_t *, int, std::uint16_t, MemScope, MemSemantic);
template Token wait<std::uint32_t>(std::uint32_t *, int, std::uint32_t, MemScope, MemSemantic);
template Token wait<float>(float *, int, float, MemScope, MemSemantic);
template Token wait<double>(double *, int, double, MemScope, MemSemantic);

}  // namespace tdist::dl
