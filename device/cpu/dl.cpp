// device/cpu/dl.cpp - the dl primitives, on top of the shmem implementations (one per
// primitive: notify is signal_op, wait is the runtime's wait on each slot).
#include "tdist/dl.h"

#include <string>

#include "device/cpu/wait_value.h"
#include "runtime/fiber_scheduler.h"
#include "runtime/runtime_state.h"

namespace tdist::dl {

int rank() { return shmem::my_pe(); }
int num_ranks() { return shmem::n_pes(); }
int program_id(int axis) { return runtime::programId(axis); }
int num_programs(int axis) { return runtime::numPrograms(axis); }

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

template <class S>
Token wait(S *sig, int n, S value, MemScope scope, MemSemantic semantic) {
  runtime::requireState("dl.wait");
  if (n < 1) {
    throw Error(ErrorCode::InvalidParam,
                "dl.wait: the number of signal slots must be at least 1, got " + std::to_string(n));
  }
  // Relaxed waits are served with acquire loads too: stronger, and the same cost on x86.
  (void)scope;
  (void)semantic;
  std::uint64_t seen = 0;
  for (int slot = 0; slot < n; ++slot) {
    seen ^= static_cast<std::uint64_t>(device::waitValue(sig + slot * kSignalSlotStride<S>,
                                                         shmem::Cmp::EQ, value, "dl.wait", slot, n));
  }
  return Token{seen};
}

#define TDIST_INSTANTIATE_DL(S)                                            \
  template void notify<S>(S *, int, S, SignalOp, CommScope);               \
  template Token wait<S>(S *, int, S, MemScope, MemSemantic);
TDIST_INSTANTIATE_DL(std::int32_t)
TDIST_INSTANTIATE_DL(std::int64_t)
TDIST_INSTANTIATE_DL(std::uint64_t)
#undef TDIST_INSTANTIATE_DL

}  // namespace tdist::dl
