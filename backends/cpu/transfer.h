// backends/cpu/transfer.h - which engine carries a transfer.
//
// MTE is the calling core (memcpy through the peer mapping); SDMA is the PE's copy engine. With
// both enabled, blocking calls use MTE and non-blocking ones SDMA, so a non-blocking put really
// overlaps the caller's work. With SDMA alone, every transfer goes through the engine.
#pragma once

#include <cstring>

#include "backends/cpu/cpu_state.h"
#include "runtime/trace.h"

namespace tdist::device {

// The cpu backend's submit.
inline void carryOnCpu(runtime::RuntimeState &state, const CopyTask &task, bool blocking, const char *call) {
  CopyEngine *engine = cpu::cpuState(state).copy_engine.get();
  const bool use_engine = engine != nullptr && (!blocking || !(state.attr.engines & kEngineMte));
  if (!use_engine) {
    if (task.bytes != 0) std::memcpy(task.dest, task.source, task.bytes);
    if (task.signal != nullptr) applySignal(task.signal, task.signal_bytes, task.signal_value, task.signal_op);
    return;
  }
  std::uint64_t ticket = engine->submit(task);
  if (blocking) engine->waitFor(ticket, call);
}

// Every transfer of a host call: carried here when the host can load the heap, else handed to
// the backend, whose engines can reach it (the cuda backend's copy engine).
inline void carry(runtime::RuntimeState &state, const CopyTask &task, bool blocking, const char *call) {
  if (!state.backend->host_loads_heap) [[unlikely]] {
    state.backend->submit(state, task, blocking, call);
    return;
  }
  carryOnCpu(state, task, blocking, call);
}

// The engine that carryOnCpu picks, for the trace.
inline trace_format::Engine engineOf(runtime::RuntimeState &state, bool blocking) {
  if (!state.backend->host_loads_heap) return trace_format::Engine::Backend;
  const bool engine = cpu::cpuState(state).copy_engine != nullptr;
  return engine && (!blocking || !(state.attr.engines & kEngineMte)) ? trace_format::Engine::Sdma
                                                                     : trace_format::Engine::Mte;
}

// carry, recorded in the trace as a transfer of `what` to (or from) pe.
inline void carryTraced(runtime::RuntimeState &state, const CopyTask &task, bool blocking, const char *call,
                        trace_format::Transfer what, int pe) {
  if (!trace::active()) [[likely]] return carry(state, task, blocking, call);
  const trace_format::Engine engine = engineOf(state, blocking);
  trace::recordTransfer(trace::Kind::TransferBegin, what, pe, task.bytes, engine);
  carry(state, task, blocking, call);
  trace::recordTransfer(trace::Kind::TransferEnd, what, pe, task.bytes, engine);
}

}  // namespace tdist::device
