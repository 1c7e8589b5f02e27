// backends/cpu/transfer.h - which engine carries a transfer.
//
// MTE is the calling core (memcpy through the peer mapping); SDMA is the PE's copy engine. With
// both enabled, blocking calls use MTE and non-blocking ones SDMA, so a non-blocking put really
// overlaps the caller's work. With SDMA alone, every transfer goes through the engine.
#pragma once

#include <cstring>

#include "backends/cpu/cpu_state.h"

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

}  // namespace tdist::device
