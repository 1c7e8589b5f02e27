// host/transfer.h - the transfers of host calls: each is the backend's submit, which
// picks the engine that carries it (runtime/backend.h: the cpu backend's calling core or copy
// thread, the cuda backend's copy engines).
#pragma once

#include "runtime/backend.h"
#include "runtime/runtime_state.h"
#include "runtime/trace.h"

namespace tdist::host {

// The transfer carried (complete on return when blocking, else once quiet returns), recorded in
// the trace as a transfer of `what` to (or from) pe, on the engine the backend names.
inline void carryTraced(runtime::RuntimeState &state, const runtime::Transfer &task, bool blocking, const char *call,
                        trace_format::Transfer what, int pe) {
  if (!trace::active()) [[likely]] return state.backend->submit(state, task, blocking, call);
  const trace_format::Engine engine = state.backend->submit_engine(state, blocking);
  trace::recordTransfer(trace::Kind::TransferBegin, what, pe, task.bytes, engine);
  state.backend->submit(state, task, blocking, call);
  trace::recordTransfer(trace::Kind::TransferEnd, what, pe, task.bytes, engine);
}

}  // namespace tdist::host
